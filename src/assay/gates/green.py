"""Gate 2: run only this file in the sandbox; every test case must pass."""

from __future__ import annotations

import time

from assay.dependencies import Dependencies
from assay.execution.runner import Outcome, TestRun
from assay.feedback import compose, failure_summary, trim
from assay.gates.base import BaseGate, GateContext
from assay.model import Candidate, GateResult, GateStatus, TestOutcome, Verdict

HEADER = "REJECT: Gate 2 — TEST FAILURE"
HINT = "Fix expected values or setup. Do not fit the test to the code: check the real contract."
FAILING = {Outcome.FAILED, Outcome.ERROR, Outcome.XPASSED, Outcome.TIMEOUT}


def _summary(message: str, language: str) -> str:
    """pytest's failure cut to its `E` lines; other runners' messages (already the failure's own
    words, read from JUnit XML or JSON) to their first lines."""
    if language == "python":
        return failure_summary(message)
    lines = [ln.rstrip() for ln in message.strip().splitlines() if ln.strip()]
    return "\n".join(lines[:1] + ["  " + ln.strip() for ln in lines[1:8]])


def judge_run(
    run: TestRun, gate: str, deps: Dependencies, language: str = "python"
) -> tuple[list[TestOutcome], list[str]]:
    """Per-test outcomes of a run that must be all green, and feedback lines for the failures.

    A test failing only because the environment lacks what the project needs (a module it uses, a
    plugin it declares, the project's own package metadata) is `unvalidated`."""
    outcomes: list[TestOutcome] = []
    body: list[str] = []
    for nodeid, rec in run.tests.items():
        if rec.outcome in (Outcome.FAILED, Outcome.ERROR) and (gap := deps.explain(rec.message)):
            outcomes.append(TestOutcome(nodeid, Verdict.UNVALIDATED, gate, gap))
        elif rec.outcome in FAILING:
            msg = (
                "marked xfail but passes"
                if rec.outcome is Outcome.XPASSED
                else _summary(rec.message, language)
            )
            outcomes.append(
                TestOutcome(
                    nodeid,
                    Verdict.REJECTED,
                    gate,
                    msg.splitlines()[0] if msg else rec.outcome.value,
                )
            )
            body.append(f"{nodeid}: {msg}")
        elif rec.outcome in (Outcome.SKIPPED, Outcome.XFAILED):
            outcomes.append(
                TestOutcome(
                    nodeid, Verdict.UNVALIDATED, gate, f"{rec.outcome.value}: {rec.message}".strip()
                )
            )
    if run.crash:
        who = run.running or "the test run"
        reason = trim(run.crash)
        outcomes.append(TestOutcome(who, Verdict.REJECTED, gate, reason.splitlines()[0]))
        body.append(f"{who}: {reason}")
    return outcomes, body


def damage_lines(rel: str, deleted: list[str], changed: list[str]) -> list[str]:
    """Feedback for tests that deleted or rewrote project files (in the scratch copy, where
    they ran)."""
    lines = []
    for verb, paths in (("deleted", deleted), ("changed", changed)):
        if paths:
            more = f" (+{len(paths) - 5} more)" if len(paths) > 5 else ""
            lines.append(
                f"{rel}: the tests {verb} project files: {', '.join(paths[:5])}{more}. "
                "Tests must leave the project as they found it: write to tmp_path."
            )
    return lines


class GreenGate(BaseGate):
    name = "green"
    provides = ("passing_tests", "test_durations")

    def run(self, candidate: Candidate, ctx: GateContext) -> GateResult:
        start = time.monotonic()
        before = ctx.workspace.snapshot()
        run = ctx.runner.run(ctx.workspace, [candidate.rel])
        outcomes, body = judge_run(run, self.name, ctx.project.dependencies, candidate.language)
        body += damage_lines(candidate.rel, *ctx.workspace.damage(before))
        passed = run.passed()
        details = {"passed": len(passed), "failed": len(body), "leaked_imports": run.leaked}
        ctx.facts.passing_tests = list(passed)
        ctx.facts.test_durations = passed
        elapsed = time.monotonic() - start
        if body:
            return GateResult(
                self.name,
                GateStatus.REJECT,
                elapsed,
                compose(HEADER, body, HINT),
                tests=outcomes,
                details=details,
            )
        if not passed:
            reasons = [f"{t.id}: {t.reason}" for t in outcomes]
            return GateResult(
                self.name,
                GateStatus.SKIP,
                elapsed,
                compose(
                    "UNVALIDATED: Gate 2 — NO TEST PASSED",
                    reasons,
                    "Every test was skipped, xfail, or lacks an installed dependency.",
                ),
                verdict=Verdict.UNVALIDATED,
                tests=outcomes,
                details=details,
            )
        return GateResult(self.name, GateStatus.PASS, elapsed, tests=outcomes, details=details)
