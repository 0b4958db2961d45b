"""What a baseline child runs: the tests once, in collection order, traced (coverage, writes) or
untraced (durations), reporting each as it starts and ends."""

from __future__ import annotations

import mmap
import os
import struct
import sys
import time

import pytest

from ..fork import stopwatch, took
from ..protocol import MutationJob
from .one_test import run_test
from .patch import FailureWatch
from .seed import reseed
from .shapes import Functions, Report
from .state import ProjectState
from .tracers import Recorder, make_tracer
from .warm import patterns


class _Phases:
    """pytest plugin in the traced child: lines of a test's call phase are recorded apart, and
    those of its setup (key `(i, False)`) apart from its teardown's (`(i, None)`)."""

    def __init__(self, tracer: Recorder) -> None:
        self.tracer = tracer
        self.index = 0

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_call(self, item: pytest.Item) -> None:
        self.tracer.switch((self.index, True))

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_teardown(self, item: pytest.Item) -> None:
        self.tracer.switch((self.index, None))


class _CallStart:
    """pytest plugin in the traced child: the module state each test's setup reset, taken as the
    test's own code starts - after its fixtures, and for a `unittest.TestCase` after `setUp` (which
    pytest runs in the call phase). A TestCase's own method is recorded apart (key `(i, "own")`,
    its `tearDown` under `(i, "down")`): `setUp` (and `asyncSetUp`) is its fixture, and what it runs
    is no more in gate 4's scope than a pytest fixture's code (simpleeval's `DRYTest.setUp` builds
    a `SimpleEval()`, whose `__init__` a test of one feature was charged for)."""

    def __init__(self, state: ProjectState, phases: _Phases) -> None:
        self.state = state
        self.phases = phases
        self.found: list[list[str]] = []
        self.own: set[int] = set()  # tests whose own method ran apart from setUp / tearDown

    def take(self) -> None:
        self.found = self.state.resets() if self.state.written else []

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_call(self, item: pytest.Item) -> None:
        unittest = sys.modules.get("unittest")
        case = getattr(item, "instance", None)
        if unittest is None or not isinstance(case, unittest.TestCase):
            self.take()
            return
        inner = getattr(case, "_callTestMethod", None)
        if inner is None:  # no hook between setUp and the test: no reset is known
            return

        def call(method: object) -> object:
            self.take()
            # the lines before (setUp's) are the setup's: key `(i, True)` then holds them only
            i = self.phases.index
            self.own.add(i)
            self.phases.tracer.switch((i, "own"))
            try:
                return inner(method)
            finally:
                self.phases.tracer.switch((i, "down"))

        case._callTestMethod = call  # this test's instance only


def run_tests(
    items: list[pytest.Item],
    report: Report,
    traced: bool,
    cfg: MutationJob,
    functions: Functions | None = None,
    start: int = 0,
    stop: mmap.mmap | None = None,
) -> dict:
    """In a child: tests `start`.. once in collection order, `next` / `done` reported for each.
    `stop`: where the parent may write the index a tail child starts at; this child stops there
    unless a test before it wrote module state."""
    tracer = phases = None
    setup_start = time.perf_counter()
    state_s = 0.0
    targets = {os.path.realpath(p): rel for rel, p in cfg.targets.items()}
    if traced:
        tracer = make_tracer(targets, functions)
        phases = _Phases(tracer)
        items[0].config.pluginmanager.register(phases, "assay-phases")
        tracer.start()
    # after the probes went in: a function's new code is not a write
    state = ProjectState(cfg.scratch_root, targets) if traced or stop is not None else None
    start_of_call = _CallStart(state, phases) if phases is not None and state is not None else None
    if start_of_call is not None:
        items[0].config.pluginmanager.register(start_of_call, "assay-call-start")
    setup_s = time.perf_counter() - setup_start
    out = []
    wrote = False
    stopped = None
    failures = FailureWatch.on(items)
    for i in range(start, len(items)):
        if stop is not None:
            struct.pack_into("q", stop, 8, i)  # where this child is, for the parent choosing a stop
            if i == struct.unpack_from("q", stop)[0]:
                # untraced, the state is compared once, here, with the state the child started in
                wrote = wrote or (not traced and state is not None and bool(state.writes()))
                if not wrote:
                    stopped = i
                    break
        item = items[i]
        report({"next": i})
        failures.failed = False
        if start_of_call is not None:
            start_of_call.found = []
        if tracer and phases is not None:
            phases.index = i
            tracer.switch((i, False))
        reseed(item.nodeid)
        begin = stopwatch()
        reports = run_test(item, items[i + 1] if i + 1 < len(items) else None)
        elapsed = took(begin)
        outcome = (
            "failed"
            if failures.failed or any(r.failed for r in reports)
            else "skipped"
            if any(r.skipped for r in reports)
            else "passed"
        )
        writes_start = time.perf_counter()
        writes = state.writes() if traced and state else []
        resets = start_of_call.found if start_of_call is not None else []
        out.append({"outcome": outcome, "duration": elapsed, "writes": writes, "resets": resets})
        state_s += time.perf_counter() - writes_start
        report({"done": i, "s": elapsed, **({"wrote": True} if writes and not wrote else {})})
        wrote = wrote or bool(writes)
    if tracer:
        tracer.stop()
        lines: dict[int, set] = {}
        call: dict[int, set] = {}
        found_by = tracer.collect()
        own = start_of_call.own if start_of_call is not None else set()
        for (i, phase), found in found_by.items():
            lines.setdefault(i, set()).update(found)
            # the call phase; of a TestCase, its own method's alone (setUp, tearDown: fixtures)
            if phase == "own" or (phase is True and i not in own):
                call.setdefault(i, set()).update(found)
        for i, t in enumerate(out, start):
            t["lines"] = sorted(lines.get(i, ()))
            t["call"] = sorted(call.get(i, ()))
            if t["resets"]:  # what ran before its own code: a mutant there may undo its reset
                before = set(found_by.get((i, False), ()))
                if i in own:  # a TestCase: setUp ran in the call phase
                    before |= found_by.get((i, True), set())
                t["setup"] = sorted(before)
    return {
        "tests": out,
        "stopped": stopped,
        "tracer": tracer.name if tracer else None,
        "patterns": patterns(),
        "overhead": {"setup_s": round(setup_s, 3), "state_s": round(state_s, 3)},
    }
