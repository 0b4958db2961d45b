"""One test per family of related functions where their cases fit one (issue 28: fewer tests than
Pynguin, each a thing a reader names): relations a docstring's "See Also" or a shared public callee
shows (`blend.relations`), inverse pairs read from what the code did (`inverse`), and their small
tests joined into one test of statements (`gather`). On tests/offline/fixtures/family."""

from __future__ import annotations

import ast
import shutil
from pathlib import Path

import pytest

from assay.writers.offline import generate_offline
from assay.writers.offline.blend import relations
from assay.writers.offline.inverse import inverses, joined
from assay.writers.offline.probe import Kept
from assay.writers.offline.render import formatted, render
from tests.offline.kept_cases import case as _case
from tests.offline.kept_cases import functions_of as _tests
from tests.offline.kept_cases import run_pytest as _pytest

FAMILY = Path(__file__).resolve().parent / "fixtures" / "family"
SEQS = (FAMILY / "src" / "family" / "seqs.py").read_text()
PARAMS = {
    "concat": ["seqs"],
    "concatv": ["seqs"],
    "mapcat": ["func", "seqs"],
    "tail": ["n", "seq"],
    "last": ["seq"],
    "take": ["n", "seq"],
    "drop": ["n", "seq"],
    "first": ["seq"],
    "count": ["seq"],
    "plus": ["x"],
    "minus": ["x"],
    "to_hex": ["n"],
    "from_hex": ["text"],
}
KINDS = dict.fromkeys(PARAMS, "function")


def _render(cases: list[Kept], related: dict[str, set[str]]):
    return render("family.seqs", cases, KINDS, PARAMS, {"family"}, list(PARAMS), {}, {}, related)


def test_a_see_also_and_a_public_function_two_hand_their_arguments_to_relate_them():
    """Before: `take` and `drop` (the one's docstring names the other), `concatv` and `mapcat`
    (both `concat` of their arguments) were unrelated; a private check every function calls
    (`_check`) relates nothing, and merely alike functions stay apart."""
    related = relations(SEQS)
    assert related["take"] == {"drop"} and related["drop"] == {"take"}
    assert related["concatv"] == {"concat", "mapcat"}
    assert related["mapcat"] == {"concat", "concatv"}
    assert related["plus"] == {"_check"} and related["minus"] == {"_check"}
    assert related["first"] == set() and related["count"] == set()


def test_inverse_pairs_are_read_from_what_the_code_did():
    """`to_hex(255) == "ff"` and `from_hex("ff") == 255`, twice: a pair. One witness is not
    enough, nor a call that hands its argument back (`tail(3, [3, 1, 2])` beside `count([3, 1,
    2]) == 3` would look like a pair)."""
    pair = [
        _case("h1", "to_hex", "'ff'", "255"),
        _case("f1", "from_hex", "255", "'ff'"),
        _case("h2", "to_hex", "'10'", "16"),
        _case("f2", "from_hex", "16", "'10'"),
    ]
    assert inverses(pair, KINDS) == {"to_hex": {"from_hex"}, "from_hex": {"to_hex"}}
    assert inverses(pair[:2], KINDS) == {}
    handed_back = [
        _case("t1", "tail", "[3, 1, 2]", "3", "[3, 1, 2]"),
        _case("c1", "count", "3", "[3, 1, 2]"),
        _case("t2", "tail", "'abc'", "3", "'abc'"),
        _case("c2", "count", "3", "'abc'"),
    ]
    assert inverses(handed_back, KINDS) == {}
    assert joined({"a": {"b"}}, {"a": {"c"}, "c": {"a"}}) == {"a": {"b", "c"}, "c": {"a"}}


def _tails() -> list[Kept]:
    return [
        _case("t1", "tail", "[2, 3]", "2", "[1, 2, 3]", kills={"m-tail"}),
        _case("t2", "tail", "[3]", "1", "[1, 2, 3]"),
        _case("t3", "tail", "[]", "0", "[]"),
        _case("l1", "last", "3", "[1, 2, 3]", kills={"m-last"}),
        _case("l2", "last", "'c'", "'abc'"),
        _case("l3", "last", "1", "[1]"),
    ]


def _gathered():
    cases = [
        *_tails(),
        _case("f1", "first", "1", "[1, 2]"),
        _case("f2", "first", "'a'", "'ab'"),
        _case("f3", "first", "0", "[0]"),
        _case("c1", "count", "2", "[1, 2]"),
        _case("c2", "count", "0", "[]"),
        _case("c3", "count", "3", "'abc'"),
    ]
    return _render(cases, relations(SEQS))


