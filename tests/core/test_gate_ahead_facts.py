"""A gate started ahead of its turn takes the facts gate 2 hands on, not those of its early look
(`gates.ahead`): a run started from others is stopped and the gate runs again."""

from __future__ import annotations

import threading
from typing import ClassVar

from assay.config import Settings
from assay.execution.runner import Outcome
from assay.execution.runner import TestResult as Result
from assay.execution.runner import TestRun as Run
from assay.gates.ahead import Ahead
from assay.gates.base import BaseGate, Facts, GateContext
from assay.languages import LANGUAGES
from assay.model import Candidate, GateResult, GateStatus
from assay.pipeline import Verifier
from assay.project import Project


class Counting(BaseGate):
    """A gate that says which facts it ran from, and waits to be stopped when told to."""

    name = "mutation"
    needs = ("passing_tests",)
    runs: ClassVar[list[tuple[list[str], bool]]] = []
    hold = threading.Event()

    def run(self, candidate: Candidate, ctx: GateContext) -> GateResult:
        early = ctx.stop is not None
        Counting.runs.append((list(ctx.facts.passing_tests or []), early))
        if early:
            while not (ctx.stop and ctx.stop.is_set()) and not Counting.hold.is_set():
                Counting.hold.wait(0.01)
            ctx.earlier()  # raises Cancelled once stopped
        return GateResult(self.name, GateStatus.PASS, 0.0, details={"ran": ctx.facts.passing_tests})


def _green(*passing: str) -> Run:
    tests = {t: Result(t, Outcome.PASSED, 0.01) for t in passing}
    return Run(tests=tests, collected=list(passing), exit_status=0, writes=frozenset())


def test_a_gate_started_from_other_facts_than_gate_2_gave_is_stopped_and_run_again(tmp_path):
    root = tmp_path / "p"
    root.mkdir()
    (root / "pyproject.toml").write_text('[project]\nname = "p"\nversion = "0"\n')
    settings = Settings(cache=False)
    loaded = Project.load(root)
    verifier = Verifier(loaded, settings, use_cache=False)
    try:
        language = LANGUAGES["python"]
        with verifier.pool.lease(language.profile_for(loaded)) as ws:
            ctx = GateContext(loaded, settings, ws, verifier.sandbox, language, None)  # type: ignore[arg-type]
            Counting.runs.clear()
            Counting.hold.clear()
            gate = Counting(settings)
            candidate = Candidate(None, "tests/test_x.py", "def test_a(): pass\n")

            def facts(run: Run) -> Facts:
                return Facts(run.collected, list(run.passed()), run.passed())

            ahead = Ahead(gate, candidate, ctx, facts)
            ahead.green(_green("t::a", "t::b"))  # what the early look saw
            ctx.facts = facts(_green("t::a"))  # what gate 2 then handed on
            result = ahead.take(ctx)
            ahead.drop()
    finally:
        verifier.close()
    # the run started from the early look was stopped, the gate ran again from gate 2's facts
    assert Counting.runs == [(["t::a", "t::b"], True), (["t::a"], False)]
    assert result.details["ran"] == ["t::a"]
