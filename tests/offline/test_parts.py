"""The offline writer's parts on their own, with no process started: values written back as source,
inputs mined from tests, the set cover, the rendered file, skip reasons, file placement."""

from __future__ import annotations

import ast
import enum
import importlib
import json
import os
import re
import subprocess
import sys
import textwrap
import time
from dataclasses import dataclass
from decimal import Decimal

import pytest

from assay._assay_sandbox import launch
from assay._assay_sandbox.offline.calls import match_for
from assay._assay_sandbox.offline.inputs import candidates
from assay._assay_sandbox.offline.values import Imports, Unwritable, round_trips, to_source
from assay._assay_sandbox.offline.worker import _why_dropped
from assay._assay_sandbox.protocol import MutantSpec, OfflineFunction, OfflineJob
from assay.cli.generate import parse_budget
from assay.errors import InputError
from assay.mutation.model import Mutant
from assay.mutation.mutants import generate
from assay.project import Project
from assay.writers.offline.combined import MAX_FOLDED
from assay.writers.offline.cover import cover, fit_threshold, foresee, reach
from assay.writers.offline.functions import FunctionInfo, functions_of
from assay.writers.offline.markers import marker_problem
from assay.writers.offline.mine import mine
from assay.writers.offline.outcomes import _function_report
from assay.writers.offline.place import out_dir_rel, path_for, write_new
from assay.writers.offline.probe import Kept, ProbeResult, mutant_spec
from assay.writers.offline.render import render
from assay.writers.offline.session import _since


class Colour(enum.Enum):
    RED = 1


@dataclass
class Point:
    x: int
    y: Decimal


class Opaque:
    pass


def _written(value):
    imports = Imports()
    src = to_source(value, imports)
    assert round_trips(src, value, imports.namespace() | {"Point": Point, "Colour": Colour})
    return src, sorted(imports.lines.values())


def test_values_are_written_back_as_source_that_compares_equal():
    assert _written({"b": [1, 2.5], "a": (None,)}) == ("{'b': [1, 2.5], 'a': (None,)}", [])
    assert _written({3, 1, 2})[0] == "{1, 2, 3}"  # sets in a stable order
    assert _written(Decimal("1.50")) == ("Decimal('1.50')", ["from decimal import Decimal"])
    src, lines = _written(Point(1, Decimal("2")))
    assert src == "Point(x=1, y=Decimal('2'))" and f"from {__name__} import Point" in lines
    assert _written(Colour.RED)[0] == "Colour.RED"
    for value in (float("nan"), Opaque(), lambda: 1, "x" * 1000):
        with pytest.raises(Unwritable):
            to_source(value, Imports())


def test_exception_messages_are_matched_exactly_and_readably():
    assert match_for("quantity must be positive") == "^quantity must be positive$"
    assert match_for("not a line: 'x (1)'") == r"^not a line: 'x \(1\)'$"
    first_line_only = match_for("bad\nmore")
    assert first_line_only == "^bad" and re.search(first_line_only, "bad\nmore")
    assert match_for("<object at 0x7f00deadbeef> broke") == "^<object at "
    assert match_for("") == ""


