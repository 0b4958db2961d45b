"""The offline writer's report as JSON (`OfflineReport.to_json`)."""

from __future__ import annotations

import json

from assay.writers.offline import OfflineReport


def render(report: OfflineReport) -> str:
    return json.dumps(report.to_json(), indent=2) + "\n"
