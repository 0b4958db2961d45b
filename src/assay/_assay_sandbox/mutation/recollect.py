"""Mutants in a function that test modules call while they are imported (parameters, expected
values computed by the code under test): swap `__code__` as `patch` does, then re-import and
re-collect only those test modules in the live session - not a whole new pytest session per
mutant (`reimport`).

Sound only when what those calls computed sits in the calling test modules: every caller is a
collected test module, and no other module of the project changed after its body ran (a call that
filled a cache or a registry elsewhere would leave the original's values behind). Else the mutant
is re-imported.
"""

from __future__ import annotations

import importlib.util
import os
import sys
import types
from typing import TYPE_CHECKING, Any

from ..short_ids import bound
from .patch import Hunt, run_items
from .realpaths import module_file
from .shapes import ChildResult, Report
from .state import changed_since_body

if TYPE_CHECKING:
    import pytest

    from .tracers import CollectTracer


def recollectable(
    tracer: CollectTracer, dirty: dict[str, set[str]], items: list[pytest.Item]
) -> dict[str, list[tuple[str, types.CodeType | None]]]:
    """rel -> (file, module body code) of the test modules to re-collect for a foreign mutant of
    that target (absent: re-import). The code is the one that ran, asserts rewritten: no rewrite
    per mutant."""
    tests = {os.path.realpath(str(item.path)) for item in items if _module_node(item) is not None}
    stirred = set()  # modules changed after their body ran
    for mod in list(sys.modules.values()):
        real = module_file(mod)
        before = tracer.others.get(real)
        if before is not None and changed_since_body(before, mod):
            stirred.add(real)
    out = {}
    for rel, callers in tracer.callers.items():
        if rel not in dirty and None not in callers and callers <= tests and stirred <= callers:
            out[rel] = [(file, tracer.module_codes.get(file)) for file in sorted(callers)]
    return out


def _module_node(item: pytest.Item) -> Any:  # a pytest.Module
    import pytest

    return item.getparent(pytest.Module)


def run_recollected(
    pairs: list,
    items: list[pytest.Item],
    files: list[tuple[str, types.CodeType | None]],
    report: Report,
    hunt: Hunt,
    first: int = 0,
) -> ChildResult:
    """In the child: the mutant in place, the calling test modules imported and collected again,
    then the tests (those of the re-collected modules as they are now: their parameter ids may have
    changed; new ids right after the `first` state writers: where the mutant shows)."""
    from _pytest.nodes import Item
    from _pytest.runner import collect_one_node

    for funcs, new in pairs:
        for f in funcs:
            f.__code__ = new
    codes = dict(files)
    fresh: dict[str, list] = {}
    for item in items:
        node = _module_node(item)
        real = os.path.realpath(str(item.path))
        if real not in codes or real in fresh:
            continue
        module = getattr(node, "_obj", None)
        if module is not None:
            sys.modules.pop(module.__name__, None)
            body = codes[real]
            # pytest's import finds it in sys.modules
            if body is not None and module.__spec__ is not None:
                again = importlib.util.module_from_spec(module.__spec__)
                sys.modules[module.__name__] = again
                try:
                    exec(body, again.__dict__)
                # the mutant breaks the test module's import: a kill
                except Exception:  # noqa: BLE001
                    return {"killed_by": [node.nodeid], "tests_completed": 0}
        clone = type(node).from_parent(node.parent, path=node.path)
        found, todo = [], [clone]
        while todo:
            rep = collect_one_node(todo.pop(0))
            if not rep.passed:  # the mutant breaks the module's import or its parametrization
                return {"killed_by": [rep.nodeid or node.nodeid], "tests_completed": 0}
            found += [bound(x) for x in rep.result if isinstance(x, Item)]
            todo = [x for x in rep.result if not isinstance(x, Item)] + todo
        fresh[real] = found
    by_id = {x.nodeid: x for found in fresh.values() for x in found}
    ordered = [
        by_id.pop(item.nodeid, None) if os.path.realpath(str(item.path)) in fresh else item
        for item in items
    ]
    kept = [x for x in ordered if x is not None]
    return run_items(kept[:first] + list(by_id.values()) + kept[first:], report, hunt)
