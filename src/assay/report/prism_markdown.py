"""`assay prism` as Markdown: the per-task and aggregate tables and the findings, for a PR comment
or a wiki."""

from __future__ import annotations

from assay.prism.model import PrismReport
from assay.report.prism_text import SUMMARY_HEADER, TASK_HEADER, findings, summary_row, task_row


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _table(header: list[str], rows: list[list[str]]) -> list[str]:
    out = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    out += ["| " + " | ".join(_cell(c) for c in row) + " |" for row in rows]
    return out


def render(report: PrismReport) -> str:
    lines = ["# assay prism", "", f"Benchmark `{report.benchmark}`, suites `{report.suites}`.", ""]
    lines += _table(TASK_HEADER, [task_row(t) for t in report.tasks])
    rows = [summary_row("all", report.aggregate)]
    rows += [summary_row(f"category {k}", s) for k, s in report.by("category").items()]
    rows += [summary_row(f"language {k}", s) for k, s in report.by("language").items()]
    lines += ["", "## Aggregate", ""] + _table(["", *SUMMARY_HEADER], rows)
    found = findings(report)
    if found:
        lines += ["", "## Findings", ""] + [f"- {_cell(f)}" for f in found]
    lines += [
        "",
        f"{report.runs.get('total', 0)} runs ({report.runs.get('cached', 0)} from the cache) in "
        f"{report.duration_s:.1f}s.",
    ]
    lines += [f"Note: {_cell(note)}" for note in report.notes]
    return "\n".join(lines) + "\n"
