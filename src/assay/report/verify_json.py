"""`--format json`: the versioned document described in docs/report-format.md."""

from __future__ import annotations

import json

from assay.model import Report


def render(report: Report) -> str:
    return json.dumps(report.to_json(), indent=2) + "\n"