def test_inputs_are_mined_from_parametrize_rows_locals_constants_helpers_and_doctests(tmp_path):
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    module = textwrap.dedent('''
        def scale(x, factor=2):
            """>>> scale(4)
            8
            """
            return x * factor
    ''')
    (tmp_path / "pkg" / "calc.py").write_text(module)
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_calc.py").write_text(
        textwrap.dedent("""
        import pytest
        from decimal import Decimal
        from pkg.calc import scale

        CASES = [(1, 2), (3, 6)]

        def double(v):
            return v * 2

        @pytest.mark.parametrize(("x", "expected"), CASES)
        def test_rows(x, expected):
            assert scale(x) == expected

        def test_local_and_import():
            amount = Decimal("1.5")
            assert scale(amount, factor=double(1)) == 3

        def test_not_portable(tmp_path):
            assert scale(tmp_path) is not None
    """)
    )
    mined = mine(tmp_path, "pkg.calc", module, {"scale": "function"})
    inputs = mined.inputs["scale"]
    calls = [(i["args"], i["kwargs"], i["origin"]) for i in inputs]
    assert (["1"], {}, "tests") in calls and (["3"], {}, "tests") in calls
    local = next(i for i in inputs if i["kwargs"])
    assert local["args"] == ["Decimal('1.5')"] and local["kwargs"] == {"factor": "double(1)"}
    assert "from decimal import Decimal" in local["imports"]
    assert any(h.startswith("def double(v):") for h in local["helpers"])
    assert (["4"], {}, "doctest") in calls
    assert not any("tmp_path" in a for i in inputs for a in i["args"])
    assert 1 in mined.literals["int"] and "1.5" in mined.literals["str"]


def test_parametrize_tables_written_as_sets_or_annotated_are_mined(tmp_path):
    """isodate's date table is a set (`CASES = {(4, "1985", ...), ...}`), others annotate theirs
    (`CASES: list[tuple] = [...]`): neither gave a row, and `parse_date` got no input of its
    tests."""
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    module = "def parse(text, digits=4):\n    return text[:digits]\n"
    (tmp_path / "pkg" / "dates.py").write_text(module)
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_dates.py").write_text(
        textwrap.dedent("""
        import pytest
        from pkg.dates import parse

        AS_SET = {(4, "1985-04"), (6, "+001985")}
        ANNOTATED: list[tuple[int, str]] = [(2, "19")]

        @pytest.mark.parametrize("digits, text", AS_SET)
        def test_set(digits, text):
            assert parse(text, digits)

        @pytest.mark.parametrize("digits, text", ANNOTATED)
        def test_annotated(digits, text):
            assert parse(text, digits)
    """)
    )
    calls = {
        tuple(i["args"])
        for i in mine(tmp_path, "pkg.dates", module, {"parse": "function"}).inputs["parse"]
    }
    assert calls == {("'1985-04'", "4"), ("'+001985'", "6"), ("'19'", "2")}


def _kept(id_, function, kills, args=("1",), outcome=None):
    return Kept(
        id_,
        function,
        {"args": list(args), "kwargs": {}, "receiver": None, "origin": "variant"},
        outcome or {"k": "return", "expr": "1", "imports": []},
        set(),
        set(kills),
    )


def test_set_cover_takes_the_biggest_new_kill_ties_to_the_shortest_and_caps_per_function():
    a = _kept("a", "f", {"m1", "m2"}, args=("1000",))
    b = _kept("b", "f", {"m1", "m2"}, args=("1",))
    c = _kept("c", "f", {"m3"})
    d = _kept("d", "f", {"m1"})
    e = _kept("e", "g", set())
    assert [k.id for k in cover([a, b, c, d, e], per_function=5)] == ["b", "c"]
    assert [k.id for k in cover([a, b, c, d], per_function=1)] == ["b"]
    assert cover([d], per_function=5, covered={"m1"}) == []


def test_no_kept_case_is_redundant_after_the_cover():
    """Greedy takes `broad` first (4 kills), then `left` and `right` for m5 and m6; together those
    two kill all `broad` kills, and `broad` no longer earns its place."""
    broad = _kept("broad", "f", {"m1", "m2", "m3", "m4"})
    left = _kept("left", "f", {"m1", "m2", "m5"})
    right = _kept("right", "f", {"m3", "m4", "m6"})
    assert [k.id for k in cover([broad, left, right], per_function=5)] == ["left", "right"]
    # a case that only repeats what the tests already kept kill is left out too
    assert [k.id for k in cover([broad, left], per_function=5, covered={"m5"})] == ["broad"]


