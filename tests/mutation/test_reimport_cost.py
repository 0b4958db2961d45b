"""What a mutant applied by a fresh import (`reimport`) costs its child: no new pytest session when
the project's conftests hold none of its objects (the test modules are collected again in the
worker's own), the test modules not rewritten again for pytest's assertions (the worker's rewrite is
shared), no failure's traceback formatted (only pass/fail matters). The fixture's conftest logs all
three, per process, into the sandbox's HOME."""

from __future__ import annotations

import sys

import pytest

from assay.config import SandboxConfig
from assay.config.mutation import MutationConfig
from assay.execution.workspace import Workspace
from assay.mutation.engine import Engine
from assay.sandbox import Sandbox

FILES = {
    "conftest.py": """
        import os
        %s

        from _pytest._code import code
        from _pytest.assertion import rewrite


        def _log(what):
            with open(os.path.join(os.environ["HOME"], "calls.log"), "a") as fh:
                fh.write(f"{os.getpid()} {what}\\n")


        # a child that imports this conftest again finds the classes already wrapped
        if not getattr(rewrite.AssertionRewriter.run, "logged", False):
            _run, _getrepr = rewrite.AssertionRewriter.run, code.ExceptionInfo.getrepr

            def run(self, mod):
                _log("rewrite " + os.path.basename(str(self.module_path)))
                return _run(self, mod)

            def getrepr(self, *args, **kwargs):
                _log("traceback")
                return _getrepr(self, *args, **kwargs)

            run.logged = True
            rewrite.AssertionRewriter.run = run
            code.ExceptionInfo.getrepr = getrepr


        def pytest_sessionstart(session):
            _log("session")
        """,
    "src/calc/__init__.py": "",
    # run while `calc.table` is imported: its mutants need a fresh import
    "src/calc/core.py": """
        def scale(x):
            return x * 2
        """,
    "src/calc/table.py": "from calc.core import scale\n\nTABLE = [scale(i) for i in range(4)]\n",
    "tests/test_calc.py": """
        from calc.table import TABLE


        def test_table():
            assert TABLE == [0, 2, 4, 6]
        """,
}


def _run(root):
    """The engine's run and the conftest's log lines, each `[pid, what...]`."""
    with Workspace(root) as ws:
        engine = Engine(
            ws,
            Sandbox(SandboxConfig(timeout_s=30), protect=root),
            sys.executable,
            ["src", "."],
            MutationConfig(workers=2),
        )
        run = engine.run(["src/calc/core.py"], ["tests/test_calc.py"])
        calls = (ws.run_dir / "home" / "calls.log").read_text().splitlines()
    return run, [c.split() for c in calls]


def _project(project, held: bool):
    files = dict(FILES)
    # a conftest holding the project's module: a new session per re-imported mutant
    files["conftest.py"] %= "from calc import core as held" if held else ""
    return project(files, name="held" if held else "free")


@pytest.mark.slow
def test_a_fresh_import_runs_in_the_live_session_with_the_same_verdicts(project):
    """Slow lane: two whole mutation runs (the live session, and a fresh one for comparison), about
    5 s of wall on a quiet machine."""
    run, calls = _run(_project(project, held=False))
    held_run, held_calls = _run(_project(project, held=True))
    assert run.modes["reimport"] >= 2 and run.counts["Killed"] >= 2
    assert {m.id: r.status for m, r in run.scored} == {m.id: r.status for m, r in held_run.scored}
    # the worker's own session only (was one more per re-imported mutant, as with the held module)
    assert [c[1:] for c in calls if c[1] == "session"] == [["session"]]
    assert len([c for c in held_calls if c[1] == "session"]) == 1 + held_run.modes["reimport"]
    for log in (calls, held_calls):
        # the worker's collection only (each re-imported mutant's child rewrote it again)
        assert [c[1:] for c in log if c[-1] == "test_calc.py"] == [["rewrite", "test_calc.py"]]
        assert not [c for c in log if c[1] == "traceback"]
