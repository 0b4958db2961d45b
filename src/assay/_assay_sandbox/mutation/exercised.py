"""Gate 4's accountability: a mutant counts against the file only if it changes something the
file's tests receive from the project (`observe`).

A mutant on a line no test of the file runs is Unexercised at once. Every other mutant's tests run
observed (the observer costs a fraction of a test's time; a re-run of each survivor would double
the cost of the survivors, which are most of it). Survivors' verdicts are held back; two observed
runs of the original code give each test's digests: the first before the mutants (it also tells
each test's time when observed, see `observe_original`), the second once every mutant has run. A
survivor for which every one of its tests received exactly what it received from the original (in
both runs) is Unexercised: the file's inputs never make that code matter, so its tests are not
charged for it. A value that differs between the two runs of the original (an input holding
`datetime.now()`, glom's `test_sample`) proves nothing either way: its observation point is left
out, and the test judged on the points both runs agree on (`steady`). Anything else (a test that
saw a difference, one whose points differ in number between the two runs or all differ, a test
with no digest) keeps the verdict Survived.
"""

from __future__ import annotations

import inspect
import os
import shutil
import tempfile
import types
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from typing import Any

from ..protocol import MutantSpec
from . import through
from .events import Events
from .observations import Seen, read
from .observe import OBSERVE
from .plan import Job
from .pool import Pool
from .protocol import Event, Mode, MutantDone, Status, Unobserved, Verdict
from .split import Group, Running
from .taken import read_ahead

UNRUN = "no test of the file runs its line"
ORIGINAL = ("original code, first run", "original code, second run")
# a test the observer slows past this (x its untraced time + seconds) runs unobserved
OBSERVED_LIMIT = (3.0, 0.02)


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
    ) -> Running:
        OBSERVE.current = job.m.id  # read by the child forked next
        # a run only to prove tests: what they receive decides nothing (`quiet`, `settle`)
        OBSERVE.watching = not job.proof
        return super()._start(running, job, ordered, group)

    def quiet(self, mutant_id: str, verdict: Verdict) -> bool:
        """A survivor whose every test received exactly what it received in the first run of the
        original: `settle` makes it Unexercised unless the second run disagrees with the first
        (`Enough` counts it as none meanwhile, and checks at the end)."""
        tests = verdict.covered_by
        if verdict.status is not Status.SURVIVED or not tests:
            return False
        seen = read(OBSERVE.path(mutant_id))
        return all(t in seen and seen[t].digest == OBSERVE.first.get(t) for t in tests)


@contextmanager
def observing(
    targets: dict[str, str], root: str, tests: list[str], items: Iterable[Any] = ()
) -> Iterator[None]:
    """Children forked inside observe their tests (`OBSERVE` is registered with pytest). What the
    observer reads of the test modules' code (`taken`) is read here once, from the collected
    `items`, not again in every child."""
    OBSERVE.sink = tempfile.mkdtemp(prefix="assay-observe-")
    OBSERVE.targets = frozenset(os.path.realpath(p) for p in targets.values())
    OBSERVE.tests = frozenset(os.path.realpath(os.path.join(root, t.split("::")[0])) for t in tests)
    OBSERVE.catchers = {}  # read again: a worker on standby judges other files next
    OBSERVE.spans = {}
    _read_ahead(items)
    try:
        yield
    finally:
        shutil.rmtree(OBSERVE.sink, ignore_errors=True)
        OBSERVE.sink, OBSERVE.unobserved, OBSERVE.watching = None, frozenset(), True


def _read_ahead(items: Iterable[Any]) -> None:
    """The catchers of each test module and the bytecode tables of its functions and methods."""
    modules = {id(m): m for m in (getattr(item, "module", None) for item in items) if m}
    codes: list[types.CodeType] = []
    for module in modules.values():
        filename = getattr(module, "__file__", None)
        first = len(codes)
        for value in list(vars(module).values()):
            owners = [value, *vars(value).values()] if isinstance(value, type) else [value]
            for owner in owners:
                try:  # a test module's objects may be anything (a hostile `__getattr__`)
                    code = getattr(inspect.unwrap(owner), "__code__", None)
                except Exception:
                    continue
                if isinstance(code, types.CodeType) and code.co_filename == filename:
                    codes.append(code)
        if filename:
            OBSERVE.caught(filename)
            through.read_ahead(codes[first:], OBSERVE.passed(filename))
    read_ahead(codes)


def _original(name: str, target: str, tests: list[str]) -> Job:
    """A job that runs `tests` on the original code (named `name`: the observer's file)."""
    nothing = compile("", "<original>", "exec")
    return Job(
        MutantSpec(name, target, 0, 0, "", 0, 0, 0, "<original>"), tests, nothing, [], Mode.PATCH, 0
    )


