"""Gates 1-3 of a Python file in one pytest process: gate 3's plan runs ahead in a fork of the
session gates 1-2 collected, and the verdicts stay what a process of gate 3's own gives. Real pytest
runs; the sessions are counted by the fixture project's own conftest."""

from __future__ import annotations

import pytest

from assay.api import verify
from assay.config import Settings
from assay.gates.base import BaseGate, GateContext
from assay.gates.compile import CompileGate
from assay.gates.green import GreenGate
from assay.gates.stability import StabilityGate
from assay.model import Candidate, GateResult, GateStatus, Verdict
from tests.core.test_lean_reruns import HANGS_ONCE

LIB = {"src/calc/__init__.py": "", "src/calc/ops.py": "def add(a, b):\n    return a + b\n"}
# every pytest session (not the forks of one) adds a line to the workspace's cache directory, which
# outlives the resets between files
CONFTEST = """
import os
import pathlib


def pytest_configure(config):
    cache = pathlib.Path(os.environ["HOME"]).parent.parent / "cache"
    with open(cache / "sessions.log", "a") as fh:
        fh.write(f"{os.getpid()}\\n")
"""
STEADY = """
from calc.ops import add


def test_add():
    assert add(1, 2) == 3


def test_add_negative():
    assert add(-1, -2) == -3
"""
# passes in the green run and the first rerun, fails from the third run on (a counter in HOME,
# which every fork of the session shares)
THIRD_RUN_FAILS = """
import os
import pathlib

from calc.ops import add


def test_add():
    assert add(1, 2) == 3


def test_counts_runs():
    counter = pathlib.Path(os.environ["HOME"], "runs")
    runs = int(counter.read_text()) if counter.exists() else 0
    counter.write_text(str(runs + 1))
    assert runs < 2
"""

# rewrites a project file only when run again (gate 3's runs): gate 2 never saw that write
WRITES_WHEN_RERUN = """
import os
import pathlib

from calc.ops import add


def test_add_leaves_a_file_when_rerun():
    counter = pathlib.Path(os.environ["HOME"], "runs")
    runs = int(counter.read_text()) if counter.exists() else 0
    counter.write_text(str(runs + 1))
    if runs:
        pathlib.Path("tests/data.txt").write_text("a rerun was here")
    assert add(1, 2) == 3
"""


class SessionsGate(BaseGate):
    """How many pytest sessions gates 1-3 started since the previous file (one file at a time:
    jobs=1; a batch of files is one session, counted at its first file)."""

    name = "sessions"

    def __init__(self, settings: Settings) -> None:
        super().__init__(settings)
        self.seen = 0

    def run(self, candidate: Candidate, ctx: GateContext) -> GateResult:
        log = ctx.workspace.cache_dir / "sessions.log"
        total = len(log.read_text().split()) if log.exists() else 0
        started, self.seen = total - self.seen, total
        return GateResult(self.name, GateStatus.PASS, 0.0, details={"sessions": started})


def test_gate_3_runs_in_the_session_of_gates_1_and_2_with_the_same_verdicts(project):
    root = project(
        {
            **LIB,
            "tests/conftest.py": CONFTEST,
            "tests/test_steady.py": STEADY,
            "tests/test_third_run_fails.py": THIRD_RUN_FAILS,
            "tests/test_writes_when_rerun.py": WRITES_WHEN_RERUN,
            "tests/data.txt": "as shipped",
        }
    )
    s = Settings(gates=["compile", "green", "stability"], cache=False, jobs=1)
    gates = [CompileGate(s), GreenGate(s), StabilityGate(s), SessionsGate(s)]
    report = verify([root / "tests"], s, gates=gates)
    steady, flaky, writer = sorted(report.files, key=lambda f: f.path)
    assert steady.verdict is Verdict.ACCEPTED, steady.gates[-1].feedback
    stability = steady.gates[2].details
    # the whole plan ran: reruns (more than the 3 configured: the tests are fast), a random
    # order, each test alone
    assert stability["plan"][-2:] == ["random order (seed 20260601)", "alone"]
    assert stability["runs"] == 1 + len(stability["plan"]) > 5
    assert steady.gates[3].details == {"sessions": 1}  # was 2: gate 3 started its own
    assert flaky.verdict is Verdict.FLAKY and flaky.rejected_at == "stability"
    [outcome] = [t for t in flaky.tests if t.verdict is Verdict.FLAKY]
    assert outcome.id.endswith("test_counts_runs")
    # the reruns ran together in one fork first (a screen that counts for nothing): its second
    # round was the file's third run, so the forked rerun 1 after it is the first that counts
    assert outcome.reason == "passed 1 of 2 runs; failed when rerun 1"
    # what gate 3's runs wrote is not shown as the green run's session writing it
    assert writer.verdict is Verdict.ACCEPTED, writer.gates[-1].feedback
    assert "ignored_writes" not in writer.gates[1].details, writer.gates[1].details
    assert writer.gates[3].details == {"sessions": 1}


# passes at gate 2 (the first call: a counter in HOME), hangs on the second (the plan run ahead),
# and fails at once from the third on: a plan of gate 3's own after the hang would say "failed"
HANGS_WHEN_RERUN = HANGS_ONCE


@pytest.mark.slow  # one timeout of 15 s
def test_a_hang_in_the_plan_run_ahead_costs_one_timeout_and_makes_the_file_flaky(project):
    """The plan run ahead stops at what is left of its process's time and keeps the hang: gate 3
    starts no plan of its own (which cost a second timeout, and took the hang back: its first
    rerun failed at once here, as a flaky test may pass)."""
    root = project({**LIB, "tests/test_hangs.py": HANGS_WHEN_RERUN})
    s = Settings(gates=["compile", "green", "stability"], cache=False, jobs=1)
    s.sandbox.timeout_s = 15  # the green run's process must start within it on a busy machine
    [f] = verify([root / "tests/test_hangs.py"], s).files
    assert f.verdict is Verdict.FLAKY, f.gates[2].feedback
    [outcome] = [t for t in f.tests if t.verdict is Verdict.FLAKY]
    # the hang itself (the second call), not a plan of gate 3's own after it: there the third
    # call fails at once ("failed when rerun 1", as before)
    assert "timed out when rerun 1" in outcome.reason, outcome.reason
    assert f.gates[2].details["runs"] == 2, f.gates[2].details
