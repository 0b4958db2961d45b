"""Gate 2: run only this file in the sandbox; every test case must pass."""

from __future__ import annotations

import re
import time

from assay.dependencies import Gap, jdk
from assay.dependencies.installed import Installed
from assay.execution.runner import Outcome, TestRun
from assay.feedback import compose
from assay.gates.base import BaseGate, Facts, GateContext
from assay.gates.green_messages import (
    GAP_HEADER,
    GAP_HINT,
    HEADER,
    HINT,
    JDK_HEADER,
    JDK_HINT,
    LOCALE_HEADER,
    LOCALE_HINT,
    MARKED,
    MARKED_HEADER,
    MARKED_HINT,
    PROGRAM_HEADER,
    PROGRAM_HINT,
    PROJECT_HINT,
    PYTHON_HEADER,
    PYTHON_HINT,
    REMOVED,
    TIMED,
    TIMED_HEADER,
    TIMED_HINT,
    TIMEOUT_HINT,
)
from assay.gates.green_outcomes import judge_run
from assay.gates.swallowed import swallowed_gaps
from assay.gates.timing import timing_tests
from assay.model import Candidate, GateResult, GateStatus, Verdict


def failure_lines(run: TestRun, rel: str) -> dict[str, int]:
    """Per failing test, the line of the test file where it failed (the first frame in that file
    of its traceback), when the message names one: what a writer's salvage cuts."""
    frame = re.compile(rf"^{re.escape(rel)}:(\d+):", re.MULTILINE)
    out = {}
    for nodeid, rec in run.tests.items():
        if rec.outcome in (Outcome.FAILED, Outcome.ERROR) and (m := frame.search(rec.message)):
            out[nodeid] = int(m.group(1))
    return out


def session_writes(
    run: TestRun, deleted: list[str], changed: list[str]
) -> tuple[list[str], list[str], list[str]]:
    """The deleted and changed project files the test calls are to blame for, and those written by
    the pytest session around them (a plugin's or the project config's session-end artefacts:
    `--junitxml` in addopts, a report a conftest writes at session end), which are not the test
    file's doing. A runner that could not watch the calls leaves every change to the tests."""
    if run.writes is None:
        return deleted, changed, []
    ours = run.writes
    ignored = sorted(p for p in [*deleted, *changed] if p not in ours)
    return [p for p in deleted if p in ours], [p for p in changed if p in ours], ignored


def after_tests_note(told: str) -> str:
    """pytest failed once every test had run (a plugin's or conftest's session teardown, as
    pytest-xprocess at `pytest_unconfigure`): the tests are judged by their own outcomes, the
    crash named, never blamed on the last of them."""
    lines = [ln.strip() for ln in told.splitlines() if ln.strip()]
    last = next(
        (ln for ln in reversed(lines) if re.match(r"^[\w.]+(Error|Exception|Warning)\b", ln)), ""
    )
    where = next((ln for ln in reversed(lines) if ln.startswith("File ")), "")
    said = "; ".join(x for x in (last or (lines[-1] if lines else ""), where) if x)
    return (
        "pytest failed after every test had run, at the session's end (a plugin's or conftest's"
        f" teardown), not a test's doing: {said}"
    )


