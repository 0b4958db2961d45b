"""Gate 4's time budget: the sample shrinks when its mutants would cost many times the file's
own run.

A survivor runs every test that covers it, so a test that covers the whole module and takes
seconds costs its seconds on every sampled mutant that survives the cheaper tests: croniter's
`test_croniter_speed.py` (`test_not_long_time`, 4 s of CPU, covers all of croniter.py) took
1,125 s for a 15 s file. The plan estimates each sampled mutant's cost as a survivor's (the
durations of the tests that cover it: the most it can cost without a timeout) and keeps the
longest prefix of the sample within `factor` x the file's own run (collection and its tests,
counted as at least `LEAST_RUN_S`: 60 s of test time at the default factor of 20, so that a file
of fast tests is never cut: its mutants cost the worker's overhead, not test time). A prefix of
the sample is a sample too (`plan.sample`), so the score stays that of a random part of the
scope; never fewer than `MIN_SAMPLE` mutants, and the length kept is rounded down to a multiple
of `STEP` so that a few percent of noise in the durations does not move it. The verdict says the
sample was cut, and the parent treats a failing score on a cut sample that could still reach the
threshold as not judged (`assay.mutation.budgeted`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

# the least a file's own run counts for (s): below it the worker's own overhead dominates
LEAST_RUN_S = 3.0
MIN_SAMPLE = 20  # mutants a cut sample keeps, whatever the budget
STEP = 10  # the length kept is a multiple of this


@dataclass(frozen=True)
class Cut:
    """A sample the budget shrank: `kept` of its `planned` mutants count, whose test time as
    survivors (`estimate_s`) was over `budget_s`."""

    kept: int
    planned: int
    estimate_s: float
    budget_s: float


def within(
    ids: list[str], cost: Callable[[str], float], factor: float, plain_s: float
) -> tuple[list[str], Cut | None]:
    """The prefix of the sample `ids` (in its order) within the budget, and the cut, if any.
    `cost`: a mutant's test seconds as a survivor; `plain_s`: the file's own run."""
    if not factor or len(ids) <= MIN_SAMPLE:
        return ids, None
    budget = factor * max(plain_s, LEAST_RUN_S)
    costs = [cost(i) for i in ids]
    total = sum(costs)
    if total <= budget:
        return ids, None
    spent, kept = 0.0, 0
    for c in costs:
        if spent + c > budget:
            break
        spent, kept = spent + c, kept + 1
    kept = max(kept // STEP * STEP, MIN_SAMPLE)
    if kept >= len(ids):
        return ids, None
    return ids[:kept], Cut(kept, len(ids), round(total, 1), round(budget, 1))