def test_the_file_is_parametrized_where_the_shape_repeats_and_imports_only_what_it_uses():
    ret = [
        _kept(
            f"r{i}",
            "fee",
            {f"m{i}"},
            args=(str(i),),
            outcome={"k": "return", "expr": str(i * 2), "imports": []},
        )
        for i in range(MAX_FOLDED + 1)  # a table that does not fold into statements (test_fold.py)
    ]
    raised = _kept(
        "x",
        "fee",
        {"m9"},
        args=("0",),
        outcome={"k": "raise", "type": "ValueError", "match": "^bad$", "imports": []},
    )
    out = render(
        "pkg.calc", [*ret, raised], {"fee": "function"}, {"fee": ["amount"]}, {"pkg"}, ["fee"]
    )
    tree = ast.parse(out.text)
    names = [n.name for n in tree.body if isinstance(n, ast.FunctionDef)]
    assert names == ["test_fee_return_values", "test_fee_of_0_raises_value_error"]
    assert '("amount", "expected")' in out.text and "(1, 2)," in out.text
    assert 'with pytest.raises(ValueError, match="^bad$"):' in out.text
    assert "from pkg.calc import fee" in out.text and "Decimal" not in out.text
    assert [t.test for t in out.tests][:2] == [
        "test_fee_return_values[0]",
        "test_fee_return_values[1]",
    ]
    assert out.rows["test_fee_return_values"] == ret


def test_calls_that_leave_out_different_arguments_share_one_test_with_the_defaults_filled():
    """`fee(1)`, `fee(2, 3)` and `fee(4, premium=True)` were three tests; one table now, each
    left-out argument written at its default (a literal). A default that is not a literal keeps
    its calls apart."""

    def case(id_, args, kwargs, expr):
        k = _kept(id_, "fee", {id_}, args=args, outcome={"k": "return", "expr": expr})
        k.input["kwargs"] = kwargs
        return k

    cases = [case("a", ("1",), {}, "1"), case("b", ("2", "3"), {}, "5")]
    cases.append(case("c", ("4",), {"premium": "True"}, "9"))
    params = {"fee": ["amount", "rate", "premium"]}
    literal = {"fee": {"rate": "0", "premium": "False"}}
    out = render("pkg.calc", cases, {"fee": "function"}, params, {"pkg"}, ["fee"], literal)
    tree = ast.parse(out.text)
    assert [n.name for n in tree.body if isinstance(n, ast.FunctionDef)] == [
        "test_fee_return_values"
    ]
    assert "fee(amount, rate, premium=premium) == expected" in out.text
    assert "(1, 0, False, 1)," in out.text and "(4, 0, True, 9)," in out.text
    assert [k.id for k in out.rows["test_fee_return_values"]] == ["a", "b", "c"]
    built = {"fee": {"rate": "Rate()", "premium": "False"}}
    out = render("pkg.calc", cases, {"fee": "function"}, params, {"pkg"}, ["fee"], built)
    # no table then: one test of three statements (`combined`), each call as it was made
    [test] = [n for n in ast.parse(out.text).body if isinstance(n, ast.FunctionDef)]
    assert "parametrize" not in out.text and not test.args.args
    assert [ast.unparse(s.test.left) for s in test.body if isinstance(s, ast.Assert)] == [
        "fee(1)",
        "fee(2, 3)",
        "fee(4, premium=True)",
    ]


