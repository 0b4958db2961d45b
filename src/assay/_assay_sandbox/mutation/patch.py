"""Mutants inside a function: swap `__code__` of the live function objects, then run the tests
in place.

No import and no collection: the enclosing defs (decorated, nested, methods, closures alike) keep
their identity, so every reference the tests hold sees the mutant.
"""

from __future__ import annotations

import gc
import os
import types
from typing import TYPE_CHECKING

from ..fork import clock, waited
from ..protocol import MutantSpec, MutationJob
from .bytecode import find_code
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


def run_patched(pairs: list, items: list[pytest.Item], report: Report, killers: int) -> ChildResult:
    for funcs, new in pairs:
        for f in funcs:
            f.__code__ = new
    return run_items(items, report, killers)


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


def run_items(items: list[pytest.Item], report: Report, killers: int) -> ChildResult:
    """Run tests in a forked child until the first failure (or the first `killers`), telling the
    parent when each starts and ends (it holds the per-test deadline)."""
    from _pytest.nodes import Node
    from _pytest.runner import runtestprotocol

    # only pass/fail matters here: formatting a failure's traceback costs more than a fast test
    # typed as fixed
    setattr(Node, "_repr_failure_py", lambda self, excinfo, style=None: "failed")  # noqa: B010

    done = 0
    killed_by: list[str] = []
    failures = FailureWatch.on(items)
    for i, item in enumerate(items):
        report({"next": item.nodeid, "w": waited()})
        reseed(item.nodeid)
        start = clock()
        failures.failed = False
        reports = runtestprotocol(
            item, nextitem=items[i + 1] if i + 1 < len(items) else None, log=False
        )
        failed = failures.failed or any(r.failed for r in reports)
        report({"done": item.nodeid, "s": clock() - start, "failed": failed, "w": waited()})
        done += 1
        if failed:
            killed_by.append(item.nodeid)
            if len(killed_by) >= killers:
                break
    return {"killed_by": killed_by, "tests_completed": done}
