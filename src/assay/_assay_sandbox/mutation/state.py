"""Module state that tests (or collection) leave behind: caches, registries, counters.

A test that fills a module-level cache makes the tests after it read what the cache holds instead of
running the code that filled it, so per-test coverage no longer says who depends on that code
(isodate's `DATE_REGEX_CACHE`: only the first test of each kind runs the regex builder). A cheap
fingerprint of every project module's globals before and after each test of the baseline names the
globals each test wrote.
"""

from __future__ import annotations

import itertools
import os
import sys
import types
from collections.abc import Iterable
from typing import Any

from .realpaths import real as real_path

# elements of one container whose identities enter the fingerprint (its length always does)
_CAP = 256
_ATOMS = (int, float, complex, str, bytes, bool, type(None))


def _ids(items: Iterable[object]) -> int:
    return hash(tuple(map(id, itertools.islice(items, _CAP))))


def _shallow(value: Any) -> tuple:
    """Identity, size and the identities of the first elements: `d[k] = v`, `append`,
    `cache_clear()`, `obj.attr = v` all change it; equal fingerprints may still hide deeper writes
    (documented limit)."""
    t = type(value)
    # a module's own globals are fingerprinted apart, if it is ours
    if t in _ATOMS or t is types.ModuleType:
        return (id(value),)
    if t is types.FunctionType:  # the most common global: checked before the slower probes below
        return (id(value), id(value.__code__), id(value.__defaults__))
    try:
        if t is dict:
            return (id(value), len(value), _ids(value), _ids(value.values()))
        if t in (list, tuple):
            return (id(value), len(value), _ids(value))
        if t in (set, frozenset):
            return (id(value), len(value))
        # unittest's own bookkeeping (tearDown_exceptions)
        if isinstance(value, type) and _is_testcase(value):
            return (id(value),)
        info = getattr(value, "cache_info", None)
        if callable(info) and not isinstance(value, type):
            return (id(value), info().currsize)
        if isinstance(value, (types.FunctionType, types.ModuleType)):
            return (
                id(value),
                id(getattr(value, "__code__", None)),
                id(getattr(value, "__defaults__", None)),
            )
        space = getattr(value, "__dict__", None)
        if isinstance(space, dict) and _is_logger(value):
            # its memo of level look-ups, filled by the first `logger.debug(...)`: no state a test
            # can read (schedule's `logger` counted as written by the first test, and every test
            # logging through it read it)
            space = {k: v for k, v in space.items() if k != "_cache"}
        if isinstance(space, (dict, types.MappingProxyType)):
            return (
                id(value),
                len(space),
                _ids(space.values()),
                *(
                    _shallow(v)[1:3]
                    for v in list(space.values())[:32]
                    if type(v) in (dict, list, set)
                ),
            )
        if hasattr(value, "__len__") and hasattr(value, "__iter__"):
            return (id(value), len(value))
    except Exception:  # noqa: BLE001 - an odd object: its identity is all we can tell
        pass
    return (id(value),)


def _is_logger(value: object) -> bool:
    logging = sys.modules.get("logging")
    return logging is not None and isinstance(value, logging.Logger)


def _is_testcase(cls: type) -> bool:
    unittest = sys.modules.get("unittest")
    return unittest is not None and issubclass(cls, unittest.TestCase)


def fingerprint(namespace: dict, seen: dict[int, tuple] | None = None) -> dict[str, tuple]:
    """`seen`: fingerprints by object identity, shared across the modules of one snapshot (a package
    and its re-exports hold the same objects: toolz, tlz and toolz.curried hold 505 objects under
    978 names)."""
    seen = {} if seen is None else seen
    out = {}
    for k, v in list(namespace.items()):
        if k.startswith("__") and k.endswith("__"):
            continue
        fp = seen.get(id(v))
        if fp is None:
            fp = seen[id(v)] = _shallow(v)
        out[k] = fp
    return out


def changed(before: dict[str, tuple], after: dict[str, tuple]) -> set[str]:
    return {k for k in before.keys() | after.keys() if before.get(k) != after.get(k)}


def changed_since_body(before: dict[str, tuple], module: types.ModuleType) -> set[str]:
    """Globals of `module` changed since its body returned (`before`), apart from submodules that
    imports of the package's children bound later."""
    space = module.__dict__
    return {
        name
        for name in changed(before, fingerprint(space))
        if not (name not in before and isinstance(space.get(name), types.ModuleType))
    }


class ProjectState:
    """Fingerprints of the globals of every module loaded from the scratch copy (project
    and tests)."""

    def __init__(self, scratch_root: str, targets: dict[str, str]):
        scratch = os.path.realpath(scratch_root) + os.sep
        self.modules: dict[str, types.ModuleType] = {}
        for mod in list(sys.modules.values()):
            path = getattr(mod, "__file__", None)
            if path and (real := real_path(path)).startswith(scratch):
                self.modules[targets.get(real) or "module:" + mod.__name__] = mod
        self.last = self.take()
        self.initial = self.last  # before the first test
        self.written: set[tuple[str, str]] = set()  # by the tests so far

    def take(self) -> dict[str, dict[str, tuple]]:
        # the objects stay alive during the snapshot: an id means one object
        seen: dict[int, tuple] = {}
        return {key: fingerprint(mod.__dict__, seen) for key, mod in self.modules.items()}

    def writes(self) -> list[list[str]]:
        """[module key, name] of the globals changed since the last call (a target's key is its
        rel path)."""
        now = self.take()
        out = [
            [key, name]
            for key in now
            if self.last.get(key) != now[key]
            for name in sorted(changed(self.last.get(key, {}), now[key]))
        ]
        self.last = now
        self.written.update((key, name) for key, name in out)
        return out

    def resets(self) -> list[list[str]]:
        """[module key, name] of the globals an earlier test wrote that hold their value from before
        the first test again, where the last test left another: called as a test's own code starts,
        they are what its setup reset (`schedule.clear()` in a `setUp`). What the tests before left
        in them cannot reach this test's call (unless a mutant breaks the reset: the plan trusts
        it only from tests that do not run the mutated line)."""
        out = []
        for key, name in sorted(self.written):
            space = self.modules[key].__dict__
            now = _shallow(space[name]) if name in space else None
            if now == self.initial[key].get(name) and now != self.last[key].get(name):
                out.append([key, name])
        return out
