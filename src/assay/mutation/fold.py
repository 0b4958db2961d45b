"""The worker's events folded into a `MutationResult`: the baseline, each mutant's verdict (cached
as it comes), the run's costs, and what the early stop and the time budget left out."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from assay._assay_sandbox.mutation.budget import Cut
from assay._assay_sandbox.mutation.protocol import (
    BaselineDone,
    BaselineTest,
    Collected,
    Cost,
    Event,
    Jobs,
    MutantDone,
    Sampled,
    Stopped,
    Unobserved,
)
from assay.mutation.model import EARLY_STOP, OVER_BUDGET, MutantResult, MutationResult, Status
from assay.store import Store

# the verdicts the store keeps
CACHED = {
    Status.KILLED,
    Status.SURVIVED,
    Status.NO_COVERAGE,
    Status.IGNORED,
    Status.COMPILE_ERROR,
    Status.UNEXERCISED,
}
NAMESPACE = "mutation"


def fold(
    run: MutationResult,
    events: list[Event],
    store: Store | None,
    keys: dict[str, str],
    base_key: str,
) -> None:
    """`events` (one worker run's) into `run`; the baseline and each verdict into `store` under
    `base_key` and `keys` (mutant id -> cache key)."""
    for ev in events:
        if isinstance(ev, BaselineDone):
            baseline = {
                "tests": [
                    {"id": t.id, "outcome": t.outcome, "duration": t.duration} for t in ev.tests
                ],
                "line_tests": ev.line_tests,
                "scope": ev.scope,
            }
            apply_baseline(run, baseline)
            run.baseline = ev.summary
            if store:
                store.put(NAMESPACE, base_key, baseline)
        elif isinstance(ev, Collected):
            run.deselected = ev.deselected
        elif isinstance(ev, Jobs):
            run.modes = ev.modes
        elif isinstance(ev, Unobserved):
            run.unobserved = (ev.tests, ev.limit)
        elif isinstance(ev, Cost):
            run.slowest = ev.slowest
            run.longest_mutant = ev.longest_mutant
            run.split_mutants = ev.split_mutants
            run.hangs_in_a_row = ev.hangs_in_a_row
        elif isinstance(ev, MutantDone):
            result = MutantResult.of(ev.verdict, ev.duration_s)
            run.results[ev.id] = result
            # one the early stop or the time budget left out is not: the next run may need it
            # (where the stop or the cut falls depends on the outcomes and the durations)
            if store and result.status in CACHED and result.reason not in (EARLY_STOP, OVER_BUDGET):
                store.put(NAMESPACE, keys[ev.id], result.to_json())
        elif isinstance(ev, Sampled) and ev.planned:  # the time budget cut the sample
            run.budget_cut = Cut(len(ev.ids), ev.planned, ev.estimate_s, ev.budget_s)
        elif isinstance(ev, Stopped):  # ran after the early stop: cached, not counted
            for i in ev.past:
                r = run.results[i]
                run.results[i] = replace(r, status=Status.IGNORED, reason=EARLY_STOP)


def apply_baseline(run: MutationResult, baseline: dict[str, Any]) -> None:
    """`baseline`: as the store holds it (JSON)."""
    run.tests = [BaselineTest(t["id"], t["outcome"], t["duration"]) for t in baseline["tests"]]
    run.line_tests = {
        rel: {int(k): v for k, v in lines.items()} for rel, lines in baseline["line_tests"].items()
    }
    run.scope = baseline["scope"]
