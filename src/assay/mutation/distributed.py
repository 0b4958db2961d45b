"""`assay mutate` on a Dask cluster: the mutants still to run, in batches, each on a worker of
its own.

The parent does what it does locally (generate the mutants, read the cache, write it, report); only
the step that runs mutants changes. It packs the project tree once (`execution.shipping`), sends it
to every worker once, and splits the mutants into batches by function (a function's mutants share a
warm worker), balanced by count, two per worker so a slow batch does not idle the others. On the
worker `run_batch` unpacks the tree (once per tree and machine), makes the usual scratch workspace
and sandbox from it, and runs the engine for the batch's mutant ids with no store. Its events come
back as they would from the local worker and go through the same loop, so verdicts, cache entries
and reports are those of a local run. Each batch runs the baseline again (the coverage that picks
the tests of each mutant is the worker's own).
"""

from __future__ import annotations

import json
import pickle
import socket
import time
import zlib
from collections.abc import Callable
from concurrent.futures import Future, as_completed
from dataclasses import dataclass, field
from typing import Any

from assay._assay_sandbox.mutation.protocol import (
    BaselineProgress,
    Cost,
    Done,
    Event,
    Heartbeat,
    Jobs,
    LongestMutant,
    MutantDone,
    Plan,
    Progress,
    Sampled,
    Stopped,
    TestCost,
    Unobserved,
    WorkerError,
    event_of,
)
from assay.config import Settings, settings_from_dict
from assay.execution.executor import Pool
from assay.execution.shipping import PackedTree, materialize, pack
from assay.execution.workspace import Workspace
from assay.languages.python import PYTHON
from assay.mutation.engine import Engine, MutationError
from assay.mutation.model import Mutant
from assay.sandbox import Sandbox
from assay.store import Store

Events = list[Event]


@dataclass(frozen=True)
class MutantBatch:
    """What a worker needs to run one batch, besides the shipped tree; plain data, pickled to
    the worker."""

    settings: dict[str, Any]  # Settings as JSON: the worker validates them again
    source_roots: list[str]
    pytest_args: list[str]
    targets: list[str]
    tests: list[str]
    ids: list[str]
    deselect: list[str]
    killers: int = 1
    scoped: bool = False
    durations: dict[str, float] | None = None
    observe: bool = False
    sample: int = 0  # this batch's share of the run's sample


@dataclass
class BatchResult:
    """The worker events of one batch (as the local worker writes them), and what it cost. The
    events travel compressed: a mutant's `covered_by` lists test ids that repeat from mutant to
    mutant (inflection: 10 KB per mutant as JSON, a twentieth of that compressed)."""

    packed: bytes  # zlib of the events as JSON
    wall_s: float
    unpacked: bool  # False: the shipped tree was already on that machine
    host: str

    @classmethod
    def of(cls, events: Events, wall_s: float, unpacked: bool) -> BatchResult:
        plain = json.dumps([ev.to_dict() for ev in events]).encode()
        return cls(zlib.compress(plain, 6), wall_s, unpacked, socket.gethostname())

    @property
    def events(self) -> Events:
        return [event_of(data) for data in json.loads(zlib.decompress(self.packed))]


@dataclass
class BatchCost:
    """Per batch, seen from the parent: mutants, seconds on the worker, seconds in total, pickled
    result bytes."""

    mutants: int
    worker_s: float
    total_s: float
    result_bytes: int
    unpacked: bool
    host: str