def test_small_tests_of_related_functions_are_one_test_of_statements():
    """Before: `tail`'s table and `last`'s (other parameters: no shared table) were two tests;
    now one test of six statements, every case asserted. `first` and `count`, alike but
    unrelated, keep a table each."""
    out = _gathered()
    tests = _tests(out.text)
    assert len(tests) == 3, out.text
    joined_test = "test_tail_and_last_return_values"
    # each function's cases together, in the order they came
    assert [k.function for k in out.rows[joined_test]] == ["tail"] * 3 + ["last"] * 3
    assert {k.id for k in out.rows[joined_test]} == {"t1", "t2", "t3", "l1", "l2", "l3"}
    assert out.statements[joined_test] == [1] * 6
    assert out.shared[joined_test] == ["tail", "last"]
    assert "assert tail(2, [1, 2, 3]) == [2, 3]" in ast.unparse(tests[joined_test])
    assert "assert last('abc') == 'c'" in ast.unparse(tests[joined_test])
    assert (
        sum("parametrize" in ast.unparse(d) for t in tests.values() for d in t.decorator_list) == 2
    )


@pytest.mark.slow  # four pytest runs
def test_the_gathered_test_fails_on_a_mutant_of_either_function(tmp_path):
    """The test of `tail` and `last` passes on the code and fails on a mutant of either."""
    out = _gathered()
    root = tmp_path / "family"
    shutil.copytree(FAMILY, root)
    text = formatted(out.text, root)
    assert _pytest(root, text) == 0
    module = root / "src" / "family" / "seqs.py"
    for mutant in ("tail(1, seq)[0]", "list(seq)[-n:]"):
        module.write_text(SEQS.replace(mutant, mutant.replace("[", "[1 + ", 1)))
        assert _pytest(root, text) == 1, mutant
    module.write_text(SEQS)


def test_an_inverse_pair_seen_in_the_probe_shares_a_test():
    """`to_hex` and `from_hex` have no call, name or docstring in common: related by what they did
    (`inverses`), their four cases are one test; without the pair, two."""
    cases = [
        _case("h1", "to_hex", "'ff'", "255"),
        _case("h2", "to_hex", "'10'", "16"),
        _case("f1", "from_hex", "255", "'ff'"),
        _case("f2", "from_hex", "16", "'10'"),
    ]
    assert len(_tests(_render(cases, relations(SEQS)).text)) == 2
    related = joined(relations(SEQS), inverses(cases, KINDS))
    out = _render(cases, related)
    assert list(out.rows) == ["test_to_hex_and_from_hex_return_values"], out.text
    assert out.statements["test_to_hex_and_from_hex_return_values"] == [1, 1, 1, 1]


def test_a_large_table_or_too_many_cases_stay_apart():
    """A table of nine rows is not joined (it is a table a reader scans), and two related tests
    join only while they hold at most twelve cases in all."""
    big = [_case(f"t{n}", "tail", f"[{n}]", "1", f"[0, {n}]") for n in range(9)]
    lasts = [_case(f"l{n}", "last", str(n), f"[{n}]") for n in range(3)]
    out = _render([*big, *lasts], relations(SEQS))
    assert len(out.rows) == 2 and not out.statements.get("test_tail_and_last_return_values")
    eight = [_case(f"t{n}", "tail", f"[{n}]", "1", f"[0, {n}]") for n in range(8)]
    five = [_case(f"l{n}", "last", str(n), f"[{n}]") for n in range(5)]
    assert len(_render([*eight, *five], relations(SEQS)).rows) == 2
    assert len(_render([*eight, *five[:4]], relations(SEQS)).rows) == 1


def test_two_small_tables_of_one_function_are_one_test():
    """`first`'s three returns and three raises (two call shapes: two tables before) are one test
    of statements now."""
    cases = [_case(f"r{n}", "first", str(n), f"[{n}]") for n in range(3)]
    for n, empty in enumerate(("[]", "''", "()")):
        k = _case(f"e{n}", "first", "", empty)
        k.outcome = {"k": "raise", "type": "IndexError", "match": "list index out of range"}
        cases.append(k)
    out = _render(cases, {})
    assert len(out.rows) == 1, out.text
    [(name, rows)] = out.rows.items()
    assert name == "test_first_return_values_and_raises_index_error"
    assert len(rows) == 6 and out.statements[name] == [1] * 6


@pytest.mark.slow  # the offline writer end to end: probe, sandbox, gates 1-5
def test_the_writer_reads_the_inverse_pair_from_its_probe(tmp_path):
    """The project's own test pairs `to_hex(255) == "ff"` with `from_hex("ff") == 255` (and -16
    with "-10"): the probe sees the pair, and the written file has one test of both functions
    (before: a test of each)."""
    root = tmp_path / "family"
    shutil.copytree(FAMILY, root)
    seqs = root / "src" / "family" / "seqs.py"
    report = generate_offline(
        [f"{seqs}::to_hex", f"{seqs}::from_hex"], budget_s=30, dry_run=True, crosshair=False
    )
    [module] = report.modules
    assert module.text is not None, [f.reason for f in module.functions]
    [test] = _tests(module.text)
    assert test.startswith("test_to_hex_and_from_hex_"), module.text
    # not "(one call shape)": a gathered test holds calls of several shapes
    assert "2 related functions share 1 test: to_hex + from_hex" in module.notes, module.notes
