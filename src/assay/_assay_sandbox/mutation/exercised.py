"""Gate 4's accountability: a mutant counts against the file only if it changes something the
file's tests receive from the project (`observe`).

A mutant on a line no test of the file runs is Unexercised at once. The pool's survivors are held
back; once every mutant has run, each survivor runs again the same way (same job, same tests) with
the tests observed, after two observed runs of the original code. A survivor for which every one
of its tests received exactly what it received from the original (in both original runs) is
Unexercised: the file's inputs never make that code matter, so its tests are not charged for it.
Anything else (a test that saw a difference, one whose observations differ between two runs of the
original, a re-run that did not survive) keeps the verdict Survived; its re-run ends at the first
such test. Killed and timed-out mutants need nothing: only survivors pay for a re-run.
"""

from __future__ import annotations

import dataclasses
import os
import shutil
import tempfile
from collections.abc import Callable, Iterator
from typing import Any

from .events import Events
from .observe import OBSERVE, read
from .plan import Job, Settled
from .pool import Pool
from .protocol import Event, Mode, MutantDone, Status, Verdict
from .split import Group, Running

UNRUN = "no test of the file runs its line"
ORIGINAL = ("original code, first run", "original code, second run")


class Held(Events):
    """The pool's events on their way to the engine: a survivor's verdict waits for `settle`;
    each job is kept until its verdict, to be run again if it survives."""

    def __init__(self, events: Events) -> None:
        self.fh = events.fh
        self.jobs: dict[str, Job] = {}
        self.survived: list[MutantDone] = []

    def steps(self, steps: Iterator[Job | Settled]) -> Iterator[Job | Settled]:
        for step in steps:
            if isinstance(step, Job):
                self.jobs[step.m.id] = step
            yield step

    def send(self, event: Event) -> None:
        if isinstance(event, MutantDone):
            if event.verdict.status is Status.SURVIVED and event.id in self.jobs:
                self.survived.append(event)
                return
            self.jobs.pop(event.id, None)
            if event.verdict.status is Status.NO_COVERAGE:
                # inside a function the tests call, on a line none of them runs
                event = MutantDone(event.id, Verdict(Status.UNEXERCISED, reason=UNRUN))
        super().send(event)


class Reruns(Events):
    """The observed runs' verdicts, kept here; the rest (heartbeats) goes on to the engine."""

    def __init__(self, events: Events) -> None:
        self.fh = events.fh
        self.done: dict[str, MutantDone] = {}

    def send(self, event: Event) -> None:
        if isinstance(event, MutantDone):
            self.done[event.id] = event
        else:
            super().send(event)


class ObservingPool(Pool):
    """A pool whose children know which run they are (the observer's file is named after it)."""

    def _start(
        self, running: dict[int, Running], job: Job, ordered: list[str], group: Group
    ) -> None:
        OBSERVE.current = job.m.id  # read by the child forked next
        super()._start(running, job, ordered, group)


def settle(
    held: Held,
    targets: dict[str, str],
    make_pool: Callable[[Events], ObservingPool],
    by_id: dict[str, Any],
) -> None:
    """Run the held survivors again under the observer and send their final verdicts."""
    if not held.survived:
        return
    jobs = [held.jobs[ev.id] for ev in held.survived]
    wanted = {t for job in jobs for t in job.ordered}
    tests = [t for t in by_id if t in wanted]
    originals = [
        Job(dataclasses.replace(jobs[0].m, id=name), tests, _NOTHING, [], Mode.PATCH, 0)
        for name in ORIGINAL
    ]
    sink = tempfile.mkdtemp(prefix="assay-observe-")
    OBSERVE.sink = sink
    OBSERVE.targets = frozenset(os.path.realpath(p) for p in targets.values())
    reruns = Reruns(held)
    try:
        make_pool(reruns).run(iter(originals), by_id)
        first, second = (read(OBSERVE.path(name)) for name in ORIGINAL)
        stable = {t: d for t, d in first.items() if second.get(t) == d}
        OBSERVE.expected = stable
        make_pool(reruns).run(iter(jobs), by_id)
        for ev in held.survived:
            rerun = reruns.done.get(ev.id)
            tests_of = ev.verdict.covered_by
            same = (
                rerun is not None
                and rerun.verdict.status is Status.SURVIVED
                and bool(tests_of)
                and _unchanged(read(OBSERVE.path(ev.id)), stable, tests_of)
            )
            verdict = (
                Verdict(
                    Status.UNEXERCISED,
                    tests_of,
                    [],
                    ev.verdict.tests_completed,
                    f"none of its {len(tests_of)} tests received a different value, exception or"
                    " argument state from the project's code",
                )
                if same
                else ev.verdict
            )
            took = ev.duration_s + (rerun.duration_s if rerun else 0.0)
            Events.send(held, MutantDone(ev.id, verdict, took))
    finally:
        OBSERVE.sink = OBSERVE.expected = None
        shutil.rmtree(sink, ignore_errors=True)


def _unchanged(seen: dict[str, str], original: dict[str, str], tests: list[str]) -> bool:
    return all(t in original and seen.get(t) == original[t] for t in tests)


_NOTHING = compile("", "<original>", "exec")
