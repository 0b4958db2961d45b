"""Gate 4's accountability: a mutant counts against the file only if it changes something the
file's tests receive from the project (`observe`).

A mutant on a line no test of the file runs is Unexercised at once. Every other mutant's tests run
observed (the observer costs a fraction of a test's time; a re-run of each survivor would double
the cost of the survivors, which are most of it). Survivors' verdicts are held back; once every
mutant has run, two observed runs of the original code give each test's digests. A survivor for
which every one of its tests received exactly what it received from the original (in both runs) is
Unexercised: the file's inputs never make that code matter, so its tests are not charged for it.
Anything else (a test that saw a difference, one whose observations differ between two runs of the
original, a test with no digest) keeps the verdict Survived.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from ..protocol import MutantSpec
from .events import Events
from .observe import OBSERVE, read
from .plan import Job
from .pool import Pool
from .protocol import Event, Mode, MutantDone, Status, Verdict
from .split import Group, Running

UNRUN = "no test of the file runs its line"
ORIGINAL = ("original code, first run", "original code, second run")


class Held(Events):
    """The pool's events on their way to the engine: a survivor's verdict waits for `settle`."""

    def __init__(self, events: Events) -> None:
        self.fh = events.fh
        self.survived: list[MutantDone] = []

    def send(self, event: Event) -> None:
        if isinstance(event, MutantDone):
            if event.verdict.status is Status.SURVIVED:
                self.survived.append(event)
                return
            if event.verdict.status is Status.NO_COVERAGE:
                # inside a function the tests call, on a line none of them runs
                event = MutantDone(event.id, Verdict(Status.UNEXERCISED, reason=UNRUN))
        super().send(event)


class Originals(Events):
    """The original runs' ends are no mutant's verdicts: dropped; heartbeats go on."""

    def __init__(self, events: Events) -> None:
        self.fh = events.fh

    def send(self, event: Event) -> None:
        if not isinstance(event, MutantDone):
            super().send(event)


class ObservingPool(Pool):
    """A pool whose children know which run they are (the observer's file is named after it)."""

    def _start(
        self, running: dict[int, Running], job: Job, ordered: list[str], group: Group
    ) -> None:
        OBSERVE.current = job.m.id  # read by the child forked next
        super()._start(running, job, ordered, group)


@contextmanager
def observing(targets: dict[str, str], root: str, tests: list[str]) -> Iterator[None]:
    """Children forked inside observe their tests (`OBSERVE` is registered with pytest)."""
    OBSERVE.sink = tempfile.mkdtemp(prefix="assay-observe-")
    OBSERVE.targets = frozenset(os.path.realpath(p) for p in targets.values())
    OBSERVE.tests = frozenset(os.path.realpath(os.path.join(root, t.split("::")[0])) for t in tests)
    try:
        yield
    finally:
        shutil.rmtree(OBSERVE.sink, ignore_errors=True)
        OBSERVE.sink = None


def settle(
    held: Held,
    make_pool: Callable[[Events], Pool],
    by_id: dict[str, Any],
    target: str,
) -> None:
    """Run the original code twice, observed, and send the held survivors' final verdicts."""
    if not held.survived:
        return
    wanted = {t for ev in held.survived for t in ev.verdict.covered_by}
    tests = [t for t in by_id if t in wanted]
    nothing = compile("", "<original>", "exec")
    originals = [
        Job(
            MutantSpec(name, target, 0, 0, "", 0, 0, 0, "<original>"),
            tests,
            nothing,
            [],
            Mode.PATCH,
            0,
        )
        for name in ORIGINAL
    ]
    make_pool(Originals(held)).run(iter(originals), by_id)
    first, second = (read(OBSERVE.path(name)) for name in ORIGINAL)
    stable = {t: d for t, d in first.items() if second.get(t) == d}
    for ev in held.survived:
        tests_of = ev.verdict.covered_by
        seen = read(OBSERVE.path(ev.id))
        same = bool(tests_of) and all(t in stable and seen.get(t) == stable[t] for t in tests_of)
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
        Events.send(held, MutantDone(ev.id, verdict, ev.duration_s))