def observe_original(
    held: Held,
    make_pool: Callable[[Events], Pool],
    by_id: dict[str, Any],
    target: str,
    duration: dict[str, float],
) -> None:
    """The first observed run of the original code, before any mutant: every test's digests (for
    `settle`) and its time when observed. Held to their untraced time, the tests under mutants
    timed out where the observer slowed them (cachetools' `test_pickle_maxsize` passes a 2000-item
    cache to the project 2000 times): mutants that change nothing counted as killed, each at the
    cost of its deadline. Now a test observed within `OBSERVED_LIMIT` of its untraced time keeps
    the longer of the two as its time (`duration`, its deadline under mutants); one slower than
    that, or stopped at that deadline here, runs unobserved: it has no digest, so a survivor it
    covers stays Survived (never wrongly Unexercised).

    A test is stopped once its CPU time passes that limit (`Children.limits`), not at its deadline
    (`timeout_factor` x the limit + `timeout_s`): from there it runs unobserved whatever it does,
    and the tests after it go on in a new child, as after any hung test. cachetools'
    `test_pickle_maxsize` computed 0.25-0.3 s more in each of 8 files to end the same way."""
    factor, floor = OBSERVED_LIMIT
    pool = make_pool(Originals(held))
    pool.duration = {t: d * factor + floor for t, d in duration.items()}
    pool.limits = dict(pool.duration)
    pool.run(iter([_original(ORIGINAL[0], target, list(by_id))]), by_id)
    slowed = set()
    for test in by_id:
        seconds = pool.cost.get(test)
        if pool.runs.get(test) != 1 or seconds is None or seconds > pool.duration.get(test, 0):
            slowed.add(test)
        elif seconds > duration.get(test, 0.0):
            duration[test] = seconds
    OBSERVE.unobserved = frozenset(slowed)
    OBSERVE.first = {t: seen.digest for t, seen in read(OBSERVE.path(ORIGINAL[0])).items()}
    if slowed:
        limit = f"observed, slower than {factor:g} x its own time + {floor:g} s, or stopped"
        Events.send(held, Unobserved(sorted(slowed, key=list(by_id).index), limit))


def settle(
    held: Held,
    make_pool: Callable[[Events], Pool],
    by_id: dict[str, Any],
    target: str,
) -> set[str]:
    """Run the original code a second time, observed, and send the held survivors' final
    verdicts (the first run was `observe_original`'s); the ids of those that are Unexercised."""
    unexercised: set[str] = set()
    if not held.survived:
        return unexercised
    wanted = {t for ev in held.survived for t in ev.verdict.covered_by}
    tests = [t for t in by_id if t in wanted]
    make_pool(Originals(held)).run(iter([_original(ORIGINAL[1], target, tests)]), by_id)
    first, second = (read(OBSERVE.path(name)) for name in ORIGINAL)
    stable = {t: kept for t, f in first.items() if (kept := steady(f, second.get(t))) is not None}
    for ev in held.survived:
        tests_of = ev.verdict.covered_by
        seen = read(OBSERVE.path(ev.id))
        same = bool(tests_of) and all(
            t in stable and agrees(seen.get(t), stable[t]) for t in tests_of
        )
        verdict = (
            Verdict(
                Status.UNEXERCISED,
                tests_of,
                [],
                ev.verdict.tests_completed,
                f"none of its {len(tests_of)} tests received a different value, exception or"
                f" argument state from the project's code{_left_out(tests_of, stable)}",
            )
            if same
            else ev.verdict
        )
        if same:
            unexercised.add(ev.id)
        Events.send(held, MutantDone(ev.id, verdict, ev.duration_s))
    return unexercised


def steady(first: Seen, second: Seen | None) -> Seen | None:
    """What of a test's observations two runs of the original agree on: all of them, or the
    points that are equal in both (the others None); None when nothing can be compared (no second
    run, points unknown or different in number, or no point equal)."""
    if second is None:
        return None
    if first.digest == second.digest:
        return first
    if first.points is None or second.points is None or len(first.points) != len(second.points):
        return None
    kept = tuple(a if a == b else "" for a, b in zip(first.points, second.points, strict=True))
    return Seen(first.digest, kept) if any(kept) else None


def agrees(seen: Seen | None, stable: Seen) -> bool:
    """Whether a run under a mutant saw what the original's runs agree on (`steady`)."""
    if seen is None:
        return False
    if seen.digest == stable.digest:
        return True
    if stable.points is None or all(stable.points) or seen.points is None:
        return False
    if len(seen.points) != len(stable.points):
        return False
    return all(not k or k == p for k, p in zip(stable.points, seen.points, strict=True))


def _left_out(tests: Iterable[str], stable: dict[str, Seen]) -> str:
    """The tests judged without some of their values (they differ between two runs of the
    original), said in the survivor's reason."""
    parts = []
    for test in tests:
        points = stable[test].points
        if points is not None and not all(points):
            dropped = sum(1 for p in points if not p)
            parts.append(f"{dropped} of {test.rsplit('::', 1)[-1]}'s {len(points)} calls")
    if not parts:
        return ""
    return (
        f"; left out: {', '.join(parts)} into the project (what they received differs between"
        " two runs of the original code)"
    )
