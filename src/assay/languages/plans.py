"""Gate 3's plan in one process (a JVM, a vitest instance): the runs it makes, and each step's
TestRun read back from the results every run left, as `Runner.run_plan` returns them.

A step of each test alone is one run per test (or per test method): its results are merged into the
step's TestRun. The process stops after a step marked `last_if_failed` in which a test failed; a run
that left no results otherwise is a crash of that step (the process died or timed out in it), which
`redo_crashed` runs again, with the steps after it, a process per run.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from assay.execution.runner import Outcome, RunStep, TestResult, TestRun, alone

_FAILED = (Outcome.FAILED, Outcome.ERROR, Outcome.TIMEOUT)


@dataclass(frozen=True)
class PlannedRun:
    """One run of the plan: the step it belongs to, where its results go, and the test ids it
    judges (None: the whole file's)."""

    step: int
    out: Path
    ids: list[str] | None = None


def layout(
    out_dir: Path, suffix: str, steps: list[RunStep], ids: list[str] | None, start: int = 0
) -> list[PlannedRun]:
    """The runs a plan makes, in order, each with its results file `run-<n><suffix>` in `out_dir`
    (n from `start`): one per step, and one per test of `ids` for a step alone (those `each_step`
    would run alone)."""
    runs: list[PlannedRun] = []
    for n, s in enumerate(steps):
        groups: list[list[str] | None] = (
            [[t] for t in alone(ids, s.alone) or []] if s.isolate else [None]
        )
        for judged in groups:
            runs.append(PlannedRun(n, out_dir / f"run-{start + len(runs)}{suffix}", judged))
    return runs


def gather(
    planned: list[PlannedRun],
    steps: list[RunStep],
    read: Callable[[PlannedRun], dict[str, TestResult] | None],
    crash: str,
    timed_out: bool,
) -> list[TestRun]:
    """One TestRun per step that ran. `read(run)`: a run's results, None when it left none;
    `crash`: why the process ended without them."""
    runs: list[TestRun] = []
    previous: tuple[int, bool] | None = None  # the last run's step, and whether a test failed in it
    for p in planned:
        results = read(p)
        if results is None:
            if previous is not None and previous[1] and steps[previous[0]].last_if_failed:
                break  # the plan ended after a run in which a test failed, as asked
            running = p.ids[0] if p.ids and len(p.ids) == 1 else None
            if p.step < len(runs):  # a run alone of a step that began
                runs[-1].crash, runs[-1].running, runs[-1].timed_out = crash, running, timed_out
            else:
                runs.append(TestRun(crash=crash, running=running, timed_out=timed_out))
            break
        if p.step == len(runs):
            runs.append(TestRun())
        runs[-1].tests.update(results)
        previous = (p.step, any(t.outcome in _FAILED for t in results.values()))
    return runs


def redo_crashed(
    runs: list[TestRun], steps: list[RunStep], each: Callable[[list[RunStep]], list[TestRun]]
) -> list[TestRun]:
    """The plan's runs, with the step the process died in (a limit, the plan launcher itself, a
    test ending the process) and the steps after it done again by `each` (a process per run),
    so that no step passes unobserved."""
    crashed = next((i for i, r in enumerate(runs) if r.crash), None)
    if crashed is None and runs:
        return runs
    start = crashed if crashed is not None else 0
    return runs[:start] + each(steps[start:])
