"""`assay prism` as JSON: schema `assay.prism/1` (docs/prism.md), per-test matrix included."""

from __future__ import annotations

import json

from assay.prism.model import BuildReport, CheckReport, PrismReport


def render(report: PrismReport | CheckReport | BuildReport) -> str:
    return json.dumps(report.to_json(), indent=2, ensure_ascii=False) + "\n"
