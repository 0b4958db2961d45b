"""Fewer test functions at the same score (issue 28: a test is a test function): related targets of
one call shape share a table (`blend`), each assertion says what it pins and the line it guards
(`combined.messages`), and a test whose every kill gate 4 sees other tests make is left out
(`subsume`). On tests/offline/fixtures/kin: `take` and `take_nth`, `drop` and `rest = partial(drop,
1)`, `quadruple` calling `double`."""

from __future__ import annotations

import ast
import shutil
import time
from pathlib import Path

import pytest

from assay.config import load_settings
from assay.mutation.mutants import generate
from assay.project import Project
from assay.writers.offline.blend import relations
from assay.writers.offline.functions import FunctionInfo
from assay.writers.offline.model import ModuleResult
from assay.writers.offline.probe import ProbeResult
from assay.writers.offline.render import formatted, render
from assay.writers.offline.verification import Verification
from tests.offline.kept_cases import case as _case
from tests.offline.kept_cases import functions_of as _tests
from tests.offline.kept_cases import run_pytest as _pytest

KIN = Path(__file__).resolve().parent / "fixtures" / "kin"
SEQS = (KIN / "src" / "kin" / "seqs.py").read_text()
PARAMS = {
    "take": ["n", "seq"],
    "take_nth": ["n", "seq"],
    "drop": ["n", "seq"],
    "first": ["seq"],
    "count": ["seq"],
    "double": ["x"],
    "quadruple": ["n"],
}
KINDS = dict.fromkeys(PARAMS, "function")


def test_relations_are_calls_assignments_and_names_that_begin_with_another():
    related = relations(SEQS)
    assert related["take"] == {"take_nth"}
    assert related["drop"] == {"rest"}
    assert related["quadruple"] == {"double"}
    assert related["first"] == set() and related["count"] == set()


def test_related_small_targets_of_one_shape_share_a_table_and_keep_every_kill(tmp_path):
    """Before: five tests (`take`'s two cases, `take_nth`, `drop`, `first`, `count`); now `take_nth`
    joins `take`'s test as rows of a table with the function as a column, and the unrelated ones
    (`drop` beside `take`, `first` beside `count`: alike, not kin) keep their own. The file passes
    pytest, and a mutant of `take_nth` still fails it (its row is still asserted)."""
    cases = [
        _case("t1", "take", "[1, 2]", "2", "[1, 2, 3]"),
        _case("t2", "take", "[]", "0", "[1]"),
        _case("tn", "take_nth", "[1, 3]", "2", "[1, 2, 3]"),
        _case("d", "drop", "[3]", "2", "[1, 2, 3]"),
        _case("f", "first", "'a'", "'ab'"),
        _case("c", "count", "2", "'ab'"),
    ]
    order = list(PARAMS)
    out = render("kin.seqs", cases, KINDS, PARAMS, {"kin"}, order, {}, {}, relations(SEQS))
    tests = _tests(out.text)
    assert len(tests) == 4, out.text
    merged = "test_take_and_take_nth_return_values"
    assert [k.id for k in out.rows[merged]] == ["t2", "t1", "tn"]
    assert out.shared == {merged: ["take", "take_nth"]}  # the report says so
    assert [a.arg for a in tests[merged].args.args] == ["function", "n", "seq", "expected"]
    assert "(take_nth, 2, [1, 2, 3], [1, 3])," in out.text
    assert ast.unparse(tests[merged].body[0]) == "assert function(n, seq) == expected"
    assert [t.function for t in out.tests if t.test.startswith(merged)] == [
        "take",
        "take",
        "take_nth",
    ]
    root = tmp_path / "kin"
    shutil.copytree(KIN, root)
    text = formatted(out.text, root)
    assert _pytest(root, text) == 0
    module = root / "src" / "kin" / "seqs.py"
    module.write_text(SEQS.replace("list(seq)[::n]", "list(seq)[::1]"))
    assert _pytest(root, text) == 1


def test_two_related_cases_in_all_are_one_test_of_statements():
    cases = [
        _case("t1", "take", "[1, 2]", "2", "[1, 2, 3]", kills={"m-take"}),
        _case("tn", "take_nth", "[1, 3]", "2", "[1, 2, 3]", kills={"m-nth"}),
    ]
    guards = {"m-take": "line 7: return list(seq)[:n]", "m-nth": "line 11: return list(seq)[::n]"}
    out = render(
        "kin.seqs", cases, KINDS, PARAMS, {"kin"}, list(PARAMS), {}, guards, relations(SEQS)
    )
    [test] = _tests(out.text).values()
    assert test.name == "test_take_and_take_nth_return_values"
    assert [ast.unparse(s) for s in test.body] == [
        "assert take(2, [1, 2, 3]) == [1, 2], 'take returns [1, 2] (line 7: return list(seq)[:n])'",
        "assert take_nth(2, [1, 2, 3]) == [1, 3], "
        "'take_nth returns [1, 3] (line 11: return list(seq)[::n])'",
    ]
    assert out.statements == {test.name: [1, 1]}


