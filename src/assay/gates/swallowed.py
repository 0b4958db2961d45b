"""Imports a test swallows: `try: import cjkwrap ... except ImportError: pass` (texttable's
`test_cjkwarp`) passes, checking nothing, when the module is missing. When the project needs that
module (declared, imported by its code or its committed tests) and the test interpreter lacks it,
the pass hides an environment gap: the test is `unvalidated` with the module named, never judged
`low_value` for reaching no code."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable

from assay.dependencies import Dependencies, Gap
from assay.dependencies.installed import Installed

IMPORT_ERRORS = {"ImportError", "ModuleNotFoundError", "Exception", "BaseException"}
SWALLOWED = "; the test catches the ImportError and checks nothing without it"
_UNDEFINED = re.compile(r"NameError: name '(\w+)' is not defined")


def _catches_import_error(handler: ast.ExceptHandler) -> bool:
    if handler.type is None:
        return True
    types = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
    names = {t.attr if isinstance(t, ast.Attribute) else getattr(t, "id", "") for t in types}
    return bool(names & IMPORT_ERRORS)


def _guarded_imports(fn: ast.AST) -> list[str]:
    """Modules imported inside a `try` whose handler catches the ImportError, in order."""
    found: list[str] = []
    for node in ast.walk(fn):
        if not isinstance(node, ast.Try) or not any(map(_catches_import_error, node.handlers)):
            continue
        for stmt in node.body:
            for imp in ast.walk(stmt):
                if isinstance(imp, ast.Import):
                    found += [a.name for a in imp.names]
                elif isinstance(imp, ast.ImportFrom) and imp.module and not imp.level:
                    found.append(imp.module)
    return found


def _function(tree: ast.Module, nodeid: str) -> ast.AST | None:
    """The test function a node id names (`file::Class::test_x[case]`)."""
    parts = nodeid.split("::")[1:]
    scope: list[ast.stmt] = tree.body
    found: ast.AST | None = None
    for part in parts:
        name = part.split("[", 1)[0]
        found = next(
            (
                n
                for n in scope
                if isinstance(n, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
                and n.name == name
            ),
            None,
        )
        if found is None:
            return None
        scope = getattr(found, "body", [])
    return found


def swallowed_gaps(
    source: str,
    nodeids: Iterable[str],
    deps: Dependencies,
    installed: Installed | None,
) -> dict[str, Gap]:
    """Passing tests of the file (its `source`) whose guarded import the environment lacks, with the
    gap (None of them when the interpreter is not known: a module might be there)."""
    if installed is None:
        return {}
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return {}
    out: dict[str, Gap] = {}
    for nodeid in nodeids:
        fn = _function(tree, nodeid)
        for module in _guarded_imports(fn) if fn is not None else []:
            top = module.split(".")[0]
            gap = deps.gap([f"ModuleNotFoundError: No module named '{top}'"], installed)
            if gap is not None and gap.kind == "module":
                out[nodeid] = gap
                break
    return out


def left_undefined(
    source: str, message: str, installed: Installed | None
) -> tuple[str, list[str]] | None:
    """The name a collection's `NameError` (`message`) reports, when a `try` of the file that
    catches the ImportError imports it, and the missing-module text of the first of that `try`'s
    imports the interpreter lacks (the one that stopped it): mccabe's `test_mccabe.py` decorates
    with `@settings(...)` from a guarded `from hypothesis import settings`."""
    found = _UNDEFINED.search(message)
    if not found or installed is None:
        return None
    name = found.group(1)
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return None
    for node in ast.walk(tree):
        if not isinstance(node, ast.Try) or not any(map(_catches_import_error, node.handlers)):
            continue
        bound = {
            (a.asname or a.name).split(".")[0]
            for stmt in node.body
            for imp in ast.walk(stmt)
            if isinstance(imp, ast.Import | ast.ImportFrom)
            for a in imp.names
        }
        if name in bound:
            missing = [m for m in _guarded_imports(node) if not installed.has(m)][:1]
            return name, [f"ModuleNotFoundError: No module named '{m}'" for m in missing]
    return None
