"""`assay smells` text: `path:line:col RULE-ID message`, one finding a line."""

from __future__ import annotations

from assay.model import LintReport


def render(report: LintReport) -> str:
    return "".join(f"{f.path}:{f.line}:{f.col} {f.rule} {f.text}\n" for f in report.findings)
