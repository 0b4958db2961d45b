"""The pytest plugin that turns one collected session into a mutant server.

pytest imports the project and collects once (under the collection tracer: lines run at import time,
and which of them ran for another module); then, instead of pytest's run loop: the tests picked by
stable identity, the baseline in two children, the plan, the jobs in children.
"""

from __future__ import annotations

import contextlib
import os
import sys
import time
import traceback
import types

import pytest

from ..protocol import MutationJob
from .baseline import BaselineFailed, run_baseline
from .baseline_record import Baseline
from .enough import Enough
from .events import Events
from .exercised import Held, ObservingPool, observe_original, observing, settle
from .identity import pick
from .memo import Memos
from .patch import function_index
from .plan import plan
from .pool import Pool
from .protocol import (
    Collected,
    Cost,
    Done,
    Jobs,
    LongestMutant,
    Mode,
    Sampled,
    Stopped,
    WorkerError,
)
from .readers import Readers
from .realpaths import module_file
from .rebind import ImportTime
from .recollect import recollectable
from .state import ProjectState, changed_since_body
from .tracers import CollectTracer
from .warm import warm


class Server:
    """pytest plugin: takes over the run loop once collection is done."""

    def __init__(self, cfg: MutationJob, events: Events, tracer: CollectTracer) -> None:
        self.cfg = cfg
        self.events = events
        self.tracer = tracer
        self.collect_errors: list[str] = []
        self.served = False
        self.started = time.monotonic()

    # --- pytest hooks ----------------------------------------------------------------------------
    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        if report.failed:
            self.collect_errors.append(f"{report.nodeid}: {report.longreprtext[-1500:]}")

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        self.tracer.stop()
        self.collection_s = time.monotonic() - self.started

    def pytest_runtestloop(self, session: pytest.Session) -> bool:
        self.served = True
        if self.collect_errors:
            self.events.send(WorkerError("collection failed:\n" + "\n".join(self.collect_errors)))
            return True
        try:
            self.serve(session)
        except Exception:
            self.events.send(WorkerError(traceback.format_exc()[-3000:]))
        return True

    # --- the work --------------------------------------------------------------------------------
    def serve(self, session: pytest.Session) -> None:
        cfg = self.cfg
        items, problem, deselected = pick(session.items, cfg.tests, cfg.deselect)
        if problem:
            self.events.send(WorkerError(problem))
            return
        self.events.send(Collected(len(items), deselected, round(self.collection_s, 3)))
        if not items:
            self.events.send(
                WorkerError(
                    "no tests left to run" + (f" ({deselected} deselected)" if deselected else "")
                )
            )
            return
        functions = function_index(cfg)
        try:
            runs, seconds = run_baseline(cfg, items, self.events, cfg.durations, functions)
        except BaselineFailed as err:
            self.events.send(WorkerError(f"baseline run failed: {err}"))
            return
        baseline = Baseline(items, runs, cfg.durations, cfg.functions)
        self.events.send(baseline.event(seconds))
        dirty = self.dirty_targets()
        if not in_scope(cfg, baseline):
            self.nothing_to_run(dirty)
            return
        readers = Readers(cfg, _original_code(cfg), baseline.covering, items)
        targets = {os.path.realpath(p): rel for rel, p in cfg.targets.items()}
        memos = Memos(
            ProjectState(cfg.scratch_root, targets).modules, baseline.writes, cfg.scratch_root
        )
        proven: set[str] = set()  # test functions that killed: shared by the plan and the pool
        # the early stop: the pool counts the sample's verdicts, the plan stops once it may
        enough = None if cfg.enough is None else Enough(cfg.enough, cfg.known, cfg.observe)
        planned = plan(
            cfg,
            baseline,
            self.tracer,
            dirty,
            readers,
            functions,
            memos,
            recollectable(self.tracer, dirty, items),
            proven,
            enough,
            self.collection_s,
        )
        if planned.sampled is not None:
            cut = planned.cut
            self.events.send(
                Sampled(
                    planned.sampled,
                    *((cut.planned, cut.estimate_s, cut.budget_s) if cut else ()),
                )
            )
        warm(items, [p for run in runs.values() for p in run.get("patterns", [])])
        # gate 4: every mutant's tests observed, survivors judged by what they received
        held = Held(self.events) if cfg.observe else None

        def make_pool(events: Events) -> Pool:
            return (ObservingPool if held else Pool)(
                cfg,
                events,
                lambda: ImportTime(
                    cfg,
                    planned.original_code,
                    readers,
                    self.tracer.codes,
                    baseline.tests,
                    [item.nodeid for item in items],
                ),
                baseline,
                self.collection_s,
                self.tracer.sites,
            )

        pool = make_pool(held or self.events)
        pool.proven = proven
        pool.enough = enough
        start = time.monotonic()
        by_id = {item.nodeid: item for item in items}
        with (
            observing(cfg.targets, cfg.scratch_root, cfg.tests, items)
            if held
            else contextlib.nullcontext()
        ):
            if held:
                observe_original(held, make_pool, by_id, next(iter(cfg.targets)), pool.duration)
            pool.run(planned.steps, by_id)
            unexercised = settle(held, make_pool, by_id, next(iter(cfg.targets))) if held else set()
        past = [] if enough is None else enough.past()
        unsure = [] if enough is None else enough.unsure(unexercised)
        if past or unsure:
            self.events.send(Stopped(past, unsure))
        self.events.send(
            Jobs(
                total=sum(pool.modes.values()),
                modes={m.value: pool.modes[m] for m in Mode},
                with_state=pool.with_state,
                dirty={k: sorted(v) for k, v in dirty.items()},
            )
        )
        self.events.send(pool.summary(time.monotonic() - start))
        self.events.send(Done())

    def nothing_to_run(self, dirty: dict[str, set[str]]) -> None:
        """No mutant is in the scope the baseline found: the plan would yield no step, so its
        compiles, the observed runs of the original (they only judge survivors) and the pool are
        skipped; the events are those an empty pool sends."""
        self.events.send(
            Jobs(
                total=0,
                modes={m.value: 0 for m in Mode},
                with_state=0,
                dirty={k: sorted(v) for k, v in dirty.items()},
            )
        )
        self.events.send(Cost(0.0, 0.0, [], LongestMutant("", 0.0)))
        self.events.send(Done())

    def dirty_targets(self) -> dict[str, set[str]]:
        """Globals of each target that changed after its body ran (collection wrote them):
        re-running the body in place would drop those writes, so its import-time mutants need a
        fresh import."""
        out = {}
        by_path = {os.path.realpath(p): rel for rel, p in self.cfg.targets.items()}
        for mod in list(sys.modules.values()):
            rel = by_path.get(module_file(mod))
            if rel is None or rel not in self.tracer.bodies:
                continue
            names = changed_since_body(self.tracer.bodies[rel], mod)
            if names:
                out[rel] = names
        return out


def in_scope(cfg: MutationJob, baseline: Baseline) -> bool:
    """Whether any of the job's mutants is in the baseline's scope (None: unscoped, all are)."""
    scope = baseline.scope
    return scope is None or any(m.function in scope.get(m.file, ()) for m in cfg.mutants)


def _original_code(cfg: MutationJob) -> dict[str, types.CodeType]:
    out = {}
    for rel, path in cfg.targets.items():
        with open(path, encoding="utf-8") as fh:
            out[rel] = compile(fh.read(), os.path.realpath(path), "exec", dont_inherit=True)
    return out
