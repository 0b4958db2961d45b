"""The offline writer on the ledger project, end to end: what it wrote, where, why it skipped what
it skipped, and that what it wrote passes pytest in the project."""

from __future__ import annotations

import ast
import subprocess
import sys

from assay._assay_sandbox.offline.pace import MAX_SLOWDOWN
from tests.conftest import tree_digest
from tests.offline.conftest import BUDGET_S

RULES = "src/ledger/rules.py"


def _module(run):
    [module] = run.report.modules
    return module


def _functions(run):
    return {f.name: f for f in _module(run).functions}


def test_the_file_goes_next_to_the_modules_tests_and_nothing_else_changes(ledger_run):
    module = _module(ledger_run)
    assert module.verdict == "accepted" and module.written
    assert module.test_path == "tests/test_rules_characterization.py"
    after = tree_digest(ledger_run.root)
    assert set(after) - set(ledger_run.before) == {module.test_path}
    assert {k: v for k, v in after.items() if k != module.test_path} == ledger_run.before
    assert (ledger_run.root / module.test_path).read_text() == module.text


def test_every_test_is_marked_and_asserts_something(ledger_run):
    tree = ast.parse(_module(ledger_run).text)
    tests = [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name.startswith("test_")]
    assert tests
    for test in tests:
        marks = {ast.unparse(d).split("(")[0] for d in test.decorator_list}
        assert {"pytest.mark.assay_generated", "pytest.mark.characterization"} <= marks, test.name
        checks = [
            n
            for n in ast.walk(test)
            if isinstance(n, ast.Assert)
            or (isinstance(n, ast.Call) and ast.unparse(n.func) == "pytest.raises")
        ]
        assert checks, f"{test.name} asserts nothing"


def test_the_written_file_passes_pytest_in_the_project(ledger_run):
    module = _module(ledger_run)
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "-p",
            "no:xdist",
            "-p",
            "no:randomly",
            module.test_path,
        ],
        cwd=ledger_run.root,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stdout[-2000:]
    # a test holding several cases as statements is one pytest item (`combined`)
    assert f"{len({t.test for t in module.tests})} passed" in proc.stdout


def test_the_tests_kill_the_mutants_of_what_they_test(ledger_run):
    module = _module(ledger_run)
    functions = _functions(ledger_run)
    for name in ("fee", "grade", "evens", "Account.deposit"):
        f = functions[name]
        assert f.status == "tested" and f.tests >= 1, f
        assert f.killed == f.mutants > 0, (f, module.survivors, module.notes, module.timings)
    assert module.gate_score is not None and module.gate_score >= 50
    assert all(t.kills or t.reaches for t in module.tests), (
        "a test that kills no mutant, nor runs one the probe had no time for, was kept"
    )


def test_inputs_come_from_the_tests_the_doctests_and_the_type_hints(ledger_run):
    tried = _functions(ledger_run)["fee"].inputs_tried
    assert (
        tried.get("tests", 0) >= 1 and tried.get("doctest", 0) >= 1 and tried.get("variant", 0) >= 1
    )
    # one per parametrize row
    assert _functions(ledger_run)["grade"].inputs_tried.get("tests", 0) == 2


def test_functions_that_cannot_be_pinned_are_skipped_with_the_reason(ledger_run):
    functions = _functions(ledger_run)
    assert functions["load"].status == "skipped" and "I/O" in functions["load"].reason
    assert functions["stamp"].status == "skipped" and "clock" in functions["stamp"].reason
    assert (
        functions["Account.owner_name"].status == "skipped"
        and "no logic" in functions["Account.owner_name"].reason
    )
    assert functions["spin"].status == "skipped" and "hangs" in functions["spin"].reason
    assert functions["hog"].status == "skipped" and "memory" in functions["hog"].reason


def test_no_input_killing_a_mutant_means_no_test_and_the_report_says_why(ledger_run):
    discard = _functions(ledger_run)["discard"]
    assert discard.status == "no-kill" and discard.tests == 0
    assert "no input kills any of its" in discard.reason
    assert "discard(" not in _module(ledger_run).text


def test_exact_assertions_parametrized_where_the_shape_repeats(ledger_run):
    text = _module(ledger_run).text
    assert "@pytest.mark.parametrize(" in text
    assert 'pytest.raises(ValueError, match="^amount must be positive, got' in text
    assert "assert list(evens(" in text  # a generator is pinned by its items


def test_the_budget_is_respected(ledger_run):
    """In seconds of an idle machine (`pace`); the wall clock stretches by the slowdown measured,
    at most `MAX_SLOWDOWN` times."""
    module = _module(ledger_run)
    assert module.timings["idle"] <= BUDGET_S * 1.1
    assert module.duration_s <= BUDGET_S * 1.1 * module.timings["slowdown"] + 5
    assert ledger_run.wall_s <= BUDGET_S * 1.1 * MAX_SLOWDOWN + 5
