"""The pool's state and its children: forking one for a job, and the deadlines each one is held to.

Deadlines are per test and held here, in the parent: a child says which test it starts and when
it ends. A test may compute `timeout_factor` x its untraced baseline duration (x pace) +
`timeout_s` seconds of CPU (2 x + 0.5 s by default, Stryker's rule on CPU time): a mutant that
loops forever costs about half a second more than the test itself, not the old 5 s + 10 x. CPU time,
read from `/proc/<pid>/stat`, is what makes a tight deadline safe: a child waiting for a core on a
busy machine, or sleeping, or waiting on a subprocess or the disk, uses none. A test that sleeps or
blocks past `timeout_factor` x its time (x pace) + `WALL_EXTRA` x `timeout_s` (1 s by default) in
wall time, less the time it waited for a core, is a hang too - unless it, or a process it started,
still computes (a quarter of a core or more since the last look): then it may go on up to
`WALL_FACTOR` x its CPU budget. A sleeping hang (a retry loop that never ends) so costs about a
second beyond the test's own time, not ten times its budget. A child past its deadline is killed
(Timeout, naming the test that hung), wherever it is stuck, C code included. Where /proc can not
say, only the wall-clock deadline holds.
"""

from __future__ import annotations

import collections
import gc
import time
from collections.abc import Callable, Sequence
from typing import Any

from ..fork import RETRY_FACTOR, TICK_S, cpu_s, family_ticks, fork, idle, waited_of
from ..protocol import MutationJob
from .baseline_record import Baseline
from .blocked import blocked_for_good
from .defaults import run_defaulted
from .enough import Enough
from .events import Events
from .hint import Hints
from .patch import run_patched
from .plan import Job
from .protocol import Heartbeat, LongestMutant, Mode
from .rebind import ImportTime
from .recollect import run_recollected
from .reimport import run_reimported
from .split import Group, Running

# what a new pytest session in a child costs beyond the worker's own collection
FRESH_SESSION_S = 2.0
# a test that sleeps or blocks may take `timeout_factor` x its time + this many times `timeout_s`
# in wall time
WALL_EXTRA = 4.0
# ... and, while it or a process it started computes, this many times its CPU budget; a child's
# set-up and the gap between two tests, this many times `timeout_s`
WALL_FACTOR = 10.0
# a set-up past its deadline that used this share of it on CPU computed throughout: a hang (a
# mutated module body that loops at import), not a slow start on a busy machine; not retried
SETUP_COMPUTED = 0.5
BEAT_S = 5.0  # the least time between two heartbeats (the engine's idle watchdog: 4 x the timeout)
PROGRESS_LOOK_S = 0.25  # how often a test past its wall backstop is looked at again
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