def test_mutants_the_probe_had_no_time_for_get_an_input_that_runs_their_code():
    """On a busy machine the probe ran none of these mutants: the cover, which knows only kills,
    kept no input for them, and the file lost them all. An input that runs a mutant's line is
    kept for it; a mutant of a table built at import by an input holding one of its strings."""
    text = (
        'RULES = [\n    ("quiz", "zes"),\n]\n\n'
        "def f(x):\n    return x, RULES\n\ndef g(x):\n    return x\n"
    )
    table = Mutant("t", "m.py", "op", 0, 1, 2, 0, 2, 1, '"quiz"', '"XXquizXX"', "")
    body = Mutant("b", "m.py", "op", 0, 1, 6, 0, 6, 1, "x", "None", "f")
    runs_body = _kept("runs", "f", set(), args=("1",))
    runs_body.lines = {6}
    quiz = _kept("quiz", "f", set(), args=("'quizzes'",))
    other = _kept("other", "f", set(), args=("'box'",))
    elsewhere = _kept("elsewhere", "g", set(), args=("'quiz'",))  # g does not read RULES
    status = {"t": "not_run", "b": "not_run"}
    found = reach([], [runs_body, quiz, other, elsewhere], [table, body], status, text, 5)
    assert {k.id for k in found} == {"runs", "quiz"}
    assert quiz.reaches == {"t"} and runs_body.reaches == {"b"}
    assert not other.reaches and not elsewhere.reaches
    # judged mutants need nothing more
    assert reach([], [runs_body, quiz], [table, body], {"t": "run", "b": "run"}, text, 5) == []


RULE_TABLE = (
    "import re\n\nRULES = [\n"
    '    (r"(bus)es$", r"\\1"),\n'
    '    (r"(quiz)zes$", r"\\1"),\n'
    '    (r"(matr)ices$", r"\\1ix"),\n'
    "]\n\n\n"
    "def singular(word):\n"
    "    for rule, repl in RULES:\n"
    "        if re.search(rule, word):\n"
    "            return re.sub(rule, repl, word)\n"
    "    return word\n"
)


def test_a_table_row_is_reached_by_an_input_its_pattern_matches_with_an_allowance_of_its_own():
    """inflection under load: `singularize('bus')` was kept for the row `(bus)es$` (the word is
    in it, the pattern does not match: the row never runs), and a function's 20 cases went to
    such inputs. A row with a pattern is reached by an input it matches; the rows get an
    allowance beside the function's own cases (one row per case: a table has more rows than a
    function has branches)."""
    rows = [
        Mutant(f"r{n}", "m.py", "op", 0, 1, n, 0, n, 1, "r", "r", "", stmt_line=3)
        for n in (4, 5, 6)
    ]
    body = Mutant("b", "m.py", "op", 0, 1, 11, 0, 11, 1, "x", "y", "singular", (("singular", 9),))
    own = _kept("own", "singular", {"b"}, args=("'x'",))
    own.lines = {11}
    words = [_kept(w, "singular", set(), args=(repr(w),)) for w in ("bus", "quiz", "matr")]
    matching = [_kept(w, "singular", set(), args=(repr(w),)) for w in ("buses", "quizzes")]
    matrices = _kept("matrices", "singular", set(), args=("'matrices'",))
    status = {m.id: "not_run" for m in rows} | {"b": "run"}
    found = reach([own], [*words, *matching, matrices], [*rows, body], status, RULE_TABLE, 1)
    assert {k.id for k in found} == {"buses", "quizzes", "matrices"}
    assert not any(k.reaches for k in words)
    # judged rows: the cover gives them the same allowance
    for k, row in zip([*matching, matrices], rows, strict=True):
        k.kills = {row.id}
    chosen = cover([own, *matching, matrices], 1, rows={m.id for m in rows})
    assert {k.id for k in chosen} == {"own", "buses", "quizzes", "matrices"}
    assert [k.id for k in cover([own, *matching], 1)] == ["own"]


FILLED_TABLE = (
    "RULES = {}\n\n\n"
    "def _irregular(one, many):\n"
    "    RULES[many] = one\n\n\n"
    "_irregular('man', 'men')\n\n\n"
    "def singular(word):\n"
    "    return RULES.get(word, word)\n"
)


