"""A mutant out of the sample runs only to prove tests: its verdict is Ignored whatever its tests
receive, so they run unobserved there (the observer traces every call into the project: on
more-itertools' `test_more.py`, 418 of the 434 children gate 4 forks are such runs)."""

from __future__ import annotations

import sys

import pytest

from assay._assay_sandbox.protocol import PROVE_EACH_TEST
from assay.config import SandboxConfig
from assay.config.mutation import MutationConfig
from assay.execution.workspace import Workspace
from assay.mutation.engine import Engine
from assay.sandbox import Sandbox

TRACED = {
    "src/calc/__init__.py": "",
    "src/calc/ops.py": """\
def scale(x, by=3):
    if x is None:
        return 0
    return x * by


def shout(text):
    if not text:
        return ""
    return text.upper() + "!"
""",
    "tests/test_ops.py": """\
import sys

from calc.ops import scale, shout


def test_shout():
    assert shout("a") == "A!"
    assert shout("") == ""


def test_scale_untraced():
    scale(2)
    assert sys.gettrace() is None
""",
}


@pytest.mark.slow
def test_a_run_only_to_prove_tests_does_not_observe_them(project):
    root = project(TRACED)
    sandbox = Sandbox(SandboxConfig(timeout_s=30), protect=root)
    with Workspace(root) as ws:
        engine = Engine(ws, sandbox, sys.executable, ["src", "."], MutationConfig(workers=2))
        run = engine.run(
            ["src/calc/ops.py"],
            ["tests/test_ops.py"],
            scoped=True,
            killers=PROVE_EACH_TEST,
            observe=True,
            sample=1,
        )
    probe = "tests/test_ops.py::test_scale_untraced"
    shown = "\n".join(
        f"{m.line} {m.operator} {r.status} {r.reason[:20]} {r.killed_by}" for m, r in run.scored
    )
    proving = [
        (m, r) for m, r in run.scored if r.reason.startswith("not in the sample") and r.covered_by
    ]
    # the probe fails only where it is traced: it runs on each mutant of `scale` to be proven
    assert any(m.function == "scale" for m, _ in proving), shown
    assert not [m for m, r in proving if probe in r.killed_by], shown
