"""Gate 2's reading of one run: each test's outcome as a verdict (failed, not judged for a gap in
the environment, set apart as its author or its timing asks), and the feedback lines of the
failures."""

from __future__ import annotations

import re

from assay.dependencies import Dependencies, Gap, jdk
from assay.dependencies.installed import Installed
from assay.execution.runner import Outcome, TestRun
from assay.feedback import failure_summary, trim
from assay.gates.green_messages import MARKED, TIMED
from assay.gates.swallowed import SWALLOWED
from assay.gates.timing import timed_failure
from assay.model import TestOutcome, Verdict

FAILING = {Outcome.FAILED, Outcome.ERROR, Outcome.TIMEOUT}
UNJUDGED = {Outcome.SKIPPED, Outcome.XFAILED, Outcome.XPASSED}


def _summary(message: str, language: str) -> str:
    """pytest's failure cut to its `E` lines; other runners' messages (already the failure's own
    words, read from JUnit XML or JSON) to their first lines."""
    if language == "python":
        return failure_summary(message)
    lines = [ln.rstrip() for ln in message.strip().splitlines() if ln.strip()]
    return "\n".join(lines[:1] + ["  " + ln.strip() for ln in lines[1:8]])


def judge_run(
    run: TestRun,
    gate: str,
    deps: Dependencies,
    language: str = "python",
    installed: Installed | None = None,
    swallowed: dict[str, Gap] | None = None,
    timed: dict[str, str] | None = None,
) -> tuple[list[TestOutcome], list[str], dict[str, list[str]]]:
    """Per-test outcomes of a run that must be all green, feedback lines for the failures, and the
    environment's gaps (`no module 'x'` -> the tests it left unjudged).

    A test failing (or skipped by `importorskip`) only because the environment lacks what the
    project needs (a module it uses, imported by the test or by a subprocess it starts, a plugin it
    declares, the project's own package metadata) is `unvalidated`: `installed` (the test
    interpreter) tells a module it lacks from one a test hides or a subprocess on another Python
    misses. A passing test in `swallowed` caught the ImportError of such a module and checked
    nothing (`gates/swallowed.py`): `unvalidated` too."""
    outcomes: list[TestOutcome] = []
    body: list[str] = []
    gaps: dict[str, list[str]] = {}
    # a class whose initializer the JDK stopped fails every later test of the JVM without a cause
    closed = next(
        (
            g
            for rec in run.tests.values()
            if rec.outcome in FAILING
            and (g := deps.gap([rec.message], installed)) is not None
            and g.kind == "jdk"
        ),
        None,
    )
    for nodeid, rec in run.tests.items():
        # a skip too: `pytest.importorskip` of a module the project needs hides the same gap
        unjudged = rec.outcome in (Outcome.FAILED, Outcome.ERROR, Outcome.SKIPPED)
        gap = deps.gap([rec.message, *rec.import_errors], installed) if unjudged else None
        if gap is None and rec.outcome is Outcome.SKIPPED:
            gap = deps.skip_gap(rec.message, installed)
        if unjudged and closed and gap is None and jdk.LATER.search(rec.message):
            gap = closed
        if gap is not None:
            outcomes.append(TestOutcome(nodeid, Verdict.UNVALIDATED, gate, gap.reason))
            gaps.setdefault(gap.label, []).append(nodeid)
        elif rec.outcome is Outcome.PASSED and (gap := (swallowed or {}).get(nodeid)):
            reason = gap.reason + SWALLOWED
            outcomes.append(TestOutcome(nodeid, Verdict.UNVALIDATED, gate, reason))
            gaps.setdefault(gap.label, []).append(nodeid)
        elif rec.outcome in FAILING and (
            rec.marked_flaky or (how := timed_failure(nodeid, rec.message, timed or {}))
        ):
            first = _summary(rec.message, language).splitlines()
            why = MARKED if rec.marked_flaky else f"{TIMED} ({how})"
            said = f"{why}: {first[0]}" if first else why
            outcomes.append(TestOutcome(nodeid, Verdict.UNVALIDATED, gate, said))
        elif rec.outcome in FAILING:
            msg = _summary(rec.message, language)
            outcomes.append(
                TestOutcome(
                    nodeid,
                    Verdict.REJECTED,
                    gate,
                    msg.splitlines()[0] if msg else rec.outcome.value,
                )
            )
            raised = f"\n  raised in the project's code at {rec.raised_at}" if rec.raised_at else ""
            body.append(f"{nodeid}: {msg}{raised}")
        elif rec.outcome in UNJUDGED:
            told = _unprefixed(rec.message)
            if rec.outcome is Outcome.XPASSED:
                reason = (
                    f"xpassed: marked xfail ({told or 'no reason given'}) but passes; remove the"
                    " mark to have it judged"
                )
            elif rec.outcome is Outcome.XFAILED and not told:  # ftfy's read "xfailed:"
                reason = "xfailed: marked xfail (no reason given)"
            else:  # mocha's `this.skip()` gives none: "skipped:" read as a cut-off line
                said = f": {told}" if told else " (no reason given)"
                reason = f"{rec.outcome.value}{said}"
            outcomes.append(
                TestOutcome(
                    nodeid,
                    Verdict.UNVALIDATED,
                    gate,
                    reason,
                )
            )
    if run.crash:
        who = run.running or "the test run"
        reason = trim(run.crash)
        outcomes.append(TestOutcome(who, Verdict.REJECTED, gate, reason.splitlines()[0]))
        body.append(f"{who}: {reason}")
    return outcomes, body, gaps


def _unprefixed(message: str) -> str:
    """pytest's skip message repeats the outcome ("Skipped: needs numpy")."""
    return re.sub(r"^(Skipped|XFAIL):? ", "", message)