def test_a_helper_that_fills_a_table_at_import_is_reached_through_its_calls():
    """inflection's `_irregular` runs at import only: its mutants were reached by no input (no
    case runs its lines, and it is no table row). What reaches one of its calls - an input
    holding a word of the call, at a word's start (`'human'` holds `man` but not as a word) -
    reaches it."""
    helper = Mutant(
        "h", "m.py", "op", 0, 1, 5, 0, 5, 1, "one", "None", "_irregular", (("_irregular", 4),)
    )
    men = _kept("men", "singular", set(), args=("'men'",))
    human = _kept("human", "singular", set(), args=("'human'",))
    found = reach([], [human, men], [helper], {"h": "not_run"}, FILLED_TABLE, 5)
    assert [k.id for k in found] == ["men"] and not human.reaches


def test_functions_that_touch_the_world_are_skipped_even_through_a_helper():
    found = {
        f.name: f.skip
        for f in functions_of(
            textwrap.dedent("""
        import subprocess
        from datetime import datetime

        def run(cmd):
            return subprocess.run(cmd).returncode

        def twice(cmd):
            return run(cmd) * 2

        def today():
            return datetime.now().day

        async def fetch():
            return 1

        def _private(x):
            return x + 1

        def pure(x):
            return x + 1 if x else 0
    """)
        )
    }
    assert "subprocess" in found["run"] and "calls run" in found["twice"]
    assert "clock" in found["today"] and "async" in found["fetch"]
    assert found["pure"] is None and "_private" not in found


