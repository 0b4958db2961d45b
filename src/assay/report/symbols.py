"""How verdicts and gate statuses are shown to a person (shared by the text and
markdown reporters)."""

from __future__ import annotations

from assay.model import FileReport, GateStatus, Report, Verdict

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


def summary_counts(report: Report) -> str:
    """Files by verdict, then tests by verdict (those with none left out, but `accepted`) and the
    redundant ones: the counts of the JSON summary."""
    s = report.summary()
    tests = s["tests"]
    labels = [(v.value, verdict_label(v)) for v in Verdict] + [("redundant", "redundant")]
    shown = [f"{tests[k]} {label}" for k, label in labels if tests[k] or k == "accepted"]
    if s["not_judged_tests"]:  # not a gap of the environment: their file stopped at a gate first
        i = next(i for i, text in enumerate(shown) if text.endswith(" unvalidated"))
        shown[i] += f" ({s['not_judged_tests']} not judged: their file stopped at a gate first)"
    return (
        f"{s['files']} file{'' if s['files'] == 1 else 's'}: {s['accepted']} accepted, "
        f"{s['rejected']} rejected, {s['flaky']} flaky, "
        f"{s['low_value']} low value, {s['unvalidated']} unvalidated; tests: {', '.join(shown)}"
    )
