"""The baseline: every test once under the tracer (coverage per test, globals each test writes) and once
untraced (durations: tracing inflates them, and timeouts and ordering need the real ones), in two
forked children at the same time.

It tells which tests cover each line (only those run for a mutant there), how long each takes (cheapest
first; the per-test timeout), which module state each test leaves behind (who may read what a covered
line computed), and which functions the tests execute in their call phase (the verify gate's scope).
A test that hangs stops the run with its name: no mutant can be judged against it.
"""

from __future__ import annotations

import os
import time

import pytest

from ..fork import fork, watch
from .patch import FailureWatch
from .state import ProjectState
from .trace import make_tracer
from .warm import patterns


class _Phases:
    """pytest plugin in the traced child: lines of a test's call phase are recorded apart."""

    def __init__(self, tracer):
        self.tracer = tracer
        self.index = 0

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_call(self, item):
        self.tracer.switch((self.index, True))

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_teardown(self, item):
        self.tracer.switch((self.index, False))


def run_tests(items, report, traced: bool, cfg=None, functions: dict | None = None) -> dict:
    """In a child: every test once in collection order, `next` / `done` reported for each."""
    from _pytest.runner import runtestprotocol

    tracer = state = phases = None
    setup_start = time.perf_counter()
    state_s = 0.0
    if traced:
        tracer = make_tracer({os.path.realpath(p): rel for rel, p in cfg.targets.items()}, functions)
        state = ProjectState(cfg.scratch_root, {os.path.realpath(p): rel for rel, p in cfg.targets.items()})
        phases = _Phases(tracer)
        items[0].config.pluginmanager.register(phases, "assay-phases")
        tracer.start()
    setup_s = time.perf_counter() - setup_start
    out = []
    failures = FailureWatch.on(items)
    for i, item in enumerate(items):
        report({"next": i})
        failures.failed = False
        if tracer and phases is not None:
            phases.index = i
            tracer.switch((i, False))
        start = time.perf_counter()
        reports = runtestprotocol(item, nextitem=items[i + 1] if i + 1 < len(items) else None, log=False)
        elapsed = time.perf_counter() - start
        outcome = ("failed" if failures.failed or any(r.failed for r in reports) else
                   "skipped" if any(r.skipped for r in reports) else "passed")
        writes_start = time.perf_counter()
        out.append({"outcome": outcome, "duration": elapsed, "writes": state.writes() if state else []})
        state_s += time.perf_counter() - writes_start
        report({"done": i, "s": elapsed})
    if tracer:
        tracer.stop()
        lines: dict[int, set] = {}
        call: dict[int, set] = {}
        for (i, in_call), found in tracer.collect().items():
            lines.setdefault(i, set()).update(found)
            if in_call:
                call.setdefault(i, set()).update(found)
        for i, t in enumerate(out):
            t["lines"] = sorted(lines.get(i, ()))
            t["call"] = sorted(call.get(i, ()))
    return {"tests": out, "tracer": tracer.name if tracer else None, "patterns": patterns(),
            "overhead": {"setup_s": round(setup_s, 3), "state_s": round(state_s, 3)}}


class BaselineFailed(Exception):
    pass


def run_baseline(cfg, items, events, durations: dict[str, float] | None,
                 functions: dict | None = None) -> tuple[dict, dict[str, float]]:
    """The traced run and, unless `durations` came with the job, the untraced one beside it (two children:
    on two cores the wall time is the traced run's alone; with one worker they run one after the other, so
    as not to skew the durations). Returns ({run: result}, {run: seconds}); raises BaselineFailed naming
    the test that hung, or the crash."""
    names = ["traced"] if durations is not None else ["traced", "untraced"]
    batches = [names] if cfg.workers >= 2 else [[name] for name in names]
    results: dict[str, dict] = {}
    seconds: dict[str, float] = {}
    for batch in batches:
        children = {name: fork(lambda report, traced=(name == "traced"): run_tests(items, report, traced, cfg,
                                                                                   functions))
                    for name in batch}
        _finish(children, items, events, cfg.baseline_timeout, results, seconds)
    return results, seconds


def _finish(children: dict, items, events, per_test: float, results: dict, seconds: dict) -> None:
    current = {c.pid: (None, c.started) for c in children.values()}
    done = {c.pid: 0 for c in children.values()}
    last_event = [0.0]

    def on_line(child, msg):
        now = time.monotonic()
        if "next" in msg:
            current[child.pid] = (msg["next"], now)
        else:
            done[child.pid] = msg["done"] + 1
            current[child.pid] = (None, now)
        if now - last_event[0] > 0.5:
            last_event[0] = now
            events.emit(event="baseline_progress", done=min(done.values()), total=len(items))

    ended = watch(list(children.values()), lambda c: current[c.pid][1] + per_test, on_line)
    for name, child in children.items():
        state, result = ended[child.pid]
        if state == "timeout":
            index = current[child.pid][0]
            which = items[index].nodeid if index is not None else "a test's teardown or the next setup"
            raise BaselineFailed(f"{which} did not finish within {per_test:.0f}s in the {name} baseline run")
        if "crash" in result:
            raise BaselineFailed(f"the {name} baseline run crashed: {result['crash']}")
        results[name] = result["result"]
        seconds[name] = child.ended - child.started
