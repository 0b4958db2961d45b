"""A re-imported mutant's child whose pytest session ends with an exit code other than pass or fail
(4: the test it was given is not there under the mutant) is that mutant's runtime error, not a
crash of gate 4: natsort 8.4.0's `test_utils.py` and `test_regex.py` were `unvalidated` with a
traceback ending in `KeyError: 'killed_by'`."""

from __future__ import annotations

import sys

import pytest

from assay.config import SandboxConfig
from assay.config.mutation import MutationConfig
from assay.execution.workspace import Workspace
from assay.mutation.engine import Engine
from assay.sandbox import Sandbox

FILES = {
    # a conftest holding the project's module: a pytest session of its own per re-imported mutant
    "conftest.py": "from calc import core as held\n",
    "src/calc/__init__.py": "",
    "src/calc/core.py": """
        def enabled():
            return True
        """,
    # run while `calc.gate` is imported: the mutants of `enabled` need a fresh import
    "src/calc/gate.py": "from calc.core import enabled\n\nON = enabled()\n",
    "tests/test_calc.py": """
        from calc.gate import ON

        if ON:

            def test_on():
                assert ON is True
        """,
}


@pytest.mark.slow
def test_a_child_session_that_ends_abnormally_is_its_mutants_runtime_error(project):
    root = project(FILES)
    with Workspace(root) as ws:
        engine = Engine(
            ws,
            Sandbox(SandboxConfig(timeout_s=30), protect=root),
            sys.executable,
            ["src", "."],
            MutationConfig(workers=1),
        )
        run = engine.run(["src/calc/core.py"], ["tests/test_calc.py"])
    vanished = [(m, r) for m, r in run.scored if "pytest exit code" in (r.reason or "")]
    assert vanished, {m.mutated: (r.status, r.reason) for m, r in run.scored}
    assert all(r.status == "RuntimeError" for _, r in vanished)


def test_a_failed_run_keeps_the_last_line_of_its_traceback():
    from assay.gates.mutation import clipped

    frames = "".join(
        f'  File "/x/pool.py", line {i}, in _step\n    self._verdict()\n' for i in range(40)
    )
    text = f"Traceback (most recent call last):\n{frames}KeyError: 'killed_by'"
    short = clipped(text)
    assert len(short) <= 520
    assert short.startswith("Traceback (most recent call last):")
    assert short.endswith("KeyError: 'killed_by'")
    assert clipped("one line") == "one line"
