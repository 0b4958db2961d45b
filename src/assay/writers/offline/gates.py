"""Gates 1-5 as the offline writer runs them within its budget.

Cheap gates first (compile, green, stability, smells), gate 4 last and bounded by the budget's end:
when the budget runs out in gate 4, the file has still passed the others, and the writer keeps it
with gate 4 as the probe checked it (`OUT_OF_TIME`, said in the report) instead of nothing. Gate 4
is scoped to the lines of the functions the file tests (`scope`): a test is kept for killing its
target's mutants, not dropped because a helper its target calls has survivors.
"""

from __future__ import annotations

import threading
import time
from dataclasses import replace
from typing import Any

from assay.config import Settings
from assay.errors import RunFailed
from assay.gates.base import BaseGate, GateContext
from assay.gates.mutation import MutationGate
from assay.model import Candidate, FileReport, GateResult, GateStatus, Verdict
from assay.mutation.model import MutationResult
from assay.pipeline import build_gates
from assay.sandbox import Sandbox
from assay.sandbox.process import Cancelled
from assay.writers.offline.probe import Kept

OUT_OF_TIME = "gate 4 did not finish within the writer's budget"
ORDER = ("compile", "green", "stability", "smells", "mutation")


class BoundedMutation(MutationGate):
    """Gate 4 in a sandbox of its own, given up at `until`: running out of time is a skip that
    says so (`OUT_OF_TIME`), never a pass, and the earlier gates' verdicts stand. The gate runs in
    a thread of its own: part of it (listing a large module's mutants) runs in this process, where
    cancelling the sandbox does not reach, and a 30 s budget ended 12 s late."""

    def __init__(self, settings: Settings, until: float):
        super().__init__(settings)
        self.until = until
        # the last run measured: each test's kills, for leaving out tests others subsume
        self.last_run: MutationResult | None = None

    def _measure(self, ctx: GateContext, rel: str, targets: list[str], *args: Any, **kwargs: Any):  # type: ignore[no-untyped-def]
        run, sources = super()._measure(ctx, rel, targets, *args, **kwargs)
        self.last_run = run
        return run, sources

    def run(self, candidate: Candidate, ctx: GateContext) -> GateResult:
        start = time.monotonic()
        if start >= self.until:
            return _out_of_time(0.0)
        own = Sandbox(ctx.settings.sandbox, protect=ctx.project.root)
        done: list[GateResult | BaseException] = []

        def measure() -> None:
            try:
                done.append(super(BoundedMutation, self).run(candidate, replace(ctx, sandbox=own)))
            except BaseException as err:  # noqa: BLE001 - handed to the caller, or dropped late
                done.append(err)

        worker = threading.Thread(target=measure, daemon=True, name="assay-writer-gate4")
        worker.start()
        worker.join(max(0.0, self.until - time.monotonic()))
        if not done:  # out of time: its processes are killed, it ends on its own
            own.cancel()
            return _out_of_time(time.monotonic() - start)
        outcome = done[0]
        if isinstance(outcome, (Cancelled, RunFailed)) and own.cancelled:
            return _out_of_time(time.monotonic() - start)
        if isinstance(outcome, BaseException):
            raise outcome
        return outcome


def _out_of_time(took: float) -> GateResult:
    return GateResult(
        "mutation",
        GateStatus.SKIP,
        took,
        f"SKIP: Gate 4 — NOT FINISHED\n{OUT_OF_TIME}",
        verdict=Verdict.UNVALIDATED,
        details={"reason": OUT_OF_TIME},
    )


def writer_gates(settings: Settings, until: float) -> list[BaseGate]:
    """The configured gates, cheap ones first, gate 4 last and bounded by `until`."""
    gates = [
        BoundedMutation(settings, until) if g.name == "mutation" else g
        for g in build_gates(settings)
    ]
    rank = {name: i for i, name in enumerate(ORDER)}
    return sorted(gates, key=lambda g: rank.get(g.name, len(ORDER)))


def gate4_out_of_time(report: FileReport) -> bool:
    """Every gate but 4 passed, and gate 4 ran out of the budget: the file is kept, said so."""
    gate = next((g for g in report.gates if g.gate == "mutation"), None)
    return (
        gate is not None
        and gate.details.get("reason") == OUT_OF_TIME
        and all(
            g.status in (GateStatus.PASS, GateStatus.WARN) for g in report.gates if g is not gate
        )
        and not any(t.verdict in (Verdict.REJECTED, Verdict.FLAKY) for t in report.tests)
    )


def scope(rel: str, chosen: list[Kept], spans: dict[str, tuple[int, int]]) -> dict[str, list[int]]:
    """Gate 4's scope for a file of these tests: the lines of the functions they test."""
    lines: set[int] = set()
    for fn in {k.function for k in chosen}:
        if fn in spans:
            first, last = spans[fn]
            lines.update(range(first, last + 1))
    return {rel: sorted(lines)}