def run_batch(tree: PackedTree, batch: MutantBatch) -> BatchResult:
    """The unit of work a Dask worker runs: one batch of mutants in a scratch copy of the
    shipped tree."""
    start = time.monotonic()
    settings = settings_from_dict(batch.settings, "the parent's settings")
    # `batch.deselect` already holds them
    conf = settings.mutation.model_copy(update={"deselect": []})
    shipped = materialize(tree)
    events: Events = []
    with Workspace(shipped.path) as ws:
        engine = Engine(
            ws,
            Sandbox(settings.sandbox, protect=shipped.path),
            PYTHON.python(settings),
            batch.source_roots,
            conf,
            batch.pytest_args,
        )
        engine.run(
            batch.targets,
            batch.tests,
            scoped=batch.scoped,
            progress=events.append,
            durations=batch.durations,
            deselect=batch.deselect,
            killers=batch.killers,
            only=batch.ids,
            observe=batch.observe,
            sample=batch.sample,
        )
    kept = [
        ev for ev in events if not isinstance(ev, (Plan, Progress, Heartbeat, BaselineProgress))
    ]
    return BatchResult.of(kept, time.monotonic() - start, not shipped.reused)


def batches(mutants: list[Mutant], count: int) -> list[list[Mutant]]:
    """`mutants` in at most `count` batches balanced by count: a function's mutants stay together
    unless they are more than a batch's share (a module's top-level tables), the largest pieces
    first into the smallest."""
    groups: dict[tuple[str, str], list[Mutant]] = {}
    for m in mutants:
        groups.setdefault((m.file, m.function), []).append(m)
    share = max(1, -(-len(mutants) // max(1, count)))
    pieces = [
        group[i : i + share] for group in groups.values() for i in range(0, len(group), share)
    ]
    bins: list[list[Mutant]] = [[] for _ in range(max(1, min(count, len(pieces))))]
    for piece in sorted(pieces, key=len, reverse=True):
        min(bins, key=len).extend(piece)
    return [b for b in bins if b] or [[]]


class DistributedEngine(Engine):
    """An Engine whose mutants run in batches on the workers of `pool` (a Dask cluster)."""

    def __init__(
        self,
        pool: Pool,
        settings: Settings,
        workspace: Workspace,
        sandbox: Sandbox,
        python: str,
        source_roots: list[str],
        pytest_args: list[str],
        store: Store | None,
    ):
        super().__init__(
            workspace, sandbox, python, source_roots, settings.mutation, pytest_args, store
        )
        self.pool = pool
        self.settings = settings
        self.tree: PackedTree | None = None  # the tree shipped by the last run
        self.costs: list[BatchCost] = []

    @classmethod
    def on(cls, pool: Pool, settings: Settings, engine: Engine) -> DistributedEngine:
        """`engine` (as made for a local run) with its mutants run on `pool`."""
        return cls(
            pool,
            settings,
            engine.ws,
            engine.sandbox,
            engine.python,
            engine.source_roots,
            engine.pytest_args,
            engine.store,
        )

    def _worker(
        self,
        mutants: list[Mutant],
        targets: list[str],
        tests: list[str],
        spans: dict[str, dict[str, tuple[int, int]]] | None,
        progress: Callable[[Event], None] | None,
        durations: dict[str, float] | None,
        deselect: list[str],
        killers: int = 1,
        observe: bool = False,
        sample: int = 0,
        enough: tuple[dict[str, float], dict[str, list[int]]] | None = None,  # gate 4's alone
        entering: bool = False,  # gate 4's alone
        budget: float = 0.0,  # gate 4's alone
    ) -> Events:
        self.tree = pack(self.ws.root)
        shared = self.pool.share(self.tree)
        workers = self.pool.info.workers or 1
        plain = self.settings.plain()
        submitted: dict[Future[BatchResult], tuple[int, float]] = {}
        for group in batches(mutants, 2 * workers):
            batch = MutantBatch(
                plain,
                self.source_roots,
                self.pytest_args,
                targets,
                tests,
                [m.id for m in group],
                deselect,
                killers,
                spans is not None,
                durations,
                observe,
                # each batch samples its own mutants: its share of the whole sample
                -(-sample * len(group) // len(mutants)) if sample else 0,
            )
            submitted[self.pool.submit(run_batch, shared, batch)] = (len(group), time.monotonic())
        merged = _Merge()
        for future in as_completed(submitted):
            result = future.result()
            count, sent = submitted[future]
            self.costs.append(
                BatchCost(
                    count,
                    result.wall_s,
                    time.monotonic() - sent,
                    len(pickle.dumps(result)),
                    result.unpacked,
                    result.host,
                )
            )
            for ev in merged.add(result.events):
                if progress:
                    progress(ev)
                    if shown := self._tally.feed(ev):
                        progress(shown)
        return merged.events()


@dataclass
class _Merge:
    """The events of all batches as one worker's: the first batch's run-wide events, every batch's
    mutants, and the jobs and cost events summed."""

    run: Events = field(default_factory=list)
    mutants: list[MutantDone | Stopped] = field(default_factory=list)
    jobs: list[Jobs] = field(default_factory=list)
    costs: list[Cost] = field(default_factory=list)
    unobserved: list[Unobserved] = field(default_factory=list)
    first: bool = True

    def add(self, events: Events) -> Events:
        """Take one batch's events; returns those to show now."""
        errors = [ev for ev in events if isinstance(ev, WorkerError)]
        if errors:
            raise MutationError(errors[0].message)
        shown: Events = []
        for ev in events:
            if isinstance(ev, (MutantDone, Stopped)):
                self.mutants.append(ev)
                shown.append(ev)
            elif isinstance(ev, Jobs):
                self.jobs.append(ev)
            elif isinstance(ev, Cost):
                self.costs.append(ev)
            elif isinstance(ev, Unobserved):  # every batch's
                self.unobserved.append(ev)
            elif isinstance(ev, Sampled):  # each batch's share: the total stays the scope's
                continue
            elif self.first and not isinstance(ev, Done):
                self.run.append(ev)
                shown.append(ev)
        self.first = False
        return shown

    def events(self) -> Events:
        out: Events = [*self.run, *self.mutants]
        if self.jobs:
            out.append(_jobs(self.jobs))
        if self.costs:
            out.append(_cost(self.costs))
        if self.unobserved:
            tests = [t for ev in self.unobserved for t in ev.tests]
            out.append(Unobserved(list(dict.fromkeys(tests)), self.unobserved[0].limit))
        return [*out, Done()]


def _jobs(events: list[Jobs]) -> Jobs:
    """One `jobs` event from each batch's: counts summed, the dirty globals of every batch."""
    modes: dict[str, int] = {}
    dirty: dict[str, list[str]] = {}
    for ev in events:
        for mode, n in ev.modes.items():
            modes[mode] = modes.get(mode, 0) + n
        for target, names in ev.dirty.items():
            dirty[target] = sorted({*dirty.get(target, []), *names})
    return Jobs(sum(ev.total for ev in events), modes, sum(ev.with_state for ev in events), dirty)


def _cost(events: list[Cost]) -> Cost:
    """One `cost` event from each batch's: test seconds summed over batches, the longest mutant
    of all."""
    seconds: dict[str, float] = {}
    runs: dict[str, int] = {}
    info: dict[str, TestCost] = {}
    for ev in events:
        for t in ev.slowest:
            seconds[t.id] = seconds.get(t.id, 0.0) + t.seconds
            runs[t.id] = runs.get(t.id, 0) + t.runs
            info.setdefault(t.id, t)
    spent = sum(ev.tests_s for ev in events) or 1.0
    top = sorted(seconds.items(), key=lambda kv: -kv[1])[:5]
    longest: LongestMutant = max((ev.longest_mutant for ev in events), key=lambda m: m.seconds)
    slowest = [
        TestCost(i, info[i].duration, runs[i], round(s, 3), round(s / spent, 4)) for i, s in top
    ]
    return Cost(
        round(spent, 3),
        round(sum(ev.mutants_s for ev in events), 3),
        slowest,
        longest,
        sum(ev.split_mutants for ev in events),
        max((ev.hangs_in_a_row for ev in events), default=0),
    )
