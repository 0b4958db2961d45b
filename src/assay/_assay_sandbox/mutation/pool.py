"""Running jobs in forked children, `workers` at a time, and turning each child's end into
a verdict.

Deadlines are per test and held here, in the parent: a child says which test it starts and when
it ends, and each test gets `timeout_factor` x its untraced baseline duration + `timeout_s`. A
child past its deadline is killed (Timeout, naming the test that hung), wherever it is stuck, C
code included.

Order of the tests of one mutant: it stops at its first failing test, so the expected cost is least
when tests run by duration / probability of killing (Smith's rule): a test that killed a mutant on
the same line is likely to kill again, one that killed in the same function less so, one whose name
holds the words of the mutated line may (`hint`), one that ran often and never killed is not; a slow
test runs last unless it is by far the likeliest killer. Tests that wrote module state in the
baseline run before the others, in collection order (see `plan`).

That order is learned while the run goes, so it differs between runs; the verdict must not. A test
that hangs does not end its mutant: a new child runs the tests after it (those that passed before it
are done), and so on past each hang, up to `MAX_SPLITS`. Killed when any covering test fails,
Timeout when one hangs and none fails, whichever comes first in this run's order. Each hang costs
its deadline; a mutant whose tests all hang pays them all.

A test far slower under a mutant than in the baseline (a retry loop now sleeping, see `split`) does
not hold the mutant up either: its child keeps running that test alone while a new child runs the
tests after it, with the same verdict rule.
"""

from __future__ import annotations

import collections
import gc
import time
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from ..fork import RETRY_FACTOR, cpu_ticks, fork, idle, waited_of, watch
from ..protocol import MutantSpec, MutationJob
from .baseline_record import Baseline
from .defaults import run_defaulted
from .events import Events
from .hint import Hints
from .patch import run_patched
from .plan import Job, Settled
from .protocol import Cost, Heartbeat, LongestMutant, Mode, MutantDone, Status, TestCost, Verdict
from .rebind import ImportTime
from .recollect import run_recollected
from .reimport import run_reimported
from .shapes import Outcome
from .split import IDLE_WINDOW_S, MAX_CHILDREN, MAX_SPLITS, Group, Running, split_after

SAME_LINE_P = 0.9  # chance that a test that killed a mutant on this line kills the next one
# ... one that killed a mutant elsewhere in the same function (or module body)
SAME_FUNCTION_P = 0.6


# what a new pytest session in a child costs beyond the worker's own collection
FRESH_SESSION_S = 2.0
# how far the deadlines follow the pace of the tests now against the baseline
PACE_RANGE = (1 / 3, 10.0)


