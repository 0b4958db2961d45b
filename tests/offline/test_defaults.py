"""A call that leaves an argument out runs its default: the written test must keep it that way when
that is what kills a mutant. Calls of one function that differ in the arguments they pass share a
table with the missing ones filled in at their defaults (`groups.merged`), which turned
`parameterize("Donald E. Knuth")` into `parameterize("Donald E. Knuth", "-")`: the probe's case
killed the mutant of the default (`separator: str = 'XX-XX'`), the written row no longer did
(inflection, issue 28's eighth pass: a kill Pynguin made there by behaviour and assay did not).
On tests/offline/fixtures/defaults: `slug(words, separator="-")`."""

from __future__ import annotations

import ast
import shutil
from pathlib import Path

from assay.mutation.mutants import generate
from assay.writers.offline.probe import Kept
from assay.writers.offline.render import formatted, render
from tests.offline.test_blend import _pytest

ROOT = Path(__file__).resolve().parent / "fixtures" / "defaults"
REL = "src/wordy/words.py"
WORDS = (ROOT / REL).read_text()
[DEFAULT] = [m.id for m in generate(REL, WORDS) if m.operator == "default_argument"]
PARAMS = {"slug": ["words", "separator"]}
DEFAULTS = {"slug": {"separator": "'-'"}}


def _case(id_: str, expr: str, *args: str, kills: set[str]) -> Kept:
    inp = {"args": list(args), "kwargs": {}, "receiver": None, "origin": "tests"}
    return Kept(id_, "slug", inp, {"k": "return", "expr": expr, "imports": []}, {5}, kills)


def _render(cases: list[Kept]):
    return render(
        "wordy.words",
        cases,
        {"slug": "function"},
        PARAMS,
        {"wordy"},
        ["slug"],
        DEFAULTS,
        {},
        {},
        defaulted={DEFAULT},
    )


def _passes_then_fails(tmp_path: Path, text: str, *mutations: tuple[str, str]) -> None:
    """`text` (a written test file) passes on a copy of the fixture and fails on each mutation
    (old, new) of its module."""
    root = tmp_path / "defaults"
    shutil.copytree(ROOT, root)
    text = formatted(text, root)
    assert _pytest(root, text) == 0
    for old, new in mutations:
        (root / REL).write_text(WORDS.replace(old, new))
        assert _pytest(root, text) == 1, (old, new)


def _calls(text: str) -> list[str]:
    return sorted(
        ast.unparse(n)
        for n in ast.walk(ast.parse(text))
        if isinstance(n, ast.Call) and ast.unparse(n.func) == "slug"
    )


def test_a_call_that_kills_the_mutant_of_a_default_still_leaves_the_argument_out(tmp_path):
    """Before: one table of three rows, the third `(["A", "b"], "-", "a-b")` - the default written
    out - and the file passed on the mutant of the default. Now the call that kills that mutant
    keeps its own shape (here: one test of three statements, still one test function), and the
    file fails on the mutant."""
    cases = [
        _case("plus", "'a+b'", '["A", "b"]', "'+'", kills={"m-join"}),
        _case("none", "'x'", '["X"]', "''", kills={"m-join"}),
        _case("dash", "'a-b'", '["A", "b"]', kills={DEFAULT, "m-join"}),
    ]
    out = _render(cases)
    assert "slug(['A', 'b'])" in _calls(out.text), out.text
    _passes_then_fails(tmp_path, out.text, ('separator="-"', 'separator="XX-XX"'))


def test_calls_that_differ_in_a_default_nobody_kills_still_share_one_table():
    """Where no case kills the default's mutant, the rows are padded as before: one table."""
    cases = [
        _case("plus", "'a+b'", '["A", "b"]', "'+'", kills={"m-join"}),
        _case("none", "'x'", '["X"]', "''", kills={"m-join"}),
        _case("dash", "'a-b'", '["A", "b"]', kills={"m-join"}),
    ]
    out = _render(cases)
    tests = [n for n in ast.parse(out.text).body if isinstance(n, ast.FunctionDef)]
    assert len(tests) == 1 and _calls(out.text) == ["slug(words, separator)"], out.text
