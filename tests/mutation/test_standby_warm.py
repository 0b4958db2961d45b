"""Gate 4's worker on standby starts while gates 1-3 run: a file verified alone left the second
core idle while gates 1-3 ran, then waited ~0.2 s for that worker's interpreter and imports."""

from __future__ import annotations

from typing import ClassVar

import pytest

from assay import api
from assay.config import Settings
from assay.execution.pool import WorkspacePool
from assay.gates.base import GateContext
from assay.gates.compile import CompileGate
from assay.gates.green import GreenGate
from assay.gates.mutation import MutationGate
from assay.model import Candidate, GateResult, Verdict
from assay.pipeline import Verifier
from assay.project import Project

LIB = {
    "src/clamp.py": """
    def clamp(x, limit=10):
        return limit if x > limit else x
    """,
    "tests/test_clamp.py": """
    from clamp import clamp


    def test_clamp_at_the_limit():
        assert clamp(11) == 10
        assert clamp(10) == 10
        assert clamp(9) == 9
    """,
}


class WatchedGreen(GreenGate):
    """Gate 2 as it is, noting whether gate 4's worker on standby is up when it runs."""

    seen: ClassVar[list[bool]] = []
    pool: ClassVar[WorkspacePool | None] = None  # the verifier's scratch copies

    def run(self, candidate: Candidate, ctx: GateContext) -> GateResult:
        # gate 4 runs in a scratch copy of its own (`gates.ahead`): its worker is up there
        copies = self.pool.workspaces if self.pool is not None else ()
        up = ctx.standby is not None and any(ctx.standby.running(ws) for ws in copies)
        self.seen.append(up)
        return super().run(candidate, ctx)


@pytest.mark.slow
def test_gate_4s_worker_on_standby_is_up_before_gate_2_runs(project):
    """Slow (gates 1, 2 and 4 of one file in the sandbox: 2-4 s)."""
    root = project(LIB)
    settings = Settings(gates=["compile", "green", "mutation"], cache=False, jobs=1)
    loaded = Project.load(root)
    gates = [CompileGate(settings), WatchedGreen(settings), MutationGate(settings)]
    verifier = Verifier(loaded, settings, use_cache=False, gates=gates)
    rel = "tests/test_clamp.py"
    WatchedGreen.pool = verifier.pool
    try:
        report = verifier.verify_file(api.candidate(loaded, rel, (root / rel).read_text()))
    finally:
        verifier.close()
    assert report is not None
    assert WatchedGreen.seen == [True]  # before: [False], it started when gate 4 did
    assert report.verdict is Verdict.ACCEPTED, [g.feedback for g in report.gates]
    [gate4] = [g for g in report.gates if g.gate == "mutation"]
    # the file's job ran on the worker started for it, counted as the one it started
    assert gate4.details["worker_starts"] == 1
    assert gate4.details["killed"] > 0
