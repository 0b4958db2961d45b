"""Several mutants one after another in one forked child, where a mutant leaves nothing behind.

Half of a fast mutant's cost was the child, not its tests (cachetools' `test_tlru.py`, 61 patch
jobs): the fork, and the first test in each child paying for the pages it touches (1,100 page
faults, 12.8 ms of CPU against 3.1 ms for the tests after it), and the exit. A mutant applied by
swapping `__code__` (`patch`) can be swapped out again, so a child that ran one can run the next -
if the tests left the process as the fork gave it. After each mutant the child tears down every
fixture, puts the original code back, and compares what tests can leave behind with what it was
at the fork: the globals of every module of the scratch copy (`state.ProjectState`'s fingerprint,
with its documented limit), the project modules loaded, the environment and the working directory.
Equal: it reports `{"parked": result}` and waits for the parent's next mutant (`fork.serving`).
Not equal, or a teardown that fails: it ends like any child, and the next mutant gets a new fork.
The parent sends only patch mutants none of whose tests wrote module state in the baseline (those
need the state from before the baseline: a fresh fork, as before).
"""

from __future__ import annotations

import base64
import contextlib
import marshal
import os
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from .observe import OBSERVE
from .patch import Hunt, run_items
from .shapes import ChildResult, Functions, Report
from .state import ProjectState

if TYPE_CHECKING:
    import types

    import pytest


class Untouched:
    """What the tests could leave behind, as it was when the child began."""

    def __init__(self, state: ProjectState) -> None:
        self.state = state
        self.fingerprint = state.take()
        # pickling an instance caches `__slotnames__` in its class (copyreg): forgotten again
        self.unpickled = [
            value
            for mod in state.modules.values()
            for value in list(vars(mod).values())
            if isinstance(value, type) and "__slotnames__" not in value.__dict__
        ]
        self.environ = dict(os.environ)
        self.cwd = os.getcwd()
        self.modules = set(sys.modules)

    def still(self) -> bool:
        for cls in self.unpickled:
            if "__slotnames__" in cls.__dict__:
                with contextlib.suppress(AttributeError, TypeError):
                    delattr(cls, "__slotnames__")
        return (
            os.getcwd() == self.cwd
            and os.environ == self.environ
            and not any(_ours(name, self.state.scratch) for name in set(sys.modules) - self.modules)
            and self.state.take() == self.fingerprint
        )


def _ours(name: str, scratch: str) -> bool:
    """A module loaded from the scratch copy (the project or its tests): under a mutant, its body
    may have run the mutated code."""
    path = getattr(sys.modules.get(name), "__file__", None)
    return isinstance(path, str) and os.path.realpath(path).startswith(scratch)


def order(
    m_id: str, pairs: list, ordered: list[str], hunt: Hunt, keys: dict[int, tuple]
) -> dict[str, Any]:
    """The line that tells a parked child its next mutant: the functions by their index key, the
    mutated code marshalled, the tests by node id."""
    return {
        "run": m_id,
        "patches": [
            [list(keys[id(funcs)]), base64.b64encode(marshal.dumps(new)).decode()]
            for funcs, new in pairs
        ],
        "tests": ordered,
        "hunt": [hunt.killers, sorted(hunt.must)],
    }


def run_serially(
    pairs: list,
    items: list[pytest.Item],
    report: Report,
    hunt: Hunt,
    receive: Callable[[], dict[str, Any] | None],
    state: ProjectState,
    functions: Functions,
    by_id: dict[str, pytest.Item],
) -> ChildResult:
    """The first mutant (`pairs`: function objects and mutated code), then each one the parent
    sends while the process stays as the fork gave it; the result of the last one run."""
    untouched = Untouched(state)
    while True:
        result = _one(pairs, items, report, hunt)
        if not _torn_down(items) or not untouched.still():
            return result
        report({"parked": result})
        nxt = receive()
        if nxt is None:
            return {"killed_by": [], "tests_completed": 0}
        if OBSERVE.sink is not None:
            OBSERVE.current = nxt["run"]
        pairs = [
            (functions.get(tuple(key), []), marshal.loads(base64.b64decode(code)))
            for key, code in nxt["patches"]
        ]
        items = [by_id[nodeid] for nodeid in nxt["tests"]]
        killers, must = nxt["hunt"]
        hunt = Hunt(killers, frozenset(must))


def _one(pairs: list, items: list[pytest.Item], report: Report, hunt: Hunt) -> ChildResult:
    saved: list[tuple[types.FunctionType, types.CodeType]] = []
    try:
        for funcs, new in pairs:
            for f in funcs:
                saved.append((f, f.__code__))
                f.__code__ = new
        return run_items(items, report, hunt)
    finally:
        for f, code in reversed(saved):
            f.__code__ = code


def _torn_down(items: list[pytest.Item]) -> bool:
    """Every fixture torn down (a hunt that stopped early left the next test's set up), as at the
    fork. False where this pytest cannot say."""
    if not items:
        return True
    try:
        items[0].session._setupstate.teardown_exact(None)
    except Exception:  # noqa: BLE001 - a teardown that fails, or an older pytest: a new fork
        return False
    return True
