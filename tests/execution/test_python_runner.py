"""PythonPytestRunner through the Runner protocol: typed outcomes from real pytest runs in the
real sandbox."""

from __future__ import annotations

import sys

import pytest

from assay.config import SandboxConfig
from assay.execution import Order, Outcome, Workspace
from assay.languages.python import PythonPytestRunner
from assay.sandbox import Sandbox

LIB = {"src/calc/__init__.py": "", "src/calc/ops.py": "def add(a, b):\n    return a + b\n"}
TESTS = """
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
"""


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
    assert not bad.ok and [(p.where, p.line, p.kind) for p in bad.errors] == [
        ("tests/test_syntax.py", 1, "syntax")
    ]
    ws.apply(
        {
            "tests/test_imp.py": "from calc.ops import mul\n\ndef test_mul():\n    assert mul\n",
            "tests/test_fix.py": "def test_needs(nope):\n    assert nope\n",
        }
    )
    imp = runner.compile(ws, ["tests/test_imp.py"])
    assert (
        imp.errors[0].kind == "collection" and "cannot import name 'mul'" in imp.errors[0].message
    )
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
    assert outcomes == {
        "test_pass": Outcome.PASSED,
        "test_fail": Outcome.FAILED,
        "test_skip": Outcome.SKIPPED,
        "test_xfail": Outcome.XFAILED,
        "test_param[1]": Outcome.PASSED,
        "test_param[2]": Outcome.PASSED,
        "test_param[3]": Outcome.PASSED,
    }
    assert "assert 3 == 4" in run.tests["tests/test_all.py::test_fail"].message
    assert (
        all(r.duration_s >= 0 for r in run.tests.values())
        and run.crash is None
        and run.leaked == []
    )
    assert list(run.passed()) == [
        "tests/test_all.py::test_pass",
        *(f"tests/test_all.py::test_param[{n}]" for n in (1, 2, 3)),
    ]


@pytest.mark.slow  # 8 s in the fast lane on 2 cores (the CI simulation)
def test_ids_order_and_isolation(runner_ws):
    runner, ws = runner_ws
    ws.apply({"tests/test_all.py": TESTS})
    ids = [f"tests/test_all.py::test_param[{n}]" for n in (1, 2, 3)]
    only = runner.run(ws, ["tests/test_all.py"], ids=ids[:2])
    assert list(only.tests) == ids[:2]
    shuffled = [
        list(runner.run(ws, ["tests/test_all.py"], order=Order.RANDOM, seed=7).tests)
        for _ in range(2)
    ]
    assert shuffled[0] == shuffled[1] and shuffled[0] != list(
        runner.run(ws, ["tests/test_all.py"]).tests
    )
    assert list(runner.run(ws, ["tests/test_all.py"], order=Order.REVERSE).tests)[0].endswith(
        "test_param[3]"
    )
    alone = runner.run(ws, ["tests/test_all.py"], ids=ids, isolate=True)
    assert {k: r.outcome for k, r in alone.tests.items()} == dict.fromkeys(ids, Outcome.PASSED)


def test_a_run_killed_at_its_timeout_names_the_running_test(project):
    root = project(
        {
            **LIB,
            "tests/test_hang.py": "def test_ok():\n    pass\n\ndef test_hang():\n"
            "    while True:\n        pass\n",
        }
    )
    # time enough to start pytest on a busy machine
    sandbox = Sandbox(SandboxConfig(timeout_s=5), protect=root)
    runner = PythonPytestRunner(sandbox, sys.executable, ["src", "."], 5)
    with Workspace(root) as ws:
        run = runner.run(ws, ["tests/test_hang.py"])
    assert run.crash is not None and run.crash.startswith("timed out after 5 s")
    assert run.running == "tests/test_hang.py::test_hang" and run.tests == {}


