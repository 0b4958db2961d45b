"""`assay smells -f json`: findings and counts by level (schema `assay.smells/1`)."""

from __future__ import annotations

import json

from assay.model import LintReport


def render(report: LintReport) -> str:
    counts = {
        lvl: sum(1 for f in report.findings if f.level == lvl) for lvl in ("reject", "warn", "info")
    }
    return json.dumps(
        {
            "schema": "assay.smells/1",
            "files": report.files,
            "summary": counts,
            "findings": [f.to_json() for f in report.findings],
        },
        indent=2,
    )
