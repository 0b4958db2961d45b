"""A decorator that rebuilds its function from the module's source (typeguard's `@typechecked`:
`inspect.getsource(sys.modules[f.__module__])`, parsed and compiled anew) never ran gate 4's
in-memory mutants: the function it builds is the file's on disk. inflect's `test_join.py` (one test,
~40 exact assertions on `engine.join`) was rejected at gate 4 with 0 %, every mutant a survivor.
Such a decorator now reads the mutated source (`linecache`), and a mutant that still does not reach
the code that runs (a decorator that opens the file itself) is not judged, never a survivor."""

from __future__ import annotations

import pytest

from tests.conftest import verify_json

CALC = """
    from shapes.rebuild import {decorator}


    @{decorator}
    def clamp(x, lo, hi):
        if x < lo:
            return lo
        if x > hi:
            return hi
        return x


    class Box:
        @{decorator}
        def area(self, w, h):
            return w * h
    """

REBUILD = """
    import ast
    import inspect
    import sys


    def _build(f, source):
        # as typeguard's `instrument`: the def found in the module's source, its decorator
        # dropped (the code's first line moves to the `def`), compiled alone
        tree = ast.parse(source)
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef) and node.name == f.__name__:
                node.decorator_list = []
                space = {}
                code = compile(ast.Module([node], []), f.__code__.co_filename, "exec")
                exec(code, f.__globals__, space)
                return space[f.__name__]
        raise LookupError(f.__name__)


    def rebuilt(f):
        return _build(f, inspect.getsource(sys.modules[f.__module__]))


    def reread(f):
        with open(f.__code__.co_filename, encoding="utf-8") as fh:
            return _build(f, fh.read())
    """

TESTS = """
    from shapes.calc import Box, clamp


    def test_clamp():
        assert clamp(5, 0, 10) == 5
        assert clamp(-1, 0, 10) == 0
        assert clamp(0, 0, 10) == 0
        assert clamp(11, 0, 10) == 10
        assert clamp(10, 0, 10) == 10


    def test_area():
        assert Box().area(2, 3) == 6
    """


HALF = """

    def half(x):
        return x // 2
    """
HALF_TEST = """

    def test_half():
        from shapes.calc import half

        assert half(7) == 3
    """


def files(decorator: str, half: bool = False) -> dict[str, str]:
    return {
        "shapes/__init__.py": "",
        "shapes/rebuild.py": REBUILD,
        "shapes/calc.py": CALC.format(decorator=decorator) + (HALF if half else ""),
        "tests/test_calc.py": TESTS + (HALF_TEST if half else ""),
    }


CONFIG = "[tool.assay]\ngates = ['compile', 'green', 'mutation']\n"


@pytest.mark.slow  # gate 4 end to end: ~6 s at load 10
def test_a_function_rebuilt_from_the_modules_source_runs_the_mutant(project, tmp_path):
    root = project(files("rebuilt"), CONFIG)
    f, shown = verify_json(root, "tests/test_calc.py", tmp_path / "r.json")
    [gate] = [g for g in f["gates"] if g["gate"] == "mutation"]
    assert f["verdict"] == "accepted", (gate, shown)
    assert gate["survivors"] == [], gate["survivors"]
    assert gate["killed"] >= 8, gate


@pytest.mark.slow  # gate 4 end to end: ~6 s at load 10
def test_a_mutant_that_never_reaches_the_code_that_runs_is_not_a_survivor(project, tmp_path):
    root = project(files("reread"), CONFIG)
    f, shown = verify_json(root, "tests/test_calc.py", tmp_path / "r.json")
    [gate] = [g for g in f["gates"] if g["gate"] == "mutation"]
    # before: accepted, every mutant "changed nothing the tests receive"
    assert f["verdict"] == "unvalidated", (f, shown)
    assert gate["verdict"] == "unvalidated", gate
    named = "shapes/calc.py::Box.area, shapes/calc.py::clamp are rebuilt from the file on disk"
    assert named in gate["reason"], gate
    assert "rebuilt from the file on disk" in shown, shown


@pytest.mark.slow  # gate 4 end to end: ~6 s at load 10
def test_a_test_whose_mutants_never_reach_the_code_that_runs_is_not_low_value(project, tmp_path):
    root = project(files("reread", half=True), CONFIG)
    f, shown = verify_json(root, "tests/test_calc.py", tmp_path / "r.json")
    [gate] = [g for g in f["gates"] if g["gate"] == "mutation"]
    assert f["verdict"] == "accepted", (gate, shown)  # judged on `half` alone
    tests = {t["id"].split("::", 1)[1]: t for t in f["tests"]}
    # before: low value, "kills none of the 9 mutants of the code it runs"
    for name in ("test_clamp", "test_area"):
        assert tests[name]["verdict"] == "accepted", tests[name]
        assert "rebuilt from the file on disk" in tests[name]["note"], tests[name]
    assert any("shapes/calc.py::clamp" in n for n in gate["notes"]), gate
