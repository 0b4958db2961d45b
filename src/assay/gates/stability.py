"""Gate 3: the same tests, run again, alone and in another order, must give the same outcomes.

A test whose outcome changes is `flaky`. Flaky tests are reported, never repaired by reruns. Where
the runner can (`run_plan`), all runs share one collected session and each runs in a fork of it: the
state a fresh process has after collection, without paying for start-up and collection again.

Where reruns are forks, a file whose tests are fast is rerun more than `reruns` times: as many
times as fit in `budget_s` (at most `MAX_RERUNS`). A few reruns are a coin toss against a test that
fails one run in four (unseeded randomness, the clock): 6 runs miss it 18% of the time, 40 runs
almost never; and a fork of a fast file costs about 10 ms.

Each run is `lean` (Python: `_assay_sandbox/lean.py`): the tests pytest's own set-up suffices for
run without its per-test hooks and reports (~0.08 ms a test instead of ~0.5 ms); a test that does
not pass there makes the run start again under the full protocol, whose outcomes alone count, as
do those of every run after it. Same count of runs, so the same odds against a flaky test.
"""

from __future__ import annotations

import re
import time

from assay._assay_sandbox.stability_plan import (
    MAX_RERUNS,
    alone_count,
    imported,
    rerun_count,
    risk_of,
)
from assay.execution.runner import Order, Outcome, RunStep, TestRun, run_plan
from assay.feedback import LOCATION, compose, trim
from assay.gates.base import BaseGate, GateContext
from assay.model import Candidate, GateResult, GateStatus, TestOutcome, Verdict

HEADER = "REJECT: Gate 3 — FLAKY TESTS"
HINT = (
    "Flaky tests are dropped, not retried: remove the dependence on order, shared state, time, "
    "randomness or the environment."
)
LOST_HEADER = "UNVALIDATED: Gate 3 — RERUNS DID NOT ALL HAPPEN"
LOST_HINT = (
    "Not judged: a run that did not happen is not a pass. Run again; if it recurs, the cause is "
    "above."
)
__all__ = ["MAX_RERUNS", "StabilityGate", "alone_count", "imported", "rerun_count", "risk_of"]


class StabilityGate(BaseGate):
    name = "stability"
    needs = ("passing_tests",)

    def run(self, candidate: Candidate, ctx: GateContext) -> GateResult:
        start = time.monotonic()
        cfg = ctx.settings.stability
        passing = list(ctx.facts.passing_tests or [])
        observations: dict[str, list[tuple[str, str, str]]] = {t: [] for t in passing}
        risk = risk_of(candidate.source)
        reruns = cfg.reruns_risky if risk else cfg.reruns
        # cheap reruns when fast: forks of one session (not a JVM's class loaders, nor processes)
        planned = getattr(ctx.runner, "run_plan", None) is not None
        forked = planned and getattr(ctx.runner, "plan_forks", True)
        more = rerun_count(reruns, cfg.budget_s, ctx.facts.test_durations) if forked else reruns
        # each run the last once a test did not pass in it: the file is flaky already
        plan: list[tuple[str, RunStep]] = [
            (f"rerun {i + 1}", RunStep(last_if_failed=True, lean=True, together=more > reruns))
            for i in range(more)
        ]
        if cfg.random_order:
            step = RunStep(Order.RANDOM, cfg.seed, last_if_failed=True, lean=True)
            plan.append((f"random order (seed {cfg.seed})", step))
        if cfg.isolation and passing:
            # a fork per test: each function's first case, its other cases as the budget allows
            limit = alone_count(cfg.budget_s, ctx.facts.test_durations) if forked else None
            step = RunStep(isolate=True, last_if_failed=True, alone=limit, lean=True)
            plan.append(("alone", step))
        runs = run_plan(
            ctx.runner, ctx.workspace, [candidate.rel], [step for _, step in plan], passing
        )
        # fewer runs than steps: the plan stopped at the first run a test did not pass
        for (label, _), run in zip(plan, runs, strict=False):
            for nodeid in passing:
                rec = run.tests.get(nodeid)
                if rec is not None:
                    observations[nodeid].append((label, rec.outcome.value, rec.message))
                elif run.crash and nodeid == run.running and not run.out_of_time:
                    hung = run.timed_out or run.crash.startswith("timed out")
                    observations[nodeid].append(
                        (label, "timed out" if hung else "crashed", run.crash)
                    )
        details: dict = {
            "runs": 1 + len(runs),
            "risk": risk,
            "seed": cfg.seed,
            "plan": [p[0] for p in plan[: len(runs)]],
            # reruns that screened plain tests without the per-test protocol (`RunStep.lean`)
            "lean": sum(1 for run in runs if run.lean),
            # of them, reruns run one after another in one fork (`_assay_sandbox/plan_steps.py`)
            "together": sum(1 for run in runs if run.together),
        }
        # what failed only there: run again under the protocol, these passed (else: flaky below)
        unconfirmed = {
            t: m
            for run in runs
            for t, m in run.screened.items()
            if t in run.tests and run.tests[t].outcome is Outcome.PASSED
        }
        if unconfirmed:
            details["lean_only"] = unconfirmed
        flaky: list[TestOutcome] = []
        body: list[str] = []
        for nodeid, obs in observations.items():
            bad = [o for o in obs if o[1] != "passed"]
            if not bad:
                continue
            total = len(obs) + 1  # + the green run, which passed
            first = trim(bad[0][2], 4)
            reason = f"passed {total - len(bad)} of {total} runs; {bad[0][1]} when {bad[0][0]}"
            flaky.append(TestOutcome(nodeid, Verdict.FLAKY, self.name, reason))
            shown = failure_line(bad[0][2], first, candidate.language)
            body.append(f"{nodeid}: {reason}" + (f"\n  {shown}" if shown else ""))
        elapsed = time.monotonic() - start
        lost = [] if flaky else vanished(plan, runs, passing)
        if lost:
            details["vanished"] = lost
            return GateResult(
                self.name,
                GateStatus.SKIP,
                elapsed,
                compose(LOST_HEADER, lost, LOST_HINT),
                verdict=Verdict.UNVALIDATED,
                details=details,
            )
        if flaky:
            details["flaky"] = [t.id for t in flaky]
            return GateResult(
                self.name,
                GateStatus.REJECT,
                elapsed,
                compose(HEADER, body, HINT),
                verdict=Verdict.FLAKY,
                tests=flaky,
                details=details,
            )
        return GateResult(self.name, GateStatus.PASS, elapsed, details=details)