def test_a_file_is_never_overwritten(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[project]\nname='p'\nversion='0'\n")
    (tmp_path / "mod.py").write_text("def f(x):\n    return x + 1 if x else 0\n")
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_mod_characterization.py").write_text("# mine\n")
    project = Project.load(tmp_path)
    assert path_for(project, "mod.py", "mod") == "tests/test_mod_characterization_2.py"
    with pytest.raises(FileExistsError):
        write_new(tmp_path, "tests/test_mod_characterization.py", "x")
    assert (tmp_path / "tests" / "test_mod_characterization.py").read_text() == "# mine\n"


def test_budgets_read_as_a_person_writes_them():
    assert [parse_budget(t) for t in ("60s", "2m", "90", "1.5min")] == [60, 120, 90, 90]


def test_since_picks_the_functions_a_diff_touches(tmp_path):
    def git(*args):
        subprocess.run(
            ["git", *args],
            cwd=tmp_path,
            check=True,
            capture_output=True,
            env={
                **os.environ,
                "GIT_AUTHOR_NAME": "t",
                "GIT_AUTHOR_EMAIL": "t@t",
                "GIT_COMMITTER_NAME": "t",
                "GIT_COMMITTER_EMAIL": "t@t",
            },
        )

    (tmp_path / "pyproject.toml").write_text("[project]\nname='p'\nversion='0'\n")
    body = "def a(x):\n    return x + 1 if x else 0\n\n\ndef b(x):\n    return x * 2 if x else 1\n"
    (tmp_path / "mod.py").write_text(body)
    git("init", "-q")
    git("add", ".")
    git("commit", "-qm", "one")
    (tmp_path / "mod.py").write_text(body.replace("x * 2", "x * 3"))
    targets = _since(Project.load(tmp_path), "HEAD")
    assert [(t.module, t.functions) for t in targets] == [("mod.py", ["b"])]
    assert targets[0].reason == "changed since HEAD"


def test_a_project_that_fails_on_unknown_marks_is_told_what_to_register(tmp_path):
    (tmp_path / "pyproject.toml").write_text(
        '[tool.pytest.ini_options]\naddopts = ["--strict-markers", "-ra"]\n'
    )
    message, blocking = marker_problem(tmp_path)
    assert (
        blocking
        and "--strict-markers" in message
        and "assay_generated, characterization" in message
    )
    (tmp_path / "pyproject.toml").write_text("")
    (tmp_path / "setup.cfg").write_text("[tool:pytest]\nfilterwarnings =\n    error\n")
    assert marker_problem(tmp_path)[1] is True
    (tmp_path / "setup.cfg").write_text(
        "[tool:pytest]\nmarkers =\n    assay_generated: x\n    characterization: y\n"
        "filterwarnings =\n    error\n"
    )
    assert marker_problem(tmp_path) is None
    (tmp_path / "setup.cfg").unlink()
    assert marker_problem(tmp_path)[1] is False  # unknown marks only warn here


def test_out_dir_must_be_a_test_directory_inside_the_project(tmp_path):
    (tmp_path / "proj").mkdir()
    root = tmp_path / "proj"
    (root / "pyproject.toml").write_text("[project]\nname='p'\nversion='0'\n")
    (root / "pkg").mkdir()
    (root / "pkg" / "__init__.py").write_text("")
    project = Project.load(root)
    assert out_dir_rel(project, root / "checks") == "checks"
    for bad in (root / "pkg", tmp_path / "elsewhere"):
        with pytest.raises(InputError):
            out_dir_rel(project, bad)


def _mutant(id_, function, line):
    return Mutant(id_, "m.py", "op", 0, 1, line, 0, line, 1, "a", "b", function)


def test_mutants_the_probe_never_ran_do_not_drop_a_function_for_the_file_score():
    """Under load the probe runs few mutants; those it did not run are unknown, not survivors."""
    spans = {"f": (1, 5), "g": (6, 9)}
    f = _kept("f1", "f", {"m1"})
    f.lines = {2}
    g = _kept("g1", "g", {"m3"})
    g.lines = {7}
    mutants = [_mutant("m1", "f", 2), _mutant("m2", "f", 3), _mutant("m3", "g", 7)]
    mutants += [_mutant(f"n{i}", "g", 8) for i in range(6)]
    status = {"m1": "run", "m2": "not_run", "m3": "run"} | {f"n{i}": "not_run" for i in range(6)}
    assert foresee([f, g], mutants, status, spans)[0] == 100.0
    kept, left_out = fit_threshold([f, g], mutants, status, spans, 50.0)
    assert (kept, left_out) == ([f, g], [])
    status["n0"] = "run"  # a mutant g's tests ran and let live still counts
    assert foresee([g], mutants, status, spans)[0] == 50.0


def test_a_function_whose_mutants_never_ran_is_not_said_to_kill_none():
    info = FunctionInfo("f", "function", 1, 5)
    mutants = [_mutant("m1", "f", 2), _mutant("m2", "f", 3)]
    probe = ProbeResult({"f": {"tried": {}}}, [_kept("k", "f", set())], {"m1": "not_run"})
    rep = _function_report(info, probe, mutants, [], set(), {})
    assert rep.status == "no-kill"
    assert rep.reason == (
        "none of its 2 mutants was run: 2 not run (the probe's share of the budget ran out)"
    )
    probe.status = {"m1": "run", "m2": "not_run"}
    rep = _function_report(info, probe, mutants, [], set(), {})
    assert rep.reason == "no input kills any of the 1 of its 2 mutants the probe ran"


def test_inputs_are_mined_through_re_exports_and_receivers_built_by_class_methods(tmp_path):
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("from .core import Box\nfrom .more import *\n")
    (tmp_path / "pkg" / "more.py").write_text("from .core import twice\n")
    core = textwrap.dedent("""
        def twice(x):
            return x * 2

        class Box:
            def __init__(self, n):
                self.n = n

            @classmethod
            def of(cls, text):
                return cls(len(text))

            def grow(self, k):
                return Box(self.n + k)
    """)
    (tmp_path / "pkg" / "core.py").write_text(core)
    (tmp_path / "test_box.py").write_text(
        textwrap.dedent("""
        import pkg
        from pkg import Box

        def test_box():
            assert pkg.twice(3) == 6
            b = Box(1)
            assert b.grow(5).n == 6
            assert Box.of("ab").grow(2).n == 4
    """)
    )
    modules = {"pkg": "pkg/__init__.py", "pkg.core": "pkg/core.py", "pkg.more": "pkg/more.py"}
    functions = {"twice": "function", "Box.of": "static", "Box.grow": "method"}
    mined = mine(tmp_path, "pkg.core", core, functions, modules)
    assert [i["args"] for i in mined.inputs["twice"]] == [["3"]]
    grow = [(i["receiver"], i["args"]) for i in mined.inputs["Box.grow"]]
    assert grow == [("Box(1)", ["5"]), ("Box.of('ab')", ["2"])]
    assert mined.inputs["Box.of"][0]["args"] == ["'ab'"]


def test_the_probe_ends_by_the_wall_clock_end_it_is_given_start_up_included(tmp_path):
    """A slow interpreter start must not eat the time the probe needs to write its result, nor
    compiling mutants that will not run."""
    (tmp_path / "m.py").write_text("def inc(x):\n    return x + 1\n")
    mutant = MutantSpec("m1", "m.py", 27, 28, "2", 2, 2, 2, "inc", [["inc", 1]])
    # equivalent (same bytecode): found so only by compiling it, which waits for its turn to run
    same = MutantSpec("m2", "m.py", 27, 28, "(1)", 2, 2, 2, "inc", [["inc", 1]])
    out = tmp_path / "out.json"
    job = OfflineJob(
        user_root=str(tmp_path),
        scratch_root=str(tmp_path),
        out=str(out),
        module="m",
        path=str(tmp_path / "m.py"),
        imports=["from m import inc"],
        functions=[OfflineFunction("inc", "function", [{"args": ["1"], "kwargs": {}}], [])],
        mutants=[mutant, same],
        budget_s=30.0,
        ends_at=time.time() - 1,  # the start-up took the whole budget
        hypothesis_examples=0,
    )
    (tmp_path / "job.json").write_text(job.to_json())
    subprocess.run(
        launch.argv(sys.executable, "offline", str(tmp_path / "job.json")),
        cwd=tmp_path,
        check=True,
        timeout=60,
    )
    status = json.loads(out.read_text())["status"]
    assert status.get("m1", "not_run") == status.get("m2", "not_run") == "not_run"


STAMPS = textwrap.dedent("""
    import re

    _FORMATS = {}


    def _formats(digits):
        if digits not in _FORMATS:
            _FORMATS[digits] = [
                re.compile(r"\\A([0-9]{%d})-W([0-9]{2})\\Z" % digits),
                re.compile(r"\\A([0-9]{%d})\\Z" % digits),
            ]
        return _FORMATS[digits]


    def parse(text):
        for n, pattern in enumerate(_formats(4)):
            if pattern.match(text):
                return n
        return None
""")


def test_code_a_function_runs_on_its_first_call_only_is_judged_by_every_case_that_calls_it(
    tmp_path,
):
    """`_formats` builds its patterns on the first call and caches them: the oracle traced their
    lines in the first case only (`'2024'`), and a mutant of the week pattern was run against that
    case alone - it survived, though `'2024-W05'`, which goes through the week pattern in a
    mutant's fresh child, kills it."""
    (tmp_path / "stamps.py").write_text(STAMPS)
    week = next(m for m in generate("stamps.py", STAMPS) if m.line == 10 and "XX" in m.replacement)
    out = tmp_path / "out.json"
    inputs = [{"args": [a], "kwargs": {}} for a in ("'2024'", "'2024-W05'", "'x'", "'1'")]
    job = OfflineJob(
        user_root=str(tmp_path),
        scratch_root=str(tmp_path),
        out=str(out),
        module="stamps",
        path=str(tmp_path / "stamps.py"),
        imports=["from stamps import parse"],
        functions=[OfflineFunction("parse", "function", inputs, [])],
        mutants=[mutant_spec(week)],
        budget_s=20.0,
        hypothesis_examples=0,
    )
    (tmp_path / "job.json").write_text(job.to_json())
    subprocess.run(
        launch.argv(sys.executable, "offline", str(tmp_path / "job.json")),
        cwd=tmp_path,
        check=True,
        timeout=60,
    )
    result = json.loads(out.read_text())
    assert result["status"].get(week.id) == "run", result["status"]
    assert result["mutants"].get(week.id), "the week pattern's mutant survived"


def test_untyped_parameters_get_values_shaped_by_how_the_function_uses_them(tmp_path):
    source = textwrap.dedent("""
        def lookup(record, suffix=None):
            return record["name"] + (suffix.upper() if suffix else "")

        def swap(pair):
            a, b = pair
            return b, a

        def total(items):
            return sum(x for x in items if x > 0)

        class Lexer:
            def tokenize(self, expression):
                return expression.split()
    """)
    (tmp_path / "untyped_mod.py").write_text(source)
    sys.path.insert(0, str(tmp_path))
    try:
        module = importlib.import_module("untyped_mod")
        pool = {"int": [], "float": [], "str": []}

        def inputs(name):
            kind = "method" if "." in name else "function"
            spec = {"name": name, "kind": kind, "inputs": [], "receivers": []}
            made = candidates(module, spec, pool, 60, 0)["inputs"]
            return [(i["args"], i["kwargs"]) for i in made]

        assert (["{'name': 1}"], {}) in inputs("lookup")
        assert any(args[1:] == ["'abc'"] for args, _ in inputs("lookup"))  # default None
        assert (["(1, 2)"], {}) in inputs("swap")
        assert (["[1, 2, 3]"], {}) in inputs("total")
        made = candidates(
            module, {"name": "Lexer.tokenize", "kind": "method", "inputs": []}, pool, 9, 0
        )
        assert {i["receiver"] for i in made["inputs"]} == {"Lexer()"}  # built with no argument
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop("untyped_mod", None)


def test_a_function_whose_every_input_raises_says_which_exception():
    info = FunctionInfo("f", "function", 1, 5)
    found = {"inputs": 3, "dropped": {"raise TypeError": 3}, "examples": {"raise TypeError": "bad"}}
    rep = _function_report(info, ProbeResult({"f": found}, [], {}), [], [], set(), {})
    assert rep.reason.startswith("all its 3 inputs raise TypeError ('bad'): no input of the right")


def test_tests_lost_with_a_file_the_gates_did_not_accept_are_not_called_redundant():
    info = FunctionInfo("f", "function", 1, 5)
    probe = ProbeResult({"f": {"tried": {}}}, [_kept("k", "f", {"m1"})], {"m1": "run"})
    why = "its tests were in a file the gates did not accept: the budget ran out"
    rep = _function_report(info, probe, [_mutant("m1", "f", 2)], [], set(), {}, {"f": why})
    assert (rep.status, rep.reason) == ("unverified", why)


def test_an_outcome_whose_second_run_did_not_come_is_out_of_time_not_flaky():
    first = {"k": "return", "expr": "1", "imports": []}
    assert _why_dropped({"origin": "tests"}, first, {"k": "not_run"}) == "out of time"
    assert _why_dropped({"origin": "tests"}, first, {**first, "expr": "2"}) == "not deterministic"


def test_the_file_does_not_claim_kills_for_cases_kept_for_mutants_never_run():
    """Read as its author would (inflection under load): `singularize('bus')` was kept for mutants
    the probe had no time to run, and the file's docstring said every case kills mutants the
    others do not."""
    killer = _kept("a", "f", {"m1"}, args=("1",))
    guess = _kept("b", "f", set(), args=("2",))
    text = render("pkg.m", [killer, guess], {"f": "function"}, {"f": ["x"]}, {"pkg"}, ["f"]).text
    doc = ast.get_docstring(ast.parse(text)) or ""
    assert "(1 case) runs code whose mutants the writer had no time to try" in doc
    text = render("pkg.m", [killer], {"f": "function"}, {"f": ["x"]}, {"pkg"}, ["f"]).text
    assert "no time" not in (ast.get_docstring(ast.parse(text)) or "")
