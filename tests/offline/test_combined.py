"""One target, one test (issue 28, "with fewer tests": a test is a test function): the cases of a
function that share no table become one test of consecutive statements, each assertion saying the
line it guards; a table stays where three cases share a shape; a failing statement costs its own
case, not the test."""

from __future__ import annotations

import ast
import shutil
from pathlib import Path

import pytest

from assay.config import load_settings
from assay.pipeline import Verifier
from assay.project import Project, candidate
from assay.writers.offline.combined import MAX_FOLDED
from assay.writers.offline.gates import gate4_out_of_time, writer_gates
from assay.writers.offline.probe import Kept
from assay.writers.offline.render import formatted, render
from assay.writers.offline.verification import Verification, verify_settings

LEDGER = Path(__file__).resolve().parent / "fixtures" / "ledger"
PARAMS = {"fee": ["amount", "premium"]}


def _case(id_: str, expr: str, *args: str, k: str = "return", **kwargs: str) -> Kept:
    outcome = (
        {"k": "raise", "type": "ValueError", "match": expr, "imports": []}
        if k == "raise"
        else {"k": k, "expr": expr, "imports": []}
    )
    inp = {"args": list(args), "kwargs": kwargs, "receiver": None, "origin": "tests"}
    return Kept(id_, "fee", inp, outcome, set(), {f"m-{id_}"})


def _tests(text: str) -> dict[str, ast.FunctionDef]:
    return {n.name: n for n in ast.parse(text).body if isinstance(n, ast.FunctionDef)}


def test_cases_of_one_function_that_share_no_table_are_one_test_of_statements():
    """Before: a function per call shape - `fee(50)`, `fee(100, True)`, `fee(150, premium=...)`
    and the raise were four tests beside the table; now the table (three cases of one shape) and
    one test holding the rest, returns first, each assertion with the line it guards."""
    # more rows than a table that folds into the test of statements (`MAX_FOLDED`, test_fold.py)
    rows = range(2, 3 + MAX_FOLDED)
    table = [_case(f"t{n}", str(n), str(n * 100)) for n in rows]
    loose = [
        _case("raise", "^amount must be positive, got 0$", "0", k="raise"),
        _case("two", "0", "100", "True"),
        _case("kw", "3", "150", premium="False"),
    ]
    guards = {"m-two": "line 19: if premium:", "m-kw": "line 21: if amount >= LIMIT:"}
    out = render(
        "ledger.rules", [*table, *loose], {"fee": "function"}, PARAMS, set(), ["fee"], {}, guards
    )
    tests = _tests(out.text)
    assert list(tests) == [
        "test_fee_return_values",
        "test_fee_return_values_and_raises_value_error",
    ]
    assert [k.id for k in out.rows["test_fee_return_values"]] == [f"t{n}" for n in rows]
    both = tests["test_fee_return_values_and_raises_value_error"]
    assert [k.id for k in out.rows[both.name]] == ["two", "kw", "raise"]
    assert [ast.unparse(s) for s in both.body] == [
        "assert fee(100, True) == 0, 'fee returns 0 (line 19: if premium:)'",
        "assert fee(150, premium=False) == 3, 'fee returns 3 (line 21: if amount >= LIMIT:)'",
        "with pytest.raises(ValueError, match='^amount must be positive, got 0$'):\n    fee(0)",
    ]
    assert out.statements == {both.name: [1, 1, 1]}
    assert [t.test for t in out.tests][len(rows) :] == [both.name] * 3


def test_an_argument_passed_by_name_in_one_call_and_by_position_in_another_shares_a_table():
    """humanize's `ordinal`: `ordinal("2", "")`, `ordinal(5, gender="female")` and `ordinal("1")`
    were three tests (a table, a test of statements, a table) because `gender` went by position in
    one call and by name in another; a parameter a call fills by position takes either."""

    def case(id_, expr, *args, **kwargs):
        k = _case(id_, expr, *args, **kwargs)
        k.function = "ordinal"
        return k

    cases = [
        case("pos", "'2nd'", "'2'", "''"),
        case("kw", "'5th'", "5", gender="'female'"),
        case("bare", "'1st'", "'1'"),
    ]
    params = {"ordinal": ["value", "gender"]}
    defaults = {"ordinal": {"gender": "'male'"}}
    out = render("h.number", cases, {"ordinal": "function"}, params, set(), ["ordinal"], defaults)
    [test] = _tests(out.text).values()
    assert "ordinal(value, gender) == expected" in out.text
    assert "(5, 'female', '5th')," in out.text and "('1', 'male', '1st')," in out.text
    assert sorted(k.id for k in out.rows[test.name]) == ["bare", "kw", "pos"]


def _gates(project: Project, text: str):
    """Gates 1-3 and 5 on the text (gate 4's time is over at once: the writer's bounded gate)."""
    settings = verify_settings(load_settings(project.root))
    verifier = Verifier(project, settings, use_cache=False, gates=writer_gates(settings, 0.0))
    try:
        return verifier.verify_file(candidate(project, "tests/test_gen.py", text))
    finally:
        verifier.close()


@pytest.mark.slow
def test_a_test_of_statements_passes_the_smells_gate_and_a_failing_one_costs_only_its_case(
    tmp_path,
):
    """Slow (two real runs of gates 1-3 and 5). Seven cases of `fee` in one test: six assertions
    are more than the smells gate lets a generated test leave unexplained, so each says the line
    it guards; one wrong expected value then fails gate 2, and only its case is taken out."""
    root = tmp_path / "ledger"
    shutil.copytree(LEDGER, root)
    project = Project.load(root)
    cases = [
        _case("a", "1", "50"),
        _case("b", "20", "1000"),
        _case("c", "0", "100", "True"),
        _case("d", "3", "150", premium="False"),
        _case("e", "4", amount="200"),
        _case("f", "100", amount="5000", premium="False"),
        _case("g", "^amount must be positive, got 0$", "0", k="raise"),
    ]
    guards = {f"m-{k.id}": f"line {n}: code" for n, k in enumerate(cases, 10)}

    def written(kept: list[Kept]):
        out = render(
            "ledger.rules", kept, {"fee": "function"}, PARAMS, {"ledger"}, ["fee"], {}, guards
        )
        out.text = formatted(out.text, root)
        return out

    out = written(cases)
    assert len(_tests(out.text)) == 1
    report = _gates(project, out.text)
    assert gate4_out_of_time(report), [(g.gate, g.feedback) for g in report.gates]

    cases[4] = _case("e", "5", amount="200")  # fee(amount=200) is 4
    out = written(cases)
    report = _gates(project, out.text)
    assert report.rejected_at == "green"
    assert [k.id for k in Verification._rejected("tests/test_gen.py", report, out)] == ["e"]