def vanished(plan: list[tuple[str, RunStep]], runs: list[TestRun], passing: list[str]) -> list[str]:
    """Why runs of the plan are missing, when no test it watches failed (a plan stops early only
    at a run where one did not pass): a run that ended abnormally while no watched test was
    running, or fewer runs than steps for no reason seen. Empty when every run happened."""
    why = [
        f"{label}: {run.crash}"
        + (
            ""
            if run.out_of_time
            else f", while {run.running} was running"
            if run.running
            else ", before any test started"
        )
        + (
            " (not a test gate 3 judges: it did not pass at gate 2)"
            if run.running and not run.out_of_time
            else ""
        )
        for (label, _), run in zip(plan, runs, strict=False)
        if run.crash and (run.running not in passing or run.out_of_time)
    ]
    if len(runs) < len(plan):
        why.append(
            f"the plan stopped after {len(runs)} of {len(plan)} runs, no test it watches failing: "
            f"{', '.join(label for label, _ in plan[len(runs) :])} did not run"
        )
    return why


def failure_line(message: str, trimmed: str, language: str) -> str:
    """One line of a flaky test's failure: for pytest, the exception (its first `E` line, else
    the message's first line naming an exception) and where; not the message's last line
    (humanfriendly 10.0's `test_timer` showed `+ 1 second`, then `?    ^`: the end of unittest's
    diff of `'2 seconds' != '1 second'`)."""
    if not trimmed:
        return ""
    if language != "python":
        return trimmed.splitlines()[0]
    lines = message.splitlines()
    error = next((ln[1:].strip() for ln in lines if ln.startswith("E ") and ln[1:].strip()), "")
    error = error or next((ln.strip() for ln in lines if _EXCEPTION.match(ln.strip())), "")
    where = next((ln.rsplit(":", 1)[0] for ln in reversed(lines) if LOCATION.match(ln)), "")
    if error:
        return f"{error} ({where})" if where else error
    return trimmed.splitlines()[-1]


# `AssertionError: ...`, `pkg.errors.ParseError: ...`, a bare `AssertionError`
_EXCEPTION = re.compile(r"^(?:\w+\.)*\w*(?:Error|Exception|Failure|Exit|Interrupt)\b(?::|$)")
