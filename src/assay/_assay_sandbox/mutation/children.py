"""The pool's state and its children: forking one for a job, and the deadlines each one is held to.

Deadlines are per test and held here, in the parent: a child says which test it starts and when
it ends, and each test gets `timeout_factor` x its untraced baseline duration + `timeout_s`. A
child past its deadline is killed (Timeout, naming the test that hung), wherever it is stuck, C
code included.
"""

from __future__ import annotations

import collections
import gc
from collections.abc import Callable, Sequence
from typing import Any

from ..fork import RETRY_FACTOR, fork, waited_of
from ..protocol import MutationJob
from .baseline_record import Baseline
from .defaults import run_defaulted
from .events import Events
from .hint import Hints
from .patch import run_patched
from .plan import Job
from .protocol import LongestMutant, Mode
from .rebind import ImportTime
from .recollect import run_recollected
from .reimport import run_reimported
from .split import Group, Running

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
