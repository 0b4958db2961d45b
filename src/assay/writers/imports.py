"""Names an answer uses and never binds - the module's own `Decimal`, `re`, the class under test,
`pytest` - cost a small model a whole round (NameError at gate 2, then often the same file again).
When the code under test's module binds such a name (defines it, or imports it), the same import is
added to the file: a repair that cannot change what a test means, only whether it runs."""

from __future__ import annotations

import ast
import builtins
from collections.abc import Collection

from assay.writers.edit import remove_tests

BUILTINS = set(dir(builtins))


def module_bindings(source: str, dotted: str) -> dict[str, str]:
    """name -> the import statement that binds it in a test: the module's own name, every
    top-level name of the module - its own definitions (from the module itself) and what it
    imports - and `pytest`."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return {}
    out: dict[str, str] = {"pytest": "import pytest"}
    if dotted:  # `inflection.camelize(...)` in a test of inflection
        out[dotted.split(".")[0]] = f"import {dotted}"
    for node in tree.body:
        if isinstance(node, ast.Import):
            for a in node.names:
                if a.asname:
                    out[a.asname] = f"import {a.name} as {a.asname}"
                elif "." not in a.name:
                    out[a.name] = f"import {a.name}"
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            for a in node.names:
                if a.name != "*" and node.module != "__future__":
                    bind = a.asname or a.name
                    alias = f" as {a.asname}" if a.asname else ""
                    out[bind] = f"from {node.module} import {a.name}{alias}"
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) and dotted:
            out[node.name] = f"from {dotted} import {node.name}"
        elif isinstance(node, ast.Assign | ast.AnnAssign) and dotted:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for t in targets:
                if isinstance(t, ast.Name):
                    out[t.id] = f"from {dotted} import {t.id}"
    return out


def unbound_reads(code: str, known: Collection[str]) -> tuple[ast.Module | None, list[str]]:
    """`code`'s tree (None when it does not parse) and the names of `known` it reads but binds
    nowhere, sorted."""
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError):
        return None, []
    read = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
    return tree, sorted(n for n in read - bound_names(tree) - BUILTINS if n in known)


def add_missing_imports(code: str, bindings: dict[str, str]) -> tuple[str, list[str]]:
    """`code` with an import for each name it reads but binds nowhere, when `bindings` knows one;
    and those names. Unchanged when it does not parse."""
    tree, missing = unbound_reads(code, bindings)
    if tree is None or not missing:
        return code, []
    lines = code.splitlines()
    at = import_end(tree)
    added = sorted({bindings[n] for n in missing})
    lines[at:at] = added + (["", ""] if at == 0 else [])  # before the code: set apart
    return "\n".join(lines).rstrip("\n") + "\n", missing


def import_end(tree: ast.Module) -> int:
    """The line after which code goes: the last top-level import's, else the docstring's, else 0."""
    return max(
        (n.end_lineno or n.lineno for n in tree.body if isinstance(n, ast.Import | ast.ImportFrom)),
        default=_after_docstring(tree),
    )


def bound_names(tree: ast.Module) -> set[str]:
    """Every name the file binds anywhere (an over-estimate is safe: it only adds no import)."""
    out: set[str] = set()
    for n in ast.walk(tree):
        if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load):
            out.add(n.id)
        elif isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            out.add(n.name)
        elif isinstance(n, ast.arg):
            out.add(n.arg)
        elif isinstance(n, ast.alias):
            out.add((n.asname or n.name).split(".")[0])
        elif isinstance(n, ast.ExceptHandler) and n.name:
            out.add(n.name)
        elif isinstance(n, ast.Global | ast.Nonlocal):
            out.update(n.names)
        elif isinstance(n, ast.MatchAs | ast.MatchStar) and n.name:
            out.add(n.name)
    return out


def _after_docstring(tree: ast.Module) -> int:
    first = tree.body[0] if tree.body else None
    if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
        return first.end_lineno or first.lineno
    return 0


def unimport_unbound(code: str, module: str, dotted: str) -> str:
    """`code` whose one-line imports from the module under test (`dotted`) no longer name what the
    module never binds (a constant of the project's tests, say); unchanged when nothing is taken
    out, either text does not parse, or the module star-imports (it may bind anything)."""
    try:
        tree, mod = ast.parse(code), ast.parse(module)
    except (SyntaxError, ValueError):
        return code
    star = any(isinstance(n, ast.ImportFrom) and n.names[0].name == "*" for n in ast.walk(mod))
    if not dotted or star:
        return code
    known = bound_names(mod)
    lines = code.splitlines()
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and node.module == dotted and not node.level:
            names = [a for a in node.names if a.name in known or a.name == "*"]
            if len(names) < len(node.names) and node.lineno == node.end_lineno and names:
                kept = ", ".join(a.name + (f" as {a.asname}" if a.asname else "") for a in names)
                lines[node.lineno - 1] = f"from {dotted} import {kept}"
    fixed = "\n".join(lines) + "\n"
    return fixed if fixed.strip() != code.strip() else code


def drop_unbound(code: str, module: str, dotted: str) -> tuple[str, list[str]]:
    """`code` without what fails its collection for a name nobody binds: a name imported from the
    module under test that the module never binds (`unimport_unbound`), and each top-level test
    whose decorators read a name the file never binds
    (`@pytest.mark.parametrize(..., UNDERSCORE_TO_HUMAN)`). One such test fails the whole file at
    gate 1; the others are kept. Returns the tests taken out; unchanged when nothing is unbound,
    no test would be left, or either text does not parse."""
    try:
        ast.parse(module)
        tree = ast.parse(fixed := unimport_unbound(code, module, dotted))
    except (SyntaxError, ValueError):
        return code, []
    bound = bound_names(tree) | BUILTINS
    tests = [
        n.name
        for n in tree.body
        if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)
        and n.name.startswith("test")
        and any(
            isinstance(x, ast.Name) and x.id not in bound
            for d in n.decorator_list
            for x in ast.walk(d)
        )
    ]
    if not tests:
        return fixed, []
    rest = remove_tests(fixed, tests)
    return (rest, tests) if rest is not None else (code, [])