def pace(ratios: Sequence[float]) -> float:
    """How much slower tests pass now than in the baseline: the median of `ratios` (a test's time in
    a child over its baseline time), within `PACE_RANGE`; 1 until there are 8. Above 1 the machine
    got busier, and slow tests must not turn into false timeouts; below 1 the baseline ran on a
    busier machine, and its inflated durations must not make every hang cost ten times that much
    (more-itertools' `test_primes`: 71 s in a baseline taken beside another run, 24 s alone)."""
    if len(ratios) < 8:
        return 1.0
    low, high = PACE_RANGE
    return min(high, max(low, sorted(ratios)[len(ratios) // 2]))


class Pool:
    def __init__(
        self,
        cfg: MutationJob,
        events: Events,
        import_time: Callable[[], ImportTime],
        baseline: Baseline,
        collection_s: float,
        sites: dict | None = None,
    ) -> None:
        self.cfg = cfg
        self.events = events
        self._make_import_time = import_time  # builds the ImportTime, at the first rebind job
        self._import_time: ImportTime | None = None
        self.duration = baseline.duration
        self.collection_s = collection_s
        self.kills: dict[str, int] = {}
        self.runs: dict[str, int] = {}
        self.cost: dict[str, float] = {}  # seconds spent in each test over all mutants
        self.line_killers: dict[tuple[str, int], set[str]] = {}
        self.function_killers: dict[tuple[str, str], set[str]] = {}
        self.longest = LongestMutant("", 0.0)
        self.beat = 0.0
        # child / baseline s, passed tests
        self.ratios: collections.deque[float] = collections.deque(maxlen=64)
        self.pending: list[Job] = []
        # mutants whose set-up timed out once: a busy machine, or a real hang
        self.retried: set[str] = set()
        self.hints = Hints(cfg.targets, sites)
        # every test id the worker collected: one a child finds anew is a mutant's
        self.known: set[str] = set()
        # job mode -> seconds from fork to the first test, last seen
        self.setup_s: dict[str, float] = {}
        self.by_id: dict[str, Any] = {}  # node id -> pytest item
        self.workers = max(1, cfg.workers)
        self.split_mutants = 0  # mutants whose tests ran in more than one child, a slow test apart
        # jobs drawn, by how the mutant is applied
        self.modes: collections.Counter[Mode] = collections.Counter()
        self.with_state = 0  # jobs whose first tests write module state

    def budget(self, nodeid: str) -> float:
        return (
            self.cfg.timeout_factor * self.duration.get(nodeid, 0.0) * pace(self.ratios)
            + self.cfg.timeout_s
        )

    @property
    def import_time(self) -> ImportTime:
        if self._import_time is None:
            self._import_time = self._make_import_time()
            gc.freeze()  # shared with every child from now on, as what `run` froze
        return self._import_time

    def run(self, steps: Iterator[Job | Settled], by_id: dict[str, Any]) -> None:
        """`steps`: the plan's, one at a time; the next job is drawn (compiled) while the children
        run, a settled mutant's verdict is sent as it is drawn."""
        # Everything alive now is shared with every child: keep the collector from walking (and so
        # copying) those pages in each child.
        gc.freeze()
        fresh = iter(steps)
        # drawn before a slot frees: its compile overlaps the children's runs
        ahead = self._draw(fresh)
        running: dict[int, Running] = {}
        position = {nodeid: i for i, nodeid in enumerate(by_id)}
        self.by_id = by_id
        self.known = set(by_id)
        while self.pending or running or ahead is not None:
            while (
                (self.pending or ahead is not None)
                and self._busy(running) < self.workers
                and len(running) < MAX_CHILDREN * self.workers
            ):
                if self.pending:
                    job = self.pending.pop()
                elif ahead is not None:
                    job, ahead = ahead, self._draw(fresh)
                    self.modes[job.mode] += 1
                    self.with_state += job.first > 0
                rest = job.ordered[job.first :]
                # looking for more than one killer (which test kills what, gate 4): file order,
                # so that the same killers are found in every run; else the cheapest expected
                # kill first
                rest = (
                    sorted(rest, key=position.__getitem__)
                    if self.cfg.killers > 1
                    else self.order(job.m, rest)
                )
                ordered = job.ordered[: job.first] + rest
                self._start(running, job, ordered, Group(ordered, time.monotonic()))
            self._step(running)

    def _draw(self, steps: Iterator[Job | Settled]) -> Job | None:
        """The next job; the settled mutants before it get their verdicts now."""
        for step in steps:
            if isinstance(step, Job):
                return step
            self.events.send(MutantDone(step.m.id, step.verdict))
        return None

    def _start(
        self, running: dict[int, Running], job: Job, ordered: list[str], group: Group
    ) -> None:
        items = [self.by_id[i] for i in ordered]
        killers = self.cfg.killers
        if job.mode is Mode.PATCH:
            child = fork(
                lambda report, p=job.patches, it=items: run_patched(p, it, report, killers)
            )
        elif job.mode is Mode.DEFAULTS:
            child = fork(
                lambda report, p=job.patches, it=items: run_defaulted(p, it, report, killers)
            )
        elif job.mode is Mode.RECOLLECT:
            child = fork(
                lambda report, j=job, it=items: run_recollected(
                    j.patches, it, j.files, report, killers, j.first
                )
            )
        elif job.mode is Mode.REBIND:
            # built here, in the parent, once: the child only uses it
            import_time = self.import_time
            child = fork(
                lambda report, j=job, it=items: import_time.run(
                    j.m, j.code, it, report, j.first > 0
                )
            )
        else:
            child = fork(
                lambda report, j=job, o=ordered: run_reimported(
                    self.cfg, j.m, j.code, o, report, self.known, j.first
                )
            )
        # a fresh import and collection in the child also pays pytest's start-up (plugins,
        # entry points)
        setup = self.cfg.timeout_s + (
            0
            if job.mode.in_place
            else self.collection_s * 2 + (0 if job.mode is Mode.RECOLLECT else FRESH_SESSION_S)
        )
        setup *= RETRY_FACTOR if job.m.id in self.retried else 1.0
        # a forked child starts with no wait
        running[child.pid] = Running(
            job,
            child,
            ordered,
            group,
            deadline=child.started + setup,
            budget=setup,
            since=child.started,
        )
        group.live.add(child.pid)

    @staticmethod
    def _busy(running: dict[int, Running]) -> int:
        """Children holding a core: one left alone with a test that sleeps does not."""
        return sum(not s.idle for s in running.values())

    def order(self, m: MutantSpec, ordered: list[str]) -> list[str]:
        """Cheapest expected cost first: duration / chance of killing (learned, or hinted by the
        test's name)."""
        same_line = self.line_killers.get((m.file, m.line), ())
        same_function = self.function_killers.get((m.file, m.function), ())
        hinted = self.hints.chances(m, ordered)

        def key(nodeid: str) -> tuple[float, str]:
            p = (
                SAME_LINE_P
                if nodeid in same_line
                else max(
                    SAME_FUNCTION_P if nodeid in same_function else 0.0,
                    hinted.get(nodeid, 0.0),
                    (self.kills.get(nodeid, 0) + 0.5) / (self.runs.get(nodeid, 0) + 1),
                )
            )
            return (self.duration.get(nodeid, 0.0) + 1e-4) / p, nodeid

        return sorted(ordered, key=key)

    def _on_line(self, state: Running, msg: dict[str, Any]) -> None:
        if state.stopped:
            return
        now = time.monotonic()
        # the engine's idle watchdog: tests are finishing, slow as they may be
        if now - self.beat > 5:
            self.beat = now
            self.events.send(Heartbeat())
        if "next" in msg:
            state.test = msg["next"]
            state.budget = self.budget(msg["next"])
            if not state.begun:
                state.begun = True
                self.setup_s[state.job.mode] = now - state.child.started
            if state.solo is None and self.cfg.killers == 1 and state.group.splits < MAX_SPLITS:
                state.check = now + split_after(
                    self.duration.get(msg["next"], 0.0) * pace(self.ratios),
                    self.setup_s.get(state.job.mode, 0.0),
                    state.group.splits,
                )
                state.cpu = None
        else:
            nodeid = msg["done"]
            # a failing test may stop early: only passing ones (of 5 ms or more) tell the pace
            if self.duration.get(nodeid, 0.0) >= 0.005 and not msg.get("failed"):
                self.ratios.append(msg["s"] / self.duration[nodeid])
            self.cost[nodeid] = self.cost.get(nodeid, 0.0) + msg["s"]
            self.runs[nodeid] = self.runs.get(nodeid, 0) + 1
            state.test = None
            # between tests, or after the last: a fresh pytest session (re-import) also reports and
            # tears down
            fresh = state.job.mode not in (Mode.PATCH, Mode.DEFAULTS, Mode.RECOLLECT)
            state.budget = self.cfg.timeout_s + (FRESH_SESSION_S if fresh else 0.0)
            state.budget *= RETRY_FACTOR if state.job.m.id in self.retried else 1.0
            state.check = None
            state.group.done += 1
        state.since = now
        state.deadline = now + state.budget
        state.waited, state.granted = msg.get("w"), 0.0
        if "done" in msg and state.solo == msg["done"] and not msg.get("failed"):
            state.stopped = True  # its one test passed: the tests after it are another child's
            state.deadline = now

    def _step(self, running: dict[int, Running]) -> None:
        """Wait until at least one child ends or passes its deadline (freed slots fill at
        once); verdicts."""

        # a test that started meanwhile may be due for a look before the others
        def wake() -> float | None:
            return min((s.check for s in running.values() if s.check is not None), default=None)

        ended = watch(
            [s.child for s in running.values()],
            lambda c: running[c.pid].deadline,
            lambda c, msg: self._on_line(running[c.pid], msg),
            first_only=True,
            wake=wake,
            grace=lambda c: self._grace(running[c.pid]),
        )
        states = {pid: running.pop(pid) for pid in ended}
        for pid, (how, result) in ended.items():
            group = states[pid].group
            group.live.discard(pid)
            if group.over:
                continue
            # a test that hung goes the group's way (the tests after it run on); a hang in set-up
            # is retried
            if group.splits or (how == "timeout" and states[pid].test is not None):
                self._group_verdict(states[pid], how, result, running)
            else:
                self._verdict(states[pid], how, result)
        self._split_slow(running)

    @staticmethod
    def _grace(state: Running) -> bool:
        """A child at its deadline gets the time it spent waiting for a core since its test began
        (other processes held them): on a busy machine a test is not a hang for that. True if it
        moved the deadline."""
        if state.waited is None or state.stopped:
            return False
        now = waited_of(state.child.pid)
        owed = 0.0 if now is None else now - state.waited - state.granted
        if owed < 0.01:
            return False
        state.granted += owed
        state.deadline += owed
        return True

    def _split_slow(self, running: dict[int, Running]) -> None:
        """A child whose test runs far past its baseline time keeps that test alone; a new child
        runs the tests after it (writers first). Only when a core is free, or the slow test leaves
        its core idle."""
        now = time.monotonic()
        for state in list(running.values()):
            if state.check is None or state.check > now or state.group.over:
                continue
            state.check = None
            job, ordered, test = state.job, state.ordered, state.test
            index = ordered.index(test) if test in ordered else -1
            if test is None or index < job.first or index + 1 == len(ordered):
                continue
            ticks = cpu_ticks(state.child.pid)
            # /proc is read for slow tests only: first look
            if state.cpu is None and ticks is not None:
                state.cpu, state.check = (ticks, now), now + IDLE_WINDOW_S
                continue
            sleeping = state.cpu is not None and idle(ticks, state.cpu[0], now - state.cpu[1])
            if len(running) >= MAX_CHILDREN * self.workers or (
                not sleeping and self._busy(running) >= self.workers
            ):
                # no core yet
                state.cpu, state.check = ((ticks, now) if ticks is not None else None, now + 0.25)
                continue
            state.solo, state.idle = test, sleeping
            rest = self._rest(state.group, test, ordered[index + 1 :])
            # a second test of this mutant sleeping: the tests after it go to two children, side
            # by side
            halves = (
                [rest[: len(rest) // 2], rest[len(rest) // 2 :]]
                if sleeping
                and state.group.splits
                and len(rest) > 1
                and len(running) + 2 <= MAX_CHILDREN * self.workers
                else [rest]
            )
            for half in halves:
                self._split(running, state.group, job, ordered[: job.first] + half)

    @staticmethod
    def _rest(group: Group, slow: str, rest: list[str]) -> list[str]:
        """The tests after a slow one, those of its class (or module) last: they share its set-up
        and its calls, so the mutant likely slows them too."""
        group.slow.add(slow.rpartition("::")[0])
        return sorted(rest, key=lambda nodeid: nodeid.rpartition("::")[0] in group.slow)

    def _split(
        self, running: dict[int, Running], group: Group, job: Job, ordered: list[str]
    ) -> None:
        self.split_mutants += not group.splits
        group.splits += 1
        self._start(running, job, ordered, group)

    def _group_verdict(
        self, state: Running, how: str, result: dict[str, Any], running: dict[int, Running]
    ) -> None:
        """One child of a split mutant ended: Killed (or a broken module) ends the mutant at once;
        else the verdict waits for the others: Timeout if a test hung (the tests after it go on in a
        new child), else Survived."""
        group, job = state.group, state.job
        m, took = job.m, time.monotonic() - group.started
        verdict: Verdict | None = None
        if how == "timeout" and state.stopped:
            pass
        elif how == "timeout":
            hung = state.test
            reason = self._hang_reason(hung, state, job)
            if hung is not None:
                self.cost[hung] = self.cost.get(hung, 0.0) + time.monotonic() - state.since
            if group.hang is None:
                group.hang = Verdict(
                    Status.TIMEOUT, group.ordered, [hung] if hung else [], reason=reason
                )
            ordered = state.ordered
            index = ordered.index(hung) if hung in ordered else -1
            if (
                hung is not None
                and state.solo is None
                and group.splits < MAX_SPLITS
                and index >= job.first
                and index + 1 < len(ordered)
            ):
                self._split(
                    running,
                    group,
                    job,
                    ordered[: job.first] + self._rest(group, hung, ordered[index + 1 :]),
                )
        elif (outcome := Outcome.of(result)).crash is not None:
            verdict = Verdict(Status.RUNTIME_ERROR, state.ordered, reason=outcome.crash)
        elif outcome.import_error is not None:
            verdict = Verdict(
                Status.RUNTIME_ERROR,
                state.ordered,
                reason=f"the module body raises at import: {outcome.import_error}",
            )
        elif outcome.equivalent is not None:
            verdict = Verdict(Status.IGNORED, reason=outcome.equivalent)
        elif outcome.killed_by:
            self._learn(m, outcome.killed_by[0])
            verdict = Verdict(Status.KILLED, group.ordered, outcome.killed_by, group.done)
        if verdict is None and not group.live:
            verdict = (
                Verdict(
                    Status.TIMEOUT,
                    group.ordered,
                    group.hang.killed_by,
                    group.done,
                    group.hang.reason,
                )
                if group.hang
                else Verdict(Status.SURVIVED, group.ordered, [], group.done)
            )
        if verdict is None:
            return
        group.over = True
        for pid in list(group.live):
            if pid in running:
                running.pop(pid).child.kill()
        if took > self.longest.seconds:
            self.longest = LongestMutant(m.id, took)
        self.events.send(MutantDone(m.id, verdict, took))

    def _hang_reason(self, hung: str | None, state: Running, job: Job) -> str:
        if hung is None:
            what = "the tests' setup" if job.mode.in_place else "the mutant's module body re-run"
            return f"{what} did not finish within {state.budget:.1f}s"
        now = pace(self.ratios)
        waiting = (
            f", and {state.granted:.1f}s it waited for a core" if state.granted >= 0.05 else ""
        )
        return (
            f"{hung} did not finish within {state.budget:.1f}s ({self.cfg.timeout_factor:g} x "
            f"{self.duration.get(hung, 0.0):.3f}s{f' x {now:.2f} (pace)' if now != 1 else ''}"
            f" + {self.cfg.timeout_s:g}s{waiting})"
        )

    def _learn(self, m: MutantSpec, killer: str) -> None:
        self.kills[killer] = self.kills.get(killer, 0) + 1
        self.line_killers.setdefault((m.file, m.line), set()).add(killer)
        self.function_killers.setdefault((m.file, m.function), set()).add(killer)

    def _verdict(self, state: Running, how: str, result: dict[str, Any]) -> None:
        job, child = state.job, state.child
        m, ordered = job.m, state.ordered
        took = time.monotonic() - child.started
        if took > self.longest.seconds:
            self.longest = LongestMutant(m.id, took)
        if how == "timeout":  # in its set-up, before any test: no test to blame
            if m.id not in self.retried:  # first try again, with more time
                self.retried.add(m.id)
                self.pending.append(job)
                return
            verdict = Verdict(Status.TIMEOUT, ordered, reason=self._hang_reason(None, state, job))
        elif (outcome := Outcome.of(result)).crash is not None:
            verdict = Verdict(Status.RUNTIME_ERROR, ordered, reason=outcome.crash)
        elif outcome.import_error is not None:
            verdict = Verdict(
                Status.RUNTIME_ERROR,
                ordered,
                reason=f"the module body raises at import: {outcome.import_error}",
            )
        elif outcome.equivalent is not None:
            verdict = Verdict(Status.IGNORED, reason=outcome.equivalent)
        else:
            for killer in outcome.killed_by[:1]:
                self._learn(m, killer)
            verdict = Verdict(
                Status.KILLED if outcome.killed_by else Status.SURVIVED,
                ordered if outcome.selected is None else outcome.selected,
                outcome.killed_by,
                outcome.tests_completed,
            )
        self.events.send(MutantDone(m.id, verdict, took))

    def summary(self, total_s: float) -> Cost:
        """The `cost` event: the five tests that cost the most over all mutants, and the
        longest mutant."""
        spent = sum(self.cost.values()) or 1.0
        top = sorted(self.cost.items(), key=lambda kv: -kv[1])[:5]
        return Cost(
            tests_s=round(sum(self.cost.values()), 3),
            mutants_s=round(total_s, 3),
            slowest=[
                TestCost(
                    nodeid,
                    round(self.duration.get(nodeid, 0.0), 4),
                    self.runs.get(nodeid, 0),
                    round(s, 3),
                    round(s / spent, 4),
                )
                for nodeid, s in top
            ],
            longest_mutant=LongestMutant(self.longest.id, round(self.longest.seconds, 3)),
            split_mutants=self.split_mutants,
        )
