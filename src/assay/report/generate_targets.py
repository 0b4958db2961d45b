"""`assay targets`: functions worth testing next, as text or JSON (the JSON is
`assay generate` input)."""

from __future__ import annotations

import json
from typing import Any


def render_json(report: Any) -> str:
    return json.dumps(report.to_json(), indent=2) + "\n"


def render_text(report: Any) -> str:
    head = f"assay targets — {report.root}" + (
        f" (changed since {report.since})" if report.since else ""
    )
    lines = [head]
    if report.coverage_problem:
        lines.append(f"coverage: {report.coverage_problem}")
    if not report.functions and not report.coverage_problem:
        lines.append("nothing to do: every function's lines and branches run under the tests")
    for module, f in report.functions:
        cov = "n/a" if f.coverage is None else f"{f.coverage:.0f}%"
        branches = ", ".join(f"{a}->{'exit' if b < 0 else b}" for a, b in f.missing_branches[:6])
        more = " ..." if len(f.missing_branches) > 6 else ""
        lines.append(
            f"{module}::{f.name}  line {f.line}  coverage {cov}  complexity {f.complexity}  "
            f"missing lines {len(f.missing_lines)}  branches {len(f.missing_branches)}"
            + (f" [{branches}{more}]" if branches else "")
        )
    return "\n".join(lines) + "\n"
