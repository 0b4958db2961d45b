"""A `unittest.TestCase`'s `setUp` is its fixture: the tests that take project objects from it.

pytest runs `setUp` (and `asyncSetUp`) in a test's call phase, but what it builds is what a pytest
fixture would hand the test: its code is not what the test is accountable for at gate 4 (the
baseline records a TestCase's own method apart, `_assay_sandbox.mutation.baseline_child`).
simpleeval's `DRYTest.setUp` builds a `SimpleEval()` for every test; a test of one feature was
rejected for the survivors of `SimpleEval.__init__`. A test that then reaches no mutant in scope
(it checks the defaults of the object `setUp` built) is not judged by gate 4, as a test fed by a
conftest fixture is not (`reach.fed_tests`): a note says so, never `low_value`.
"""

from __future__ import annotations

import ast
from pathlib import Path

from assay.project import Project
from assay.smells.context import Module
from assay.smells.mixins import written_in
from assay.smells.names import dotted, last_name

SET_UPS = ("setUp", "asyncSetUp", "setUpClass")


def set_up_fed(project: Project, rel: str, source: str) -> dict[str, str]:
    """Test method (`Class::test_x`) -> how its class's set-up hands it the project's objects
    (`takes its objects from setUp (tests/base.py)`), for set-ups that name what their file
    imports from the project."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return {}
    module = Module(tree, rel, source.splitlines())
    out: dict[str, str] = {}
    for test in module.tests:
        if test.cls is None:
            continue
        found = _set_up(module, project.root, test.cls, frozenset())
        if found and _feeds(project, *found):
            where, method = found
            out[test.name] = f"takes its objects from {method.name} ({where.path})"
    return out


def _set_up(
    module: Module, root: Path, cls: ast.ClassDef, seen: frozenset[str]
) -> tuple[Module, ast.FunctionDef | ast.AsyncFunctionDef] | None:
    """The first set-up method of `cls` or of its bases (in this file or another project file),
    with the module it is written in."""
    for item in cls.body:
        if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef) and item.name in SET_UPS:
            return module, item
    for b in cls.bases:
        full = dotted(b, module.aliases) or ""
        name = last_name(full)
        if not name or name in seen or full.startswith("unittest."):
            continue
        if name in module.classes:
            found = _set_up(module, root, module.classes[name], seen | {name})
        else:
            other = written_in(module, root, full)
            found = _set_up(other, root, other.classes[name], seen | {name}) if other else None
        if found:
            return found
    return None


def _feeds(
    project: Project, module: Module, method: ast.FunctionDef | ast.AsyncFunctionDef
) -> bool:
    """Whether `method` names something its file imports from the project."""
    from_project: set[str] = set()
    for node in module.tree.body:
        if isinstance(node, ast.Import | ast.ImportFrom) and project.targets_of(
            ast.unparse(node), module.path
        ):
            from_project |= {(a.asname or a.name).split(".")[0] for a in node.names}
    return any(isinstance(n, ast.Name) and n.id in from_project for n in ast.walk(method))