def ignored_note(ignored: list[str]) -> str:
    more = f" (+{len(ignored) - 5} more)" if len(ignored) > 5 else ""
    return (
        f"changes to {', '.join(ignored[:5])}{more} not counted: the pytest session wrote them "
        "outside the tests (a plugin or the project's pytest configuration)"
    )


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
        before = run.tree_before if run.tree_before is not None else before
        python = getattr(ctx.runner, "python", None)
        if run.environment:
            return unrun(self.name, run.environment, time.monotonic() - start, python)
        if run.crash and run.running is None:  # a runner that cannot tell (a JVM's reports)
            unfinished = [t for t in ctx.facts.collected or [] if t not in run.tests]
            run.running = unfinished[0] if len(unfinished) == 1 else None
        installed = Installed(python) if python else None
        deps = ctx.project.dependencies
        swallowed = swallowed_of(candidate, run, ctx)
        timed = timing_tests(candidate.source) if candidate.language == "python" else {}
        outcomes, body, gaps = judge_run(
            run, self.name, deps, candidate.language, installed, swallowed, timed
        )
        deleted, changed, ignored = session_writes(run, *ctx.workspace.damage(before))
        if run.ahead is not None:  # gate 3's runs, made ahead in the same process: not this run's
            ignored = [p for p in ignored if p not in run.ahead.writes]
        body += damage_lines(candidate.rel, deleted, changed)
        passed = passing_of(run, swallowed)
        details: dict[str, object] = {
            "passed": len(passed),
            "failed": len(body),
            "leaked_imports": run.leaked,
        }
        notes = [ignored_note(ignored)] if ignored else []
        if ignored:
            details["ignored_writes"] = ignored
        if run.after_tests:
            notes.append(after_tests_note(run.after_tests))
        if notes:
            details["notes"] = notes
        if gaps:
            details["environment"] = environment_details(gaps, python)
        if failed_at := failure_lines(run, candidate.rel):
            details["failed_at"] = failed_at
        ctx.facts.passing_tests = list(passed)
        ctx.facts.test_durations = passed
        elapsed = time.monotonic() - start
        if body:
            raised = {
                t.id: rec.raised_at
                for t in outcomes
                if t.verdict is Verdict.REJECTED and (rec := run.tests.get(t.id)) and rec.raised_at
            }
            rejected = [t for t in outcomes if t.verdict is Verdict.REJECTED]
            hint = HINT
            if raised:
                details["raised_in_project"] = raised
            if raised and len(raised) == len(rejected) and not run.crash:
                hint = PROJECT_HINT.format(where=", ".join(sorted(set(raised.values()))[:3]))
            if rejected and all(t.reason.startswith("timed out") for t in rejected):
                hint = TIMEOUT_HINT
                details["timed_out"] = len(rejected)
            return GateResult(
                self.name,
                GateStatus.REJECT,
                elapsed,
                compose(HEADER, body, hint),
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
        marked = [f"{t.id}: {t.reason}" for t in outcomes if t.reason.startswith((MARKED, TIMED))]
        if marked and not gaps:
            mark = any(MARKED in m for m in marked)
            header, hint = (MARKED_HEADER, MARKED_HINT) if mark else (TIMED_HEADER, TIMED_HINT)
            return GateResult(
                self.name,
                GateStatus.WARN,
                elapsed,
                compose(header, marked, hint),
                verdict=Verdict.UNVALIDATED,
                tests=outcomes,
                details=details,
            )
        if gaps:
            # the other tests go on through the gates; the file cannot be fully judged
            gapped = [f"{t.id}: {t.reason}" for t in outcomes if t.verdict is Verdict.UNVALIDATED]
            locales = [g.removeprefix("no locale ") for g in gaps if g.startswith("no locale ")]
            removed = [g.removeprefix("no ") for g in gaps if REMOVED in g]
            programs = [g.removeprefix("no ") for g in gaps if g.startswith("no program ")]
            closed_ = [g.removeprefix(jdk.LABEL) for g in gaps if g.startswith(jdk.LABEL)]
            modules = [
                g.removeprefix("no ")
                for g in gaps
                if not g.startswith(("no locale ", "no program ", jdk.LABEL)) and REMOVED not in g
            ]
            hints = [
                *([LOCALE_HINT.format(missing=", ".join(locales))] if locales else []),
                *([PROGRAM_HINT.format(missing=", ".join(programs))] if programs else []),
                *([PYTHON_HINT.format(missing=", ".join(removed))] if removed else []),
                *([JDK_HINT.format(missing=", ".join(closed_))] if closed_ else []),
                *(
                    [
                        GAP_HINT.format(
                            missing=", ".join(modules), python=python or "the test interpreter"
                        )
                    ]
                    if modules
                    else []
                ),
            ]
            return GateResult(
                self.name,
                GateStatus.WARN,
                elapsed,
                compose(
                    GAP_HEADER
                    if modules
                    else PYTHON_HEADER
                    if removed
                    else JDK_HEADER
                    if closed_
                    else PROGRAM_HEADER
                    if programs
                    else LOCALE_HEADER,
                    gapped,
                    " ".join(hints),
                ),
                verdict=Verdict.UNVALIDATED,
                tests=outcomes,
                details=details,
            )
        return GateResult(self.name, GateStatus.PASS, elapsed, tests=outcomes, details=details)


def swallowed_of(candidate: Candidate, run: TestRun, ctx: GateContext) -> dict[str, Gap]:
    """The passing tests that caught a missing module's ImportError and checked nothing."""
    if candidate.language != "python":
        return {}
    python = getattr(ctx.runner, "python", None)
    installed = Installed(python) if python else None
    return swallowed_gaps(candidate.source, run.passed(), ctx.project.dependencies, installed)


def passing_of(run: TestRun, swallowed: dict[str, Gap]) -> dict[str, float]:
    """The tests gate 2 hands on (`passing_tests`, `test_durations`): those that passed, in run
    order, with their durations, but for those that swallowed a gap."""
    return {t: d for t, d in run.passed().items() if t not in swallowed}


def facts_of(candidate: Candidate, run: TestRun, ctx: GateContext) -> Facts:
    """The facts gates 1-2 give the later gates when `run` is their run and gate 2 passes (what a
    gate started ahead starts from, `gates.ahead`)."""
    passed = passing_of(run, swallowed_of(candidate, run, ctx))
    return Facts(collected=run.collected, passing_tests=list(passed), test_durations=passed)


def unrun(gate: str, missing: str, elapsed: float, python: str | None = None) -> GateResult:
    """The run did not happen for want of something the machine lacks (the runner says what): the
    file is `unvalidated` with that named, never rejected, never cached. With `python` (the test
    interpreter: a pytest plugin it lacks), the summary names it, not "the build environment"."""
    return GateResult(
        gate,
        GateStatus.SKIP,
        elapsed,
        compose(
            "UNVALIDATED: Gate 2 — TEST ENVIRONMENT",
            [missing],
            "Not judged: the tests did not run. Provide what is missing and run again.",
        ),
        verdict=Verdict.UNVALIDATED,
        details={"environment": environment_details({missing: []}, python) if python else missing},
    )


def environment_details(gaps: dict[str, list[str]], python: str | None) -> dict[str, object]:
    """A gate's `environment` details: the interpreter, and per gap the tests (or files) it
    left unjudged; every report counts and names them from here."""
    return {"python": python, "missing": gaps}
