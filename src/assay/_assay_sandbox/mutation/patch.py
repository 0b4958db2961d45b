"""Mutants inside a function: swap `__code__` of the live function objects, then run the tests
in place.

No import and no collection: the enclosing defs (decorated, nested, methods, closures alike) keep
their identity, so every reference the tests hold sees the mutant.
"""

from __future__ import annotations

import gc
import os
import types
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..fork import stopwatch, took, waited
from ..protocol import MutantSpec, MutationJob
from .bytecode import find_code
from .one_test import run_test
from .seed import reseed
from .shapes import ChildResult, Functions, Report

if TYPE_CHECKING:
    import pytest


def function_index(cfg: MutationJob) -> Functions:
    """Live function objects of the target files, by (real path, name, first line)."""
    paths = {os.path.realpath(p) for p in cfg.targets.values()}
    index: Functions = {}
    real: dict[str, str] = {}
    for obj in gc.get_objects():
        if type(obj) is types.FunctionType:
            c = obj.__code__
            path = real.get(c.co_filename) or real.setdefault(
                c.co_filename, os.path.realpath(c.co_filename)
            )
            if path in paths:
                index.setdefault((path, c.co_name, c.co_firstlineno), []).append(obj)
    return index


def patches(
    cfg: MutationJob, m: MutantSpec, code: types.CodeType, functions: Functions
) -> list | None:
    """(function objects, mutated code) pairs for the enclosing defs, or None: re-import instead."""
    if not m.chain:
        return None
    path = os.path.realpath(cfg.targets[m.file])
    pairs = []
    for name, first in m.chain:
        new = find_code(code, name, first)
        if new is None:
            return None
        funcs = functions.get((path, name, first), [])
        if any(len(new.co_freevars) != len(f.__closure__ or ()) for f in funcs):
            return None
        if funcs:
            pairs.append((funcs, new))
    return pairs or None


def run_patched(pairs: list, items: list[pytest.Item], report: Report, hunt: Hunt) -> ChildResult:
    for funcs, new in pairs:
        for f in funcs:
            f.__code__ = new
    return run_items(items, report, hunt)


class FailureWatch:
    """pytest plugin: a failure reported outside the reports `runtestprotocol` returns - a failing
    `unittest` subTest (pytest 9 logs each subtest report itself) fails its test."""

    def __init__(self) -> None:
        self.failed = False

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if report.failed:
            self.failed = True

    @classmethod
    def on(cls, items: list[pytest.Item]) -> FailureWatch:
        """The session's watch, registered on first use: registering a plugin costs pluggy ~2 ms, so
        the worker registers it once before forking and every child finds it."""
        if not items:
            return cls()
        manager = items[0].config.pluginmanager
        watch = manager.get_plugin("assay-failure-watch")
        if watch is None:
            watch = cls()
            manager.register(watch, "assay-failure-watch")
        return watch


def function_of(nodeid: str) -> str:
    """The test function of a node id: all cases of a parametrized one are one test."""
    return nodeid.split("[", 1)[0]


@dataclass(frozen=True)
class Hunt:
    """What a child looks for under one mutant: `killers` failing test functions (0: all of them),
    but not before every test of `must` has run (gate 4's tests that have not killed yet: each meets
    every mutant it covers until it kills one, so that `low_value` stays exact)."""

    killers: int = 1
    must: frozenset[str] = frozenset()


def plain_failures() -> None:
    """In a child: a failure is reported as the word "failed". Only pass/fail matters there, and
    formatting a failure's traceback (reading and parsing the source of every frame) costs more
    than a fast test: a fresh session's (`reimport`) 0.25 s per mutant on toolz."""
    from _pytest.nodes import Node

    setattr(Node, "_repr_failure_py", lambda self, excinfo, style=None: "failed")  # noqa: B010


def run_items(items: list[pytest.Item], report: Report, hunt: Hunt) -> ChildResult:
    """Run tests in a forked child until the hunt is over, telling the parent when each starts and
    ends (it holds the per-test deadline). Once a case of a parametrized function fails, its other
    cases are skipped: the function is known to kill."""
    plain_failures()
    done = 0
    killed_by: list[str] = []
    failed_functions: set[str] = set()
    failures = FailureWatch.on(items)
    following = _Following(items, failed_functions, skips=hunt.killers != 1 or bool(hunt.must))
    left = sum(item.nodeid in hunt.must for item in items)  # `must` tests still to run
    for i, item in enumerate(items):
        if hunt.killers and len(failed_functions) >= hunt.killers and not left:
            break
        left -= item.nodeid in hunt.must
        if following.functions[i] in failed_functions:
            continue
        report({"next": item.nodeid, "w": waited()})
        reseed(item.nodeid)
        start = stopwatch()
        failures.failed = False
        reports = run_test(item, following.after(i))
        failed = failures.failed or any(r.failed for r in reports)
        report({"done": item.nodeid, "s": took(start), "failed": failed, "w": waited()})
        done += 1
        if failed:
            killed_by.append(item.nodeid)
            failed_functions.add(following.functions[i])
    return {"killed_by": killed_by, "tests_completed": done}


class _Following:
    """The item to tear down towards after each test, whether it passes or fails: the next one of a
    function that has not failed, past the current function's own cases (they are skipped if it
    fails) unless only those are left. Passing a later item than the one that runs next only tears
    down more (a class's fixtures set up again); a skipped one would leave the wrong ones set up."""

    def __init__(self, items: list[pytest.Item], failed: set[str], skips: bool) -> None:
        self.items = items
        self.failed = failed
        self.skips = skips  # else the run stops at the first failure: the next item is next
        self.functions = [function_of(item.nodeid) for item in items]
        # index just past the run of cases of the same function that starts at each index
        self.block_end = list(range(1, len(items) + 1))
        for i in range(len(items) - 2, -1, -1):
            if self.functions[i] == self.functions[i + 1]:
                self.block_end[i] = self.block_end[i + 1]

    def after(self, i: int) -> pytest.Item | None:
        n = len(self.items)
        if not self.skips:
            return self.items[i + 1] if i + 1 < n else None
        j = self._unfailed(i + 1)
        if j < n and self.functions[j] == self.functions[i]:
            k = self._unfailed(self.block_end[j])
            j = k if k < n else j
        return self.items[j] if j < n else None

    def _unfailed(self, j: int) -> int:
        while j < len(self.items) and self.functions[j] in self.failed:
            j = self.block_end[j]
        return j
