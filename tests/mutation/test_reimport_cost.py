"""What a mutant applied by a fresh import (`reimport`) costs its child: the test modules are not
rewritten again for pytest's assertions (the worker's rewrite is shared), and a failing test's
traceback is not formatted (only pass/fail matters). The fixture's conftest logs both, per process,
into the sandbox's HOME."""

from __future__ import annotations

import sys

from assay.config import SandboxConfig
from assay.config.mutation import MutationConfig
from assay.execution.workspace import Workspace
from assay.mutation.engine import Engine
from assay.mutation.model import Status
from assay.sandbox import Sandbox

FILES = {
    "conftest.py": """
        import os

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


def test_a_fresh_import_neither_rewrites_the_tests_again_nor_formats_failures(project):
    root = project(FILES)
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
    assert run.modes["reimport"] >= 2
    assert run.counts["Killed"] >= 2
    # the worker's collection only (was once more per re-imported mutant)
    assert [c.split()[1:] for c in calls if "test_calc.py" in c] == [["rewrite", "test_calc.py"]]
    assert not [c for c in calls if c.endswith("traceback")]
    assert all(r.status is not Status.RUNTIME_ERROR for _, r in run.scored)
