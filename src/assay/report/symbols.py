"""How verdicts and gate statuses are shown to a person (shared by the text and
markdown reporters)."""

from __future__ import annotations

from typing import Any

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


def unvalidated_count(summary: dict[str, Any]) -> str:
    """`2 unvalidated (9 tests)`: the files, then every test no verdict could be given (an
    environment gap, a skip), when there are any: a judged file may hold unjudged tests."""
    tests = summary.get("unvalidated_tests", 0)
    return f"{summary['unvalidated']} unvalidated" + (
        f" ({tests} test{'' if tests == 1 else 's'})" if tests else ""
    )
