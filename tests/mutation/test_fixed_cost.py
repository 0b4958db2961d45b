"""Gate 4's fixed cost per file: what a worker does before and around its mutants.

The collection tracer records exactly the lines of the targets that ran while pytest imported and
collected, yet leaves pytest's assertion rewriting untraced (its own AST walk, 43% of a fork's
collection on a large test module); a file whose tests reach no function of the targets runs them
in its baseline only (no observed run of the original, which judges only survivors).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from assay._assay_sandbox import launch
from assay.config import SandboxConfig
from assay.config.mutation import MutationConfig
from assay.execution.workspace import Workspace
from assay.mutation.engine import Engine
from assay.sandbox import Sandbox

IMPORT_TIME = {
    "src/pkg/__init__.py": "",
    "src/pkg/core.py": """
        REGISTRY = {}


        def register(fn):
            REGISTRY[fn.__name__] = fn
            return fn


        @register
        def double(x):
            return 2 * x


        class Shape:
            sides = 0

            def area(self):
                return 0

            if sides == 0:
                kind = "point"
            else:
                kind = "polygon"


        if len(REGISTRY) > 1:
            MODE = "many"
        else:
            MODE = "one"


        def table():
            return [double(i) for i in range(3)]


        TABLE = table()


        def helper(x):
            if x:
                return "yes"
            return "no"
        """,
    "tests/conftest.py": "def pytest_configure(config):\n    assert config is not None\n",
    "tests/test_core.py": """
        import pytest

        from pkg.core import TABLE, double, helper

        CASES = [(i, helper(i)) for i in range(2)]


        @pytest.mark.parametrize("x,answer", CASES)
        def test_helper(x, answer):
            assert helper(x) == answer


        def test_double():
            assert double(2) == TABLE[1]
        """,
}

# Runs pytest's collection under `CollectTracer` (argv: "collect") or under a plain tracer that
# records every line of the target (argv: "reference"), prints what it recorded as JSON.
DRIVER = """
import json, os, sys
sys.path.insert(0, sys.argv[1])
mode = sys.argv[2]
import pytest
from _pytest.assertion import rewrite
from _assay_sandbox.mutation.tracers import CollectTracer

root = os.getcwd()
sys.path.insert(0, os.path.join(root, "src"))
target = os.path.realpath(os.path.join(root, "src/pkg/core.py"))
seen = {"rewrites": 0, "traced": 0}
rewrite_asserts = rewrite.rewrite_asserts


def watched(*args, **kwargs):
    seen["rewrites"] += 1
    seen["traced"] += sys.gettrace() is not None
    return rewrite_asserts(*args, **kwargs)


rewrite.rewrite_asserts = watched
lines = set()


def reference(frame, event, arg):
    if os.path.realpath(frame.f_code.co_filename) != target:
        return None

    def local(frame, event, arg):
        if event == "line":
            lines.add(frame.f_lineno)
        return local

    return local(frame, event, arg)


tracer = CollectTracer({target: "src/pkg/core.py"}, root)


class Stop:
    def pytest_collection_finish(self, session):
        sys.settrace(None)
        tracer.stop()


if mode == "collect":
    tracer.start()
else:
    sys.settrace(reference)
pytest.main(["tests", "-q", "--collect-only", "-p", "no:cacheprovider"], plugins=[Stop()])
out = {
    "seen": seen,
    "lines": sorted(line for _, line in tracer.lines),
    "foreign": sorted(line for _, line in tracer.foreign),
    "bodies": sorted(tracer.bodies),
    "sites": sorted(line for _, line in tracer.sites),
    "reference": sorted(lines),
}
print("FACTS " + json.dumps(out))
"""


def _collect(root: Path, mode: str) -> dict:
    done = subprocess.run(
        [sys.executable, "-c", DRIVER, str(launch.PARENT), mode],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=60,
        env={
            "PATH": "/usr/bin:/bin",
            "PYTHONDONTWRITEBYTECODE": "1",
            "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1",
        },
    )
    found = [line for line in done.stdout.splitlines() if line.startswith("FACTS ")]
    assert found, done.stdout[-2000:] + done.stderr[-2000:]
    return json.loads(found[0][len("FACTS ") :])


def test_the_collection_tracer_records_every_import_time_line_and_spares_the_rewrite(project):
    root = project(IMPORT_TIME)
    facts, reference = _collect(root, "collect"), _collect(root, "reference")
    source = (root / "src/pkg/core.py").read_text().splitlines()

    def line_of(text: str) -> int:
        return next(i for i, line in enumerate(source, 1) if line.strip() == text)

    # exactly the lines a plain tracer sees: module body, decorator, class body, `if` at module
    # level, a function its body calls, one the test module calls while it is imported
    assert sorted({*facts["lines"], *facts["foreign"]}) == reference["reference"]
    assert line_of('kind = "point"') in facts["lines"]
    assert line_of('MODE = "many"') not in facts["lines"]
    assert line_of("REGISTRY[fn.__name__] = fn") in facts["lines"]
    assert line_of("return [double(i) for i in range(3)]") in facts["sites"]
    # helper() ran for the test module, not for its own module's body
    assert facts["foreign"] == sorted(
        {line_of("if x:"), line_of('return "yes"'), line_of('return "no"')}
    )
    assert facts["bodies"] == ["src/pkg/core.py"]
    # pytest rewrote the conftest and the test module, untraced
    assert facts["seen"]["rewrites"] >= 2
    assert facts["seen"]["traced"] == 0


UNREACHED = {
    "src/calc/__init__.py": "",
    "src/calc/ops.py": """
        LIMIT = 10


        def clamp(x):
            if x > LIMIT:
                return LIMIT
            return x
        """,
    "tests/test_limit.py": """
        import os

        from calc.ops import LIMIT


        def test_limit():
            with open(os.path.join(os.path.dirname(__file__), "runs.log"), "a") as fh:
                fh.write("ran\\n")
            assert LIMIT == 10
        """,
}


def test_a_file_that_reaches_no_function_runs_its_tests_in_the_baseline_only(project):
    """Gate 4's run (scoped, observed) of a file whose tests run no function of the target: its
    test runs twice (traced and untraced baseline), never again for the original's observation."""
    root = project(UNREACHED)
    sandbox = Sandbox(SandboxConfig(timeout_s=30), protect=root)
    with Workspace(root) as ws:
        engine = Engine(ws, sandbox, sys.executable, ["src"], MutationConfig(workers=2))
        run = engine.run(["src/calc/ops.py"], ["tests/test_limit.py"], scoped=True, observe=True)
        runs = (ws.project / "tests/runs.log").read_text().splitlines()
    assert run.scope == {}
    assert run.results == {}
    assert runs == ["ran", "ran"]


def test_real_paths_are_remembered_only_when_absolute(tmp_path, monkeypatch):
    from assay._assay_sandbox.mutation import realpaths

    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    (tmp_path / "a" / "m.py").write_text("")
    (tmp_path / "b" / "m.py").write_text("")
    (tmp_path / "link").symlink_to(tmp_path / "a")
    monkeypatch.chdir(tmp_path / "a")
    assert realpaths.real("m.py") == str((tmp_path / "a" / "m.py").resolve())
    monkeypatch.chdir(tmp_path / "b")  # a relative path follows the working directory
    assert realpaths.real("m.py") == str((tmp_path / "b" / "m.py").resolve())
    linked = str(tmp_path / "link" / "m.py")
    assert realpaths.real(linked) == str((tmp_path / "a" / "m.py").resolve())
    assert realpaths._REAL[linked] == realpaths.real(linked)
