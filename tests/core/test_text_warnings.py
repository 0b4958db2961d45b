"""The terminal lists what each warning is about (issue 25 point 8), also when a later gate decided
the tests the warning names."""

from __future__ import annotations

from assay import model
from assay.model import FileReport, GateResult, GateStatus, Report, Verdict
from assay.report import text

FILE = "tests/test_signer.py"
ABSTRACT = f"{FILE}::test_abstract_algorithm"
ALIAS = f"{FILE}::test_alias"


def _report(final: list[model.TestOutcome]) -> Report:
    warned = [
        model.TestOutcome(ABSTRACT, Verdict.LOW_VALUE, "mutation", "kills none of the 3 mutants"),
        model.TestOutcome(ALIAS, Verdict.LOW_VALUE, "mutation", "reaches no mutant: none of the x"),
    ]
    gates = [
        GateResult("mutation", GateStatus.WARN, feedback="WARN: Gate 4 — X\n…", tests=warned),
        GateResult("smells", GateStatus.REJECT, feedback="REJECT: Gate 5 — LOW-VALUE TESTS"),
    ]
    f = FileReport(FILE, "python", [], Verdict.LOW_VALUE, "smells", gates, final)
    return Report("/p", [f], None, 1.0)


def test_a_warning_names_its_tests_when_a_later_gate_decided_them():
    """itsdangerous 2.2.0: gate 4 warned of test_abstract_algorithm, gate 5's AS020 then decided it,
    and the terminal printed gate 4's header alone."""
    final = [
        model.TestOutcome(ABSTRACT, Verdict.LOW_VALUE, "smells", "AS020 low value: …"),
        model.TestOutcome(ALIAS, Verdict.LOW_VALUE, "mutation", "reaches no mutant: none of the x"),
    ]
    out = " ".join(text.render(_report(final), width=400).split())
    assert (
        f"{FILE} — mutation: low value (kill no mutant of the code they run): "
        "test_abstract_algorithm; low value (reach no mutant: none of the project lines they run "
        "has one): test_alias"
    ) in out


def test_tests_left_unjudged_by_a_stopped_file_are_told_apart_from_environment_gaps():
    """itsdangerous 2.2.0: "tests: 173 accepted, 2 rejected, 57 unvalidated" with no gap named: the
    57 were tests of files rejected at gate 4, which no later gate judged."""
    final = [
        model.TestOutcome(ABSTRACT, Verdict.UNVALIDATED, None, f"{model.NOT_JUDGED} mutation"),
        model.TestOutcome(ALIAS, Verdict.UNVALIDATED, None, "skipped: no network"),
    ]
    report = _report(final)
    summary = report.summary()
    assert (summary["unvalidated_tests"], summary["not_judged_tests"]) == (2, 1)
    out = " ".join(text.render(report, width=400).split())
    assert (
        "tests: 0 accepted, 2 unvalidated (1 not judged: their file stopped at a gate first)" in out
    )


def test_the_unvalidated_tests_of_an_accepted_file_are_listed_with_their_reason():
    """rfc3986 2.0.0 `test_iri.py`: `accepted`, `11/24`, and on the terminal nothing said that 13
    tests were skipped because the `idna` module is missing (only `-v` showed it)."""
    skip = "skipped: This test requires the 'idna' module"
    final = [
        model.TestOutcome(f"{FILE}::test_encode[a]", Verdict.UNVALIDATED, "green", skip),
        model.TestOutcome(f"{FILE}::test_encode[b]", Verdict.UNVALIDATED, "green", skip),
        model.TestOutcome(f"{FILE}::test_plain", Verdict.ACCEPTED, None, ""),
    ]
    gates = [GateResult("green", GateStatus.PASS), GateResult("mutation", GateStatus.PASS)]
    report = Report(
        "/p", [FileReport(FILE, "python", [], Verdict.ACCEPTED, None, gates, final)], None, 1.0
    )
    out = " ".join(text.render(report, width=400).split())
    assert f"{FILE} — 2 tests unvalidated (green: {skip}): test_encode (2 cases)" in out
    # a file a gate stopped: its feedback tells why, no extra line
    stopped = FileReport(FILE, "python", [], Verdict.REJECTED, "mutation", gates, final)
    out = " ".join(text.render(Report("/p", [stopped], None, 1.0), width=400).split())
    assert "tests unvalidated (" not in out


def test_a_smell_warning_names_each_test_with_its_class_once():
    """shortuuid 1.0.9: `AS016 ×11 (magic number 20 in assertion): test_generation (8 cases),
    test_alphabet (3 cases)`: two classes' `test_generation`, 4 findings each, read as one test of 8
    parametrized cases, and which class's test was left out."""
    findings = [
        {"rule": "AS016", "level": "warn", "line": n, "message": "magic number 20", "test": test}
        for n, test in [
            (22, "LegacyTest::test_generation"),
            (23, "LegacyTest::test_generation"),
            (70, "ClassTest::test_generation"),
            (71, "ClassTest::test_generation"),
            (90, "test_module_level"),
        ]
    ]
    gates = [GateResult("smells", GateStatus.WARN, details={"findings": findings})]
    f = FileReport(FILE, "python", [], Verdict.ACCEPTED, None, gates, [])
    out = " ".join(text.render(Report("/p", [f], None, 1.0), width=400).split())
    assert (
        f"{FILE} — smells: 5 warnings: AS016 ×5 (magic number 20): LegacyTest::test_generation, "
        "ClassTest::test_generation, test_module_level"
    ) in out


def test_the_summary_of_a_python_too_new_for_the_project_does_not_say_install():
    """validators 0.9 on 3.11: "environment: no inspect.getargspec in this Python (removed in 3.11)
    in .venv/bin/python (67 tests of 13 files unvalidated; install it there and run again)"."""
    gap = model.EnvironmentGap(
        "no inspect.getargspec in this Python (removed in 3.11)", ".venv/bin/python", {"a"}, {"f"}
    )
    line = gap.describe()
    assert "install" not in line
    assert line.endswith(
        "(1 test of 1 file unvalidated; point assay at a Python the project supports and run again)"
    )


def test_a_rules_findings_with_different_details_are_summed_up_by_what_they_share():
    """funcy 2.1's test_colls.py: "AS014 ×11 (private access: `.__dict__`)" where one finding was a
    `__dict__` and ten an imported `_`: the first finding's details stood for all eleven."""
    findings = [
        {"rule": rule, "level": "warn", "line": n, "message": message, "test": test}
        for rule, n, message, test in [
            ("AS014", 35, "private access: `.__dict__`", "test_empty_quirks"),
            ("AS014", 122, "private access: `_` imported from its module", "test_walk_values"),
            ("AS003", 55, "assertion roulette: 9 assertions without a message (max 5)", "test_a"),
            ("AS003", 60, "assertion roulette: 6 assertions without a message (max 5)", "test_b"),
            ("AS016", 70, "magic number 20", "test_c"),
        ]
    ]
    gates = [GateResult("smells", GateStatus.WARN, details={"findings": findings})]
    f = FileReport(FILE, "python", [], Verdict.ACCEPTED, None, gates, [])
    out = " ".join(text.render(Report("/p", [f], None, 1.0), width=400).split())
    assert "AS003 ×2 (assertion roulette): test_a, test_b" in out
    assert "AS014 ×2 (private access): test_empty_quirks, test_walk_values" in out
    assert "AS016 (magic number 20): test_c" in out
