"""A mutant that needs a fresh import, run in the worker's own pytest session: the project's modules
and the test modules are imported again (the mutated one served by `MutantFinder`), the test modules
collected again into the live session, and the tests run in place - not a new pytest session.

A new session (`reimport`) builds pytest's config, loads every plugin and parses each one's fixtures
again: on toolz, about half of a re-imported mutant's child, and toolz puts a third of gate 4's
mutants there (`curry` objects built while `toolz.curried` is imported). The live session gives the
same run only when nothing it keeps holds the project's old objects: the conftests and other plugin
modules of the project (kept: they are registered) must hold no module, class, function or object of
the project in their globals - a fixture that imports the project when it runs sees the mutated
one - and every test must sit in a plain Python test module. Otherwise the child starts a new
session, as before.
"""

from __future__ import annotations

import os
import sys
import types
from typing import TYPE_CHECKING, Any

from ..short_ids import bound
from .patch import Hunt, function_of, run_items
from .shapes import ChildResult, Report

if TYPE_CHECKING:
    import pytest

    from .reimport import MutantFinder


def _under(module: Any, root: str) -> bool:
    path = getattr(module, "__file__", None)
    return isinstance(path, str) and os.path.realpath(path).startswith(root)


def _plugins(config: pytest.Config, root: str) -> list[types.ModuleType]:
    """The project's own plugin modules (conftests, `pytest_plugins`) registered in the session."""
    return [
        p
        for p in config.pluginmanager.get_plugins()
        if isinstance(p, types.ModuleType) and _under(p, root)
    ]


def _holds_project(plugin: types.ModuleType, project: set[str]) -> bool:
    """Whether a plugin module's globals hold a module of the project or something defined in one
    (other than the plugin itself)."""
    for value in list(vars(plugin).values()):
        if isinstance(value, types.ModuleType):
            owner = value.__name__
        elif isinstance(value, (type, types.FunctionType)):
            owner = getattr(value, "__module__", None) or ""
        else:
            owner = type(value).__module__
        if owner in project and sys.modules.get(owner) is not plugin:
            return True
    return False


def live(items: list[pytest.Item], root: str) -> bool:
    """Whether a fresh import can run in the live session (see the module's doc). `root`: the
    scratch copy's real path with a trailing separator."""
    import pytest

    if not items:
        return False
    for item in items:
        node = item.getparent(pytest.Module)
        if node is None or type(node) is not pytest.Module:
            return False
    project = {name for name, mod in list(sys.modules.items()) if _under(mod, root)}
    return not any(_holds_project(p, project) for p in _plugins(items[0].config, root))


def run_live(
    finder: MutantFinder,
    items: list[pytest.Item],
    ordered: list[str],
    report: Report,
    known: set[str],
    hunt: Hunt,
    first: int,
    root: str,
) -> ChildResult:
    """In the child, the mutated module's finder first on `sys.meta_path`: drop the project's
    modules but its plugins, collect the test modules of `items` again, run the tests of the
    functions of `ordered` - those of `ordered` (the first `first` of them state writers, kept
    first), then ids not in `known`, then the rest, as a new session orders them."""
    import pytest
    from _pytest.nodes import Item
    from _pytest.runner import collect_one_node

    config = items[0].config
    kept = {id(p) for p in _plugins(config, root)}
    for name, mod in list(sys.modules.items()):
        if _under(mod, root) and id(mod) not in kept:
            del sys.modules[name]
    modules: dict[str, Any] = {}
    for item in items:
        node = item.getparent(pytest.Module)
        if node is not None:  # `live` said so
            modules.setdefault(node.nodeid, node)
    fresh: list[pytest.Item] = []
    for node in modules.values():
        todo = [type(node).from_parent(node.parent, path=node.path)]
        while todo:
            rep = collect_one_node(todo.pop(0))
            if not rep.passed:  # the mutant breaks a test module's import or parametrization
                if finder.error is not None:
                    return {"import_error": finder.error}
                return {"killed_by": [rep.nodeid or node.nodeid], "tests_completed": 0}
            fresh += [bound(x) for x in rep.result if isinstance(x, Item)]
            todo = [x for x in rep.result if not isinstance(x, Item)] + todo
    if finder.unapplied is not None:  # nothing to learn from running them
        return {"unapplied": finder.unapplied}
    wanted = {function_of(nodeid) for nodeid in ordered}
    selected = [x for x in fresh if function_of(x.nodeid) in wanted]
    config.hook.pytest_collection_modifyitems(
        session=items[0].session, config=config, items=selected
    )
    rank = {nodeid: i for i, nodeid in enumerate(ordered)}

    def key(item: pytest.Item) -> tuple[int, int]:
        i = rank.get(item.nodeid)
        if i is not None:
            return (0 if i < first else 2, i)
        return (1, 0) if item.nodeid not in known else (3, 0)

    result = run_items(sorted(selected, key=key), report, hunt)
    if finder.error is not None:
        return {"import_error": finder.error}
    return result