def test_a_plan_runs_every_step_in_one_session_and_names_a_hung_test(project):
    root = project(
        {
            **LIB,
            "tests/test_state.py": """
        SEEN = []

        def test_a():
            SEEN.append("a")

        def test_b():
            assert SEEN == ["a"], SEEN  # order-dependent

        def test_slow():
            assert sum(range(1000)) == 499500
        """,
        }
    )
    sandbox = Sandbox(SandboxConfig(timeout_s=10), protect=root)
    runner = PythonPytestRunner(sandbox, sys.executable, ["src", "."], 10)
    from assay.execution.runner import RunStep

    ids = [f"tests/test_state.py::test_{n}" for n in ("a", "b", "slow")]
    steps = [RunStep(), RunStep(), RunStep(Order.REVERSE), RunStep(isolate=True)]
    with Workspace(root) as ws:
        runs = runner.run_plan(ws, ["tests/test_state.py"], steps, ids)
    outcome = [{k.split("::")[1]: r.outcome.value for k, r in run.tests.items()} for run in runs]
    # each rerun starts from the state after collection (a fork), as a fresh process would
    assert (
        outcome[0] == outcome[1] == {"test_a": "passed", "test_b": "passed", "test_slow": "passed"}
    )
    assert outcome[2]["test_b"] == "failed" and list(runs[2].tests)[0].endswith("test_slow")
    assert outcome[3] == {"test_a": "passed", "test_b": "failed", "test_slow": "passed"}


def test_an_isolated_step_on_a_limit_runs_each_function_alone_first(project):
    """Gate 3's plan on a budget: a fork per test alone costs pytest's own per-test time, which the
    durations leave out (455 cases of inflection: 14 s). An isolated step with a limit runs each
    test function's first case alone, then other cases up to the limit."""
    root = project(
        {
            **LIB,
            "tests/test_many.py": """
        import pytest

        @pytest.mark.parametrize("n", range(40))
        def test_case(n):
            assert n >= 0

        def test_one():
            pass
        """,
        }
    )
    sandbox = Sandbox(SandboxConfig(timeout_s=10), protect=root)
    runner = PythonPytestRunner(sandbox, sys.executable, ["src", "."], 10)
    from assay.execution.runner import RunStep

    ids = [f"tests/test_many.py::test_case[{n}]" for n in range(40)] + [
        "tests/test_many.py::test_one"
    ]
    steps = [RunStep(), RunStep(isolate=True, alone=3)]
    with Workspace(root) as ws:
        runs = runner.run_plan(ws, ["tests/test_many.py"], steps, ids)
    assert len(runs) == 2 and len(runs[0].tests) == 41
    assert sorted(runs[1].tests) == [
        "tests/test_many.py::test_case[0]",
        "tests/test_many.py::test_case[1]",
        "tests/test_many.py::test_one",
    ]


@pytest.mark.slow  # 7 s in the fast lane on 2 cores (the CI simulation)
def test_a_step_that_hangs_is_cut_at_its_deadline_and_the_next_step_still_runs(project):
    root = project(
        {
            **LIB,
            "tests/test_hang.py": "import random\n\ndef test_ok():\n    pass\n\n"
            "def test_sometimes():\n    while random.random() < 2:\n"
            "        pass\n",
        }
    )
    sandbox = Sandbox(SandboxConfig(timeout_s=3), protect=root)
    runner = PythonPytestRunner(sandbox, sys.executable, ["src", "."], 3)
    from assay.execution.runner import RunStep

    with Workspace(root) as ws:
        runs = runner.run_plan(ws, ["tests/test_hang.py"], [RunStep(), RunStep(Order.REVERSE)])
    assert [r.crash for r in runs] == ["timed out after 3 s"] * 2
    assert runs[0].running == runs[1].running == "tests/test_hang.py::test_sometimes"


def test_heavy_plugins_load_only_for_projects_that_use_their_library(project):
    from assay.config import Settings
    from assay.languages.python import pytest_args
    from assay.project import Project

    plain = Project.load(project({**LIB}, name="plain"))
    uses = Project.load(
        project({**LIB}, '[project.optional-dependencies]\ntest = ["hypothesis>=6"]\n', name="uses")
    )
    settings = Settings()
    settings.python.pytest_args = ["-x"]
    assert pytest_args(plain, settings) == ["-x", "-p", "no:hypothesispytest", "-p", "no:anyio"]
    assert pytest_args(uses, settings) == ["-x", "-p", "no:anyio"]
