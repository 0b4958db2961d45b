"""Gate 4 of a whole `verify DIR` from one worker on standby per workspace: each file's mutation
worker is a fork of it, so the sandboxed interpreter starts once, not once per file; every file
still sees a fresh process (module state another file's tests wrote is not there), and a file that
kills the worker on standby takes only its own verdict with it. Real sandboxed runs: four files
through gates 1, 2 and 4 (6.7 s of CPU, more than 5 s of wall), hence the slow lane."""

from __future__ import annotations

import pytest

from assay.api import verify
from assay.config import Settings
from assay.model import FileReport, Verdict

LIB = {
    "src/calc/__init__.py": "",
    "src/calc/ops.py": (
        "LIMIT = 10\n\n\ndef clamp(x):\n    if x > LIMIT:\n        return LIMIT\n    return x\n"
    ),
}
# writes module state and leaves it: a process it shared with the next file would fail that one
SETS_LIMIT = """
from calc import ops


def test_clamp_under_a_lower_limit():
    ops.LIMIT = 0
    assert ops.clamp(5) == 0
    assert ops.clamp(-1) == -1
"""
# in gate 4's baseline only: kills the worker on standby that forked its worker
KILLS_STANDBY = """
import os
import signal
import sys

from calc.ops import clamp


def _parent(pid):
    with open(f"/proc/{pid}/stat") as fh:
        return int(fh.read().rsplit(")", 1)[1].split()[1])


def test_clamp_low():
    if "_assay_sandbox.mutation.server" in sys.modules:
        standby = _parent(os.getppid())
        with open(f"/proc/{standby}/cmdline", "rb") as fh:
            if b"mutation-standby" in fh.read():
                os.kill(standby, signal.SIGKILL)
    assert clamp(3) == 3
"""
CLAMP = """
from calc.ops import clamp


def test_clamp_high():
    assert clamp(15) == 10
    assert clamp(11) == 10


def test_clamp_at_the_limit():
    assert clamp(10) == 10
    assert clamp(9) == 9
"""


def _mutation(report: FileReport) -> dict:
    [gate] = [g for g in report.gates if g.gate == "mutation"]
    return gate.details


def _statuses(report: FileReport) -> dict:
    """What gate 4 found, without what depends on the run (times, processes started)."""
    return {k: v for k, v in _mutation(report).items() if k not in ("worker_starts", "duration_s")}


@pytest.mark.slow
def test_one_worker_on_standby_serves_every_file_with_the_results_of_separate_runs(project):
    root = project(
        {
            **LIB,
            "tests/test_a_sets_limit.py": SETS_LIMIT,
            "tests/test_b_kills_standby.py": KILLS_STANDBY,
            "tests/test_c_clamp.py": CLAMP,
        }
    )
    s = Settings(gates=["compile", "green", "mutation"], cache=False, jobs=1)
    together = verify([root / "tests"], s)
    sets_limit, kills, clamp = sorted(together.files, key=lambda f: f.path)
    # one sandboxed interpreter for the first file (3 before: one per file); the file that killed
    # it is not judged on a dead worker, and the next file gets a new one
    assert [_mutation(f)["worker_starts"] for f in together.files] == [1, 0, 1]
    assert sets_limit.verdict is Verdict.ACCEPTED, sets_limit.gates[-1].feedback
    assert kills.verdict is Verdict.UNVALIDATED
    assert "mutation worker ended early" in kills.gates[-1].details["reason"]
    # LIMIT = 0 from the first file's tests is not in the third file's process
    assert clamp.verdict is Verdict.ACCEPTED, clamp.gates[-1].feedback
    assert _mutation(clamp)["killed"] > 0
    [alone] = verify([root / "tests" / "test_c_clamp.py"], s).files
    assert _statuses(alone) == _statuses(clamp)
    assert [t.verdict for t in alone.tests] == [t.verdict for t in clamp.tests]
