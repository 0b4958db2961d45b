"""How verdicts and gate statuses are shown to a person (shared by the text and
markdown reporters)."""

from __future__ import annotations

from assay.model import FileReport, GateStatus, Verdict

STATUS_MARK = {
    GateStatus.PASS: "✔",
    GateStatus.REJECT: "✘",
    GateStatus.WARN: "!",
    GateStatus.SKIP: "–",
}
VERDICT_STYLE = {
    Verdict.ACCEPTED: "green",
    Verdict.REJECTED: "red",
    Verdict.FLAKY: "yellow",
    Verdict.UNVALIDATED: "blue",
    Verdict.LOW_VALUE: "magenta",
}


def verdict_label(verdict: Verdict) -> str:
    return verdict.value.replace("_", " ")


def gate_cells(report: FileReport, gates: list[str]) -> list[str]:
    """One cell per gate: its mark, or blank where the gate did not run."""
    by_name = {g.gate: g for g in report.gates}
    return [STATUS_MARK[by_name[g].status] if g in by_name else "" for g in gates]