def test_each_assertion_says_what_it_pins_and_which_line_it_guards():
    """Before: two assertions guarding one line shared a message (`'line 7: ...'` twice), and a
    case that kills no known mutant read `'take as it behaves today'`; now each says the value it
    pins, a second case guards another line it kills where it can, and a case with no known kill
    names the line it runs."""
    line7, line8 = "line 7: return list(seq)[:n]", "line 8: if n < 0:"
    cases = [
        _case("a", "take", "[1, 2]", "2", "[1, 2, 3]", kills={"m7"}),
        _case("b", "take", "[1]", "1", seq="[1, 2]", kills={"m7", "m8"}),
        _case("c", "take", "[]", "0", "[]", lines={7}),
    ]
    cases[2].outcome["k"] = "iter"  # another shape: the three are one test of statements
    guards = {"m7": line7, "m8": line8}
    out = render("kin.seqs", cases, KINDS, PARAMS, {"kin"}, ["take"], {}, guards)
    [test] = _tests(out.text).values()
    assert [ast.unparse(s).split(", '", 1)[1] for s in test.body] == [
        f"take returns [1] ({line8})'",
        f"take returns [1, 2] ({line7})'",
        f"take yields [] (runs {line7})'",
    ]


@pytest.mark.slow
@pytest.mark.parametrize("sample", [0, 1])
def test_a_test_whose_kills_gate_4_sees_other_tests_make_is_left_out(tmp_path, sample):
    """Slow (a real run of gates 1-5). `double(3) == 6` and `quadruple(3) == 12`: every mutant of
    `double` the first kills, the second kills too (it calls `double` twice), which the probe's
    partial kill sets need not show. Gate 4's exact kill sets do: the writer leaves the test of
    `double` out after the gates accepted the file, says which test subsumes it, and the score of
    the file stays what it was. Also when gate 4 scores a sample of the scope's mutants (`sample =
    1`: a real module's scope has more than the default 100): the mutants out of the sample count
    as the probe saw them (before, a sampled run left every test in)."""
    root = tmp_path / "kin"
    shutil.copytree(KIN, root)
    project = Project.load(root)
    # what the probe saw: `quadruple(3)` kills the mutants of both functions, `double(3)` those of
    # `double` (it was kept all the same: say its killers of them were cut short)
    mutants = generate("src/kin/seqs.py", SEQS)
    of_double = {m.id for m in mutants if m.line == 30}
    cases = [
        _case("d", "double", "6", "3", lines={30}, kills=of_double),
        _case(
            "q",
            "quadruple",
            "12",
            "3",
            lines={30, 34},
            kills={m.id for m in mutants if m.line in (30, 34)},
        ),
    ]
    writer = Verification()
    writer.project, writer.settings = project, load_settings(root)
    if sample:
        writer.settings.mutation.sample = sample
    writer.budget_s, writer.max_tests, writer.use_cache = 120.0, 20, False
    said: list[str] = []
    writer.say = said.append
    todo = [
        FunctionInfo("double", "function", 29, 30),
        FunctionInfo("quadruple", "function", 33, 34),
    ]
    probe = ProbeResult({n: {"params": PARAMS[n]} for n in ("double", "quadruple")}, cases, {})
    result = ModuleResult("src/kin/seqs.py", "tests/test_seqs_characterization.py")
    spans = {"double": (29, 30), "quadruple": (33, 34)}
    deadline = time.monotonic() + 120
    rendered, report = writer._verify_loop(
        result, "kin.seqs", todo, probe, list(cases), [], spans, 0.0, {}, deadline, set()
    )
    assert report is not None and report.verdict.value == "accepted", report
    assert list(rendered.rows) == ["test_quadruple_of_3_returns_12"], rendered.text
    assert result.notes == [
        "1 test left out after gate 4: every mutant it kills, other kept tests kill too: "
        "test_double_of_3_returns_6 (by test_quadruple_of_3_returns_12)"
    ]
    assert "def test_double" not in rendered.text
