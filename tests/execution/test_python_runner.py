"""PythonPytestRunner through the Runner protocol: typed outcomes from real pytest runs in the real sandbox."""

from __future__ import annotations

import sys

import pytest

from assay.config import SandboxConfig
from assay.execution import Order, Outcome, Sandbox, Workspace
from assay.languages.python import PythonPytestRunner

LIB = {"src/calc/__init__.py": "", "src/calc/ops.py": "def add(a, b):\n    return a + b\n"}
TESTS = '''
import pytest
from calc.ops import add

def test_pass():
    assert add(1, 2) == 3

def test_fail():
    assert add(1, 2) == 4

@pytest.mark.skip(reason="not today")
def test_skip():
    pass

@pytest.mark.xfail(reason="known")
def test_xfail():
    assert False

@pytest.mark.parametrize("n", [1, 2, 3])
def test_param(n):
    assert add(n, 0) == n
'''


@pytest.fixture
def runner_ws(project):
    root = project(LIB)
    sandbox = Sandbox(SandboxConfig(timeout_s=20), protect=root)
    runner = PythonPytestRunner(sandbox, sys.executable, ["src", "."], 20)
    with Workspace(root) as ws:
        yield runner, ws


def test_compile_reports_syntax_collection_and_missing_fixture_problems(runner_ws):
    runner, ws = runner_ws
    ws.apply({"tests/test_syntax.py": "def test_x(:\n    pass\n"})
    bad = runner.compile(ws, ["tests/test_syntax.py"])
    assert not bad.ok and [(p.where, p.line, p.kind) for p in bad.errors] == [("tests/test_syntax.py", 1, "syntax")]
    ws.apply({"tests/test_imp.py": "from calc.ops import mul\n\ndef test_mul():\n    assert mul\n",
              "tests/test_fix.py": "def test_needs(nope):\n    assert nope\n"})
    imp = runner.compile(ws, ["tests/test_imp.py"])
    assert imp.errors[0].kind == "collection" and "cannot import name 'mul'" in imp.errors[0].message
    assert str(ws.project) not in imp.errors[0].message  # paths are project-relative
    fix = runner.compile(ws, ["tests/test_fix.py"])
    assert [(p.where, p.kind) for p in fix.errors] == [("tests/test_fix.py::test_needs", "fixture")]


def test_run_gives_one_typed_outcome_per_test_with_durations(runner_ws):
    runner, ws = runner_ws
    ws.apply({"tests/test_all.py": TESTS})
    compiled = runner.compile(ws, ["tests/test_all.py"])
    assert compiled.ok and len(compiled.collected) == 7
    run = runner.run(ws, ["tests/test_all.py"])
    outcomes = {k.split("::")[1]: r.outcome for k, r in run.tests.items()}
    assert outcomes == {"test_pass": Outcome.PASSED, "test_fail": Outcome.FAILED, "test_skip": Outcome.SKIPPED,
                        "test_xfail": Outcome.XFAILED, "test_param[1]": Outcome.PASSED,
                        "test_param[2]": Outcome.PASSED, "test_param[3]": Outcome.PASSED}
    assert "assert 3 == 4" in run.tests["tests/test_all.py::test_fail"].message
    assert all(r.duration_s >= 0 for r in run.tests.values()) and run.crash is None and run.leaked == []
    assert list(run.passed()) == ["tests/test_all.py::test_pass", *(f"tests/test_all.py::test_param[{n}]"
                                                                   for n in (1, 2, 3))]


def test_ids_order_and_isolation(runner_ws):
    runner, ws = runner_ws
    ws.apply({"tests/test_all.py": TESTS})
    ids = [f"tests/test_all.py::test_param[{n}]" for n in (1, 2, 3)]
    only = runner.run(ws, ["tests/test_all.py"], ids=ids[:2])
    assert list(only.tests) == ids[:2]
    shuffled = [list(runner.run(ws, ["tests/test_all.py"], order=Order.RANDOM, seed=7).tests) for _ in range(2)]
    assert shuffled[0] == shuffled[1] and shuffled[0] != list(runner.run(ws, ["tests/test_all.py"]).tests)
    assert list(runner.run(ws, ["tests/test_all.py"], order=Order.REVERSE).tests)[0].endswith("test_param[3]")
    alone = runner.run(ws, ["tests/test_all.py"], ids=ids, isolate=True)
    assert {k: r.outcome for k, r in alone.tests.items()} == dict.fromkeys(ids, Outcome.PASSED)


def test_a_run_killed_at_its_timeout_names_the_running_test(project):
    root = project({**LIB, "tests/test_hang.py": "def test_ok():\n    pass\n\ndef test_hang():\n"
                                                  "    while True:\n        pass\n"})
    sandbox = Sandbox(SandboxConfig(timeout_s=10), protect=root)  # time enough to start pytest on a busy machine
    runner = PythonPytestRunner(sandbox, sys.executable, ["src", "."], 10)
    with Workspace(root) as ws:
        run = runner.run(ws, ["tests/test_hang.py"])
    assert run.crash is not None and run.crash.startswith("timed out after 10 s")
    assert run.running == "tests/test_hang.py::test_hang" and run.tests == {}
