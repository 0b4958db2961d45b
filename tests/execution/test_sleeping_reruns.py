"""Gate 3's reruns of tests that mostly sleep overlap (`_assay_sandbox.steps`): the waits of a
retry library's back-off add up no more, and the verdicts stay those of runs one after another.
The tests stamp their own start and end into a log; what is compared is the order of the stamps,
never a duration."""

from __future__ import annotations

from assay.api import verify
from assay.config import Settings
from assay.gates.base import BaseGate, GateContext
from assay.gates.compile import CompileGate
from assay.gates.green import GreenGate
from assay.gates.stability import StabilityGate
from assay.model import Candidate, GateResult, GateStatus, Verdict

# the workspace's cache directory outlives the resets between files; the helper is project code,
# which the test files import (their own source reaches nothing outside)
STAMPS = """
import os
import pathlib

LOG = pathlib.Path(os.environ["HOME"]).parent.parent / "cache" / "stamps.log"


def stamp(what, name):
    with open(LOG, "a") as fh:
        fh.write(f"{what} {os.getpid()} {name}\\n")
"""
SLEEPS = """
import time

from stamps import stamp


def test_waits_for_a_retry():
    stamp("start", "sleeps")
    time.sleep(0.2)
    stamp("end", "sleeps")
"""
# the same waits, but the file asks for a directory on disk: its forks could meet there
SLEEPS_ON_DISK = """
import time

from stamps import stamp


def test_waits_for_a_retry(tmp_path):
    stamp("start", "on_disk")
    time.sleep(0.2)
    stamp("end", "on_disk")
"""


class StampsGate(BaseGate):
    """The stamps the tests of this file left, in the order they were written."""

    name = "stamps"

    def run(self, candidate: Candidate, ctx: GateContext) -> GateResult:
        log = ctx.workspace.cache_dir / "stamps.log"
        lines = log.read_text().splitlines() if log.exists() else []
        name = "on_disk" if "on_disk" in candidate.rel else "sleeps"
        stamps = [line.split()[:2] for line in lines if line.endswith(f" {name}")]
        return GateResult(self.name, GateStatus.PASS, 0.0, details={"stamps": stamps})


def most_at_once(stamps: list[list[str]]) -> int:
    running: set[str] = set()
    most = 0
    for what, pid in stamps:
        running.add(pid) if what == "start" else running.discard(pid)
        most = max(most, len(running))
    return most


def test_reruns_of_sleeping_tests_overlap_unless_the_file_reaches_the_disk(project):
    root = project(
        {
            "tests/stamps.py": STAMPS,
            "tests/test_sleeps.py": SLEEPS,
            "tests/test_sleeps_on_disk.py": SLEEPS_ON_DISK,
        }
    )
    s = Settings(gates=["compile", "green", "stability"], cache=False, jobs=1)
    gates = [CompileGate(s), GreenGate(s), StabilityGate(s), StampsGate(s)]
    report = verify([root / "tests"], s, gates=gates)
    sleeps, on_disk = sorted(report.files, key=lambda f: f.path)
    for f in (sleeps, on_disk):
        assert f.verdict is Verdict.ACCEPTED, f.gates[-1].feedback
        plan = f.gates[2].details["plan"]
        assert plan[-2:] == ["random order (seed 20260601)", "alone"], plan
        stamps = f.gates[3].details["stamps"]
        # every run of the plan ran, and the green run: each started and ended once
        assert len(stamps) == 2 * (1 + len(plan)), stamps
        assert sorted(w for w, _ in stamps) == ["end"] * (len(stamps) // 2) + ["start"] * (
            len(stamps) // 2
        )
    assert most_at_once(sleeps.gates[3].details["stamps"]) > 1  # was 1: one run after another
    assert most_at_once(on_disk.gates[3].details["stamps"]) == 1
