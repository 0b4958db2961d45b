"""Gate 4 starts beside gate 3, in a scratch copy of its own (`gates.ahead`): gate 3's reruns ran
on one core while the other waited (issue 25, point 10: the fixed floor of a small file)."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import ClassVar

import pytest

from assay import api
from assay.config import Settings
from assay.gates.base import GateContext
from assay.gates.compile import CompileGate
from assay.gates.green import GreenGate
from assay.gates.mutation import MutationGate
from assay.gates.stability import StabilityGate
from assay.model import Candidate, GateResult, GateStatus, Verdict
from assay.pipeline import Verifier
from assay.project import Project
from assay.sandbox import Cancelled

LIB = {"src/clamp.py": "def clamp(x, limit=10):\n    return limit if x > limit else x\n"}
# slow enough that gate 3's plan (reruns, a random order, each test alone) takes over a second
STEADY = """
import time

from clamp import clamp


def test_clamp_at_the_limit():
    time.sleep(0.2)
    assert clamp(11) == 10
    assert clamp(10) == 10
    assert clamp(9) == 9
"""
# passes once per HOME: gate 2 passes it, gate 3's first rerun (the same HOME) fails it
ONCE = """
import time
from pathlib import Path

from clamp import clamp


def test_clamp_once_per_home():
    mark = Path.home() / "ran-once"
    assert not mark.exists()
    mark.write_text("x")
    time.sleep(0.2)
    assert clamp(11) == 10
"""


class Watched:
    """What the gates saw: the scratch copy each ran in, whether gate 3 had ended when gate 4
    started, and how each gate-4 run ended."""

    stability_over = threading.Event()
    copies: ClassVar[dict[str, list[Path]]] = {}
    before_gate_3_ended: ClassVar[list[bool]] = []
    ends: ClassVar[list[str]] = []

    @classmethod
    def reset(cls) -> None:
        cls.stability_over.clear()
        cls.copies.clear()
        cls.before_gate_3_ended.clear()
        cls.ends.clear()


class WatchedStability(StabilityGate):
    def run(self, candidate: Candidate, ctx: GateContext) -> GateResult:
        Watched.copies.setdefault("stability", []).append(ctx.workspace.base)
        try:
            return super().run(candidate, ctx)
        finally:
            Watched.stability_over.set()


class WatchedMutation(MutationGate):
    def run(self, candidate: Candidate, ctx: GateContext) -> GateResult:
        Watched.copies.setdefault("mutation", []).append(ctx.workspace.base)
        Watched.before_gate_3_ended.append(not Watched.stability_over.is_set())
        try:
            result = super().run(candidate, ctx)
        except Cancelled:
            Watched.ends.append(f"{candidate.rel}: stopped")
            raise
        Watched.ends.append(f"{candidate.rel}: {result.status.value}")
        return result


def _verify(root: Path, rels: list[str]) -> list:
    settings = Settings(gates=["compile", "green", "stability", "mutation"], cache=False, jobs=1)
    loaded = Project.load(root)
    gates = [
        CompileGate(settings),
        GreenGate(settings),
        WatchedStability(settings),
        WatchedMutation(settings),
    ]
    verifier = Verifier(loaded, settings, use_cache=False, gates=gates)
    reports = []
    try:
        for rel in rels:
            Watched.stability_over.clear()
            reports.append(
                verifier.verify_file(api.candidate(loaded, rel, (root / rel).read_text()))
            )
    finally:
        verifier.close()
    return reports


@pytest.mark.slow
def test_gate_4_starts_while_gate_3_reruns_in_a_scratch_copy_of_its_own(project):
    """Slow (gates 1-4 of one file whose test sleeps: 3-6 s)."""
    Watched.reset()
    root = project({**LIB, "tests/test_clamp.py": STEADY})
    [report] = _verify(root, ["tests/test_clamp.py"])
    assert report.verdict is Verdict.ACCEPTED, [g.feedback for g in report.gates]
    # before: gate 4 ran once gate 3 had ended, in gate 3's copy
    assert Watched.before_gate_3_ended == [True]
    assert Watched.copies["mutation"] != Watched.copies["stability"]
    [gate4] = [g for g in report.gates if g.gate == "mutation"]
    assert gate4.status is GateStatus.PASS and gate4.details["killed"] > 0


@pytest.mark.slow
def test_a_file_flaky_at_gate_3_is_flaky_and_gate_4_started_beside_it_is_stopped(project):
    """Slow (two files through gates 1-4: 5-10 s). Gate 4 started ahead for the flaky file (in a
    HOME of its own, where the test passes) is stopped, its result never part of the report; the
    next file's gate 4 runs on a new worker on standby."""
    Watched.reset()
    root = project(
        {**LIB, "tests/test_a_once.py": ONCE, "tests/test_b_steady.py": STEADY},
    )
    flaky, steady = _verify(root, ["tests/test_a_once.py", "tests/test_b_steady.py"])
    assert flaky.verdict is Verdict.FLAKY and flaky.rejected_at == "stability"
    assert "mutation" not in [g.gate for g in flaky.gates]
    assert steady.verdict is Verdict.ACCEPTED, [g.feedback for g in steady.gates]
    # before: gate 4 never ran for the flaky file (it started after gate 3)
    assert Watched.ends == ["tests/test_a_once.py: stopped", "tests/test_b_steady.py: pass"]
