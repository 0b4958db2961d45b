"""`--format markdown`: a short table fit for a pull-request comment."""

from __future__ import annotations

from assay.model import GATE_ORDER, Report
from assay.report.symbols import gate_cells, summary_counts, verdict_label


def render(report: Report) -> str:
    gates = [g for g in GATE_ORDER if any(r.gate == g for f in report.files for r in f.gates)]
    s = report.summary()
    lines = [
        "### assay verify",
        "",
        f"{summary_counts(report)} ({s['duration_s']:.1f} s)",
        *(f"\n**{gap.describe()}**" for gap in report.environment_gaps()),
        "",
        "| file | " + " | ".join(gates) + " | verdict |",
        "|---|" + "---|" * len(gates) + "---|",
    ]
    for f in report.files:
        cells = gate_cells(f, gates)
        lines.append(
            f"| `{f.path}` | " + " | ".join(cells) + f" | **{verdict_label(f.verdict)}** |"
        )
    skips = [
        f"- `{f.path}`: {g.gate} skipped: {g.details['reason']}"
        for f in report.files
        for g in f.gates
        if g.status.value == "skip" and g.verdict is None and g.details.get("reason")
    ]
    if skips:  # gates that did not measure a file, and why (mutation for another language)
        lines += ["", *skips]
    rejected = [f for f in report.files if f.rejected_at]
    if rejected:
        lines += ["", "<details><summary>Feedback</summary>", ""]
        for f in rejected:
            gate = next(g for g in f.gates if g.gate == f.rejected_at)
            lines += [f"**{f.path}**", "```", gate.feedback.strip(), "```", ""]
        lines.append("</details>")
    return "\n".join(lines) + "\n"
