"""`assay generate -f json`: the whole run, versioned (`assay.generate/1`)."""

from __future__ import annotations

import json
from typing import Any


def render(report: Any) -> str:
    return json.dumps(report.to_json(), indent=2) + "\n"
