"""`-v` on the terminal: a verdict per test, where the cases of a parametrized test that share
their verdict and reason are one line with their count (ftfy 6.3.1: 161 lines "low value ...
test_well_formed_example[test_caseN] — reaches no mutant", identical but for N, hid the rest);
cases that differ keep a line each; the JSON and the summary still count every case."""

from __future__ import annotations

import json

from assay import model
from assay.model import FileReport, GateResult, GateStatus, Report, Verdict
from assay.report import text
from assay.report.verify_json import render as render_json

FILE = "tests/test_examples.py"
SAME = "reaches no mutant: none of the project lines it runs has one"


def _report() -> Report:
    tests = [
        model.TestOutcome(f"{FILE}::test_well_formed[case{i}]", Verdict.LOW_VALUE, "mutation", SAME)
        for i in range(40)
    ]
    tests += [
        model.TestOutcome(f"{FILE}::test_fix[a]", Verdict.ACCEPTED, None, ""),
        model.TestOutcome(f"{FILE}::test_fix[b]", Verdict.ACCEPTED, None, ""),
        model.TestOutcome(
            f"{FILE}::test_fix[c]", Verdict.REJECTED, "green", "failed: assert 1 == 2"
        ),
        model.TestOutcome(f"{FILE}::test_plain", Verdict.ACCEPTED, None, ""),
    ]
    gates = [GateResult("green", GateStatus.REJECT, feedback="REJECT: Gate 2 — TEST FAILURE")]
    f = FileReport(FILE, "python", [], Verdict.REJECTED, "green", gates, tests)
    return Report("/p", [f], None, 1.0)


def _lines(out: str) -> list[str]:
    return [" ".join(line.split()) for line in out.splitlines()]


def test_cases_with_the_same_verdict_and_reason_are_one_line_with_their_count():
    lines = _lines(text.render(_report(), width=400, verbose=True))
    same = [ln for ln in lines if "test_well_formed" in ln and ln.startswith("low value")]
    assert same == [f"low value {FILE}::test_well_formed (40 cases) — mutation: {SAME}"], same
    # the cases that differ: one line per verdict and reason, the lone case by its own id
    assert f"accepted {FILE}::test_fix (2 of 3 cases: [a], [b])" in lines, lines
    assert f"rejected {FILE}::test_fix[c] — green: failed: assert 1 == 2" in lines, lines
    assert f"accepted {FILE}::test_plain" in lines


def test_the_json_keeps_every_case_and_the_summary_counts_them():
    report = _report()
    data = json.loads(render_json(report))
    ids = [t["id"] for f in data["files"] for t in f["tests"]]
    assert len(ids) == 44 and f"{FILE}::test_well_formed[case39]" in ids
    out = " ".join(text.render(report, width=400, verbose=True).split())
    assert "tests: 3 accepted, 1 rejected, 40 low value" in out