class Children:
    """What `Pool` holds, and how it starts a child and moves its deadline."""

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
        # test functions that killed a mutant (`PROVE_EACH_TEST`: they need not meet every mutant)
        self.proven: set[str] = set()
        self.enough: Enough | None = None  # gate 4's early stop, told each counted verdict
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
        # (job mode, mutated file) -> CPU seconds from fork to the first test, the most seen
        self.setup_cpu: dict[tuple[Mode, str], float] = {}
        self.by_id: dict[str, Any] = {}  # node id -> pytest item
        self.workers = max(1, cfg.workers)
        self.split_mutants = 0  # mutants whose tests ran in more than one child, a slow test apart
        self.hangs_in_a_row = 0  # the most hangs one after another in one mutant's children
        # jobs drawn, by how the mutant is applied
        self.modes: collections.Counter[Mode] = collections.Counter()
        self.with_state = 0  # jobs whose first tests write module state
        # node id -> CPU seconds past which the test is stopped whatever its budget: in the first
        # observed run of the original, the time past which it runs unobserved anyway
        # (`exercised.observe_original`)
        self.limits: dict[str, float] = {}

    def budget(self, nodeid: str) -> float:
        """CPU seconds the test may use under a mutant."""
        return (
            self.cfg.timeout_factor * self.duration.get(nodeid, 0.0) * pace(self.ratios)
            + self.cfg.timeout_s
        )

    def backstop(self, nodeid: str) -> float:
        """Wall seconds the test may take while it sleeps or blocks (see the module's doc)."""
        return (
            self.cfg.timeout_factor * self.duration.get(nodeid, 0.0) * pace(self.ratios)
            + WALL_EXTRA * self.cfg.timeout_s
        )

    def begin_test(self, state: Running, nodeid: str) -> None:
        """The child started `nodeid`: its CPU budget, its wall backstop, its CPU time now (its
        own, and its family's: the progress a test past its backstop makes)."""
        state.test = nodeid
        state.budget = self.budget(nodeid)
        limit = self.limits.get(nodeid)
        if limit is not None:  # two ticks past it: its CPU then surely went beyond the limit
            state.budget = min(state.budget, limit + 2 * TICK_S)
        state.backstop = self.backstop(nodeid)
        state.cpu_start = cpu_s(state.child.pid)
        state.family = (family_ticks(state.child.pid), time.monotonic())
        state.hung = ""

    @property
    def step_s(self) -> float:
        """Wall seconds of a step that is not a test: a child's set-up, the gap after a test."""
        return WALL_FACTOR * self.cfg.timeout_s

    @property
    def import_time(self) -> ImportTime:
        if self._import_time is None:
            self._import_time = self._make_import_time()
            gc.freeze()  # shared with every child from now on, as what `run` froze
        return self._import_time

    def _start(
        self, running: dict[int, Running], job: Job, ordered: list[str], group: Group
    ) -> Running:
        items = [self.by_id[i] for i in ordered]
        hunt = group.hunt
        if job.mode is Mode.PATCH:
            child = fork(lambda report, p=job.patches, it=items: run_patched(p, it, report, hunt))
        elif job.mode is Mode.DEFAULTS:
            child = fork(lambda report, p=job.patches, it=items: run_defaulted(p, it, report, hunt))
        elif job.mode is Mode.RECOLLECT:
            child = fork(
                lambda report, j=job, it=items: run_recollected(
                    j.patches, it, j.files, report, hunt, j.first
                )
            )
        elif job.mode is Mode.REBIND:
            # built here, in the parent, once: the child only uses it
            import_time = self.import_time
            child = fork(
                lambda report, j=job, it=items: import_time.run(
                    j.m, j.code, it, report, hunt, j.first > 0
                )
            )
        else:
            child = fork(
                lambda report, j=job, o=ordered, it=items: run_reimported(
                    self.cfg, j.m, j.code, o, report, self.known, hunt, j.first, it
                )
            )
        # a fresh import and collection in the child also pays pytest's start-up (plugins,
        # entry points)
        setup = self.step_s + (
            0
            if job.mode.in_place
            else self.collection_s * 2 + (0 if job.mode is Mode.RECOLLECT else FRESH_SESSION_S)
        )
        setup *= RETRY_FACTOR if job.m.id in self.retried else 1.0
        # on CPU, what a set-up like it took (`setup_cpu`) as a test's budget: a module body that
        # loops at import costs about a second, not the whole wall-clock set-up
        seen = self.setup_cpu.get((job.mode, job.m.file))
        cpu = (
            None
            if seen is None
            else self.cfg.timeout_factor * seen + WALL_EXTRA * self.cfg.timeout_s
        )
        # a forked child starts with no wait
        state = running[child.pid] = Running(
            job,
            child,
            ordered,
            group,
            deadline=child.started + (setup if cpu is None else min(setup, cpu)),
            budget=setup,
            since=child.started,
            setup_cpu=cpu,
        )
        group.live.add(child.pid)
        return state

    @staticmethod
    def _busy(running: dict[int, Running]) -> int:
        """Children holding a core: one left alone with a test that sleeps does not."""
        return sum(not s.idle for s in running.values())

    def _grace(self, state: Running) -> bool:
        """A child at its deadline goes on (True: its deadline moved) while it is not known to hang:
        a test's deadline is on CPU time, with a wall-clock backstop; any other step's, wall time.
        Either way, the time it spent waiting for a core (other processes held them) is owed."""
        if self._owed(state):
            # the child waited for a core: the machine is busy, the worker is not stuck
            self._heartbeat()
            return True
        if state.stopped:
            return False
        if state.test is None:
            return self._setup_grace(state) if not state.begun else False
        now = time.monotonic()
        backstop = state.since + state.backstop + state.granted
        used = cpu_s(state.child.pid)
        if used is not None and state.cpu_start is not None:
            used -= state.cpu_start
            if used + TICK_S >= state.budget:
                state.hung = "cpu"
                return False
        else:
            used = None
        if blocked_for_good(state.child.pid):
            state.hung = "blocked"  # what its backstop would say, sooner
            return False
        if now >= backstop:
            # still computing, itself or through a process it started: the backstop moves on
            limit = WALL_FACTOR * state.budget
            if state.backstop < limit and self._progressing(state, now):
                moved = now + PROGRESS_LOOK_S - state.since - state.granted
                state.backstop = min(limit, max(state.backstop, moved))
                state.deadline = state.since + state.backstop + state.granted
                return True
            state.hung = "wall"
            return False
        # it slept or blocked for part of the time: look again when it could have used its budget
        state.deadline = backstop if used is None else min(backstop, now + state.budget - used)
        return True

    def _setup_grace(self, state: Running) -> bool:
        """A set-up at its deadline: past its CPU budget (`setup_cpu`), or through its wall time
        while it computed, it hangs (`hung` "cpu": more time, a retry, would be spent the same way);
        else it goes on to the nearer of the two."""
        used = cpu_s(state.child.pid)
        state.cpu_start = used
        wall = state.since + state.budget + state.granted
        if used is not None and state.setup_cpu is not None:
            if used + TICK_S >= state.setup_cpu:
                state.hung = "cpu"
                return False
            if time.monotonic() < wall:
                state.deadline = min(wall, time.monotonic() + state.setup_cpu - used)
                return True
        if used is not None and used >= SETUP_COMPUTED * state.budget:
            state.hung = "cpu"
        return False

    def _heartbeat(self) -> None:
        """Feed the engine's idle watchdog (at most every `BEAT_S`): the worker decides on."""
        now = time.monotonic()
        if now - self.beat > BEAT_S:
            self.beat = now
            self.events.send(Heartbeat())

    @staticmethod
    def _progressing(state: Running, now: float) -> bool:
        """Whether the child and the processes under it used a quarter of a core or more since
        the last look (the test's start, at first)."""
        ticks, (before, then) = family_ticks(state.child.pid), state.family
        state.family = (ticks, now)
        return ticks is not None and before is not None and not idle(ticks, before, now - then)

    @staticmethod
    def _owed(state: Running) -> bool:
        """Moves the deadline by the time the child waited for a core since its step began. True
        if it moved the deadline."""
        if state.waited is None or state.stopped:
            return False
        now = waited_of(state.child.pid)
        owed = 0.0 if now is None else now - state.waited - state.granted
        if owed < 0.01:
            return False
        state.granted += owed
        state.deadline += owed
        return True
