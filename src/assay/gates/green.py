"""Gate 2: run only this file in the sandbox; every test case must pass."""

from __future__ import annotations

import time

from assay.dependencies import Dependencies
from assay.feedback import compose, failure_summary, relativize, trim
from assay.gates.base import GateContext
from assay.languages.python import PytestRun, run_pytest
from assay.model import Candidate, GateResult, GateStatus, TestOutcome, Verdict

HEADER = "REJECT: Gate 2 — TEST FAILURE"
HINT = "Fix expected values or setup. Do not fit the test to the code: check the real contract."
FAILING = {"failed", "error", "xpassed", "timeout"}


def judge_run(run: PytestRun, gate: str, roots: tuple[str, ...],
              deps: Dependencies) -> tuple[list[TestOutcome], list[str]]:
    """Per-test outcomes of a run that must be all green, and feedback lines for the failures.

    A test failing only because the environment lacks what the project needs (a module it uses, a plugin it
    declares, the project's own package metadata) is `unvalidated`."""
    outcomes: list[TestOutcome] = []
    body: list[str] = []
    for nodeid, rec in run.tests.items():
        if rec.outcome in ("failed", "error") and (gap := deps.explain(rec.message)):
            outcomes.append(TestOutcome(nodeid, Verdict.UNVALIDATED, gate, gap))
        elif rec.outcome in FAILING:
            msg = ("marked xfail but passes" if rec.outcome == "xpassed"
                   else failure_summary(relativize(rec.message, *roots)))
            outcomes.append(TestOutcome(nodeid, Verdict.REJECTED, gate, msg.splitlines()[0] if msg else rec.outcome))
            body.append(f"{nodeid}: {msg}")
        elif rec.outcome in ("skipped", "xfailed"):
            outcomes.append(TestOutcome(nodeid, Verdict.UNVALIDATED, gate, f"{rec.outcome}: {rec.message}".strip()))
    if run.crash:
        who = run.running or "the test run"
        reason = trim(relativize(run.crash, *roots))
        outcomes.append(TestOutcome(who, Verdict.REJECTED, gate, reason.splitlines()[0]))
        body.append(f"{who}: {reason}")
    return outcomes, body


def damage_lines(rel: str, deleted: list[str], changed: list[str]) -> list[str]:
    """Feedback for tests that deleted or rewrote project files (in the scratch copy, where they ran)."""
    lines = []
    for verb, paths in (("deleted", deleted), ("changed", changed)):
        if paths:
            more = f" (+{len(paths) - 5} more)" if len(paths) > 5 else ""
            lines.append(f"{rel}: the tests {verb} project files: {', '.join(paths[:5])}{more}. "
                         "Tests must leave the project as they found it: write to tmp_path.")
    return lines


class GreenGate:
    name = "green"

    def run(self, candidate: Candidate, ctx: GateContext) -> GateResult:
        start = time.monotonic()
        before = ctx.workspace.snapshot()
        run = run_pytest(ctx, candidate.rel, mode="run")
        roots = (str(ctx.workspace.project), str(ctx.root))
        outcomes, body = judge_run(run, self.name, roots, ctx.project.dependencies)
        body += damage_lines(candidate.rel, *ctx.workspace.damage(before))
        passed = {k: r.duration for k, r in run.tests.items() if r.outcome == "passed"}
        details = {"passed": len(passed), "failed": len(body), "leaked_imports": run.leaked}
        ctx.state["passing_tests"] = list(passed)
        ctx.state["test_durations"] = passed
        elapsed = time.monotonic() - start
        if body:
            return GateResult(self.name, GateStatus.REJECT, elapsed, compose(HEADER, body, HINT),
                              tests=outcomes, details=details)
        if not passed:
            reasons = [f"{t.id}: {t.reason}" for t in outcomes]
            return GateResult(self.name, GateStatus.SKIP, elapsed,
                              compose("UNVALIDATED: Gate 2 — NO TEST PASSED", reasons,
                                      "Every test was skipped, xfail, or lacks an installed dependency."),
                              verdict=Verdict.UNVALIDATED, tests=outcomes, details=details)
        return GateResult(self.name, GateStatus.PASS, elapsed, tests=outcomes, details=details)
