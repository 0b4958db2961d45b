"""What a Python module's syntax says of the names it imports and defines: what `Project` follows
a test file's imports with."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path


def imported(source: str, test_rel: str) -> Iterator[tuple[str, str | None]]:
    """(module, name) of each `from module import name`, (module, None) of each `import module`,
    relative imports made absolute by the file's path; nothing when it does not parse."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return
    package = list(Path(test_rel).with_suffix("").parts[:-1])
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, None
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - node.level + 1] if node.level > 1 else package
                module = ".".join([*base, node.module] if node.module else base)
            else:
                module = node.module or ""
            for alias in node.names:
                yield module, alias.name


def module_level(body: list[ast.stmt]) -> Iterator[ast.stmt]:
    """A module's statements that run at import, inside `try`, `if` and `with` blocks too (an
    import guarded by `try: ... except ImportError:`), not in functions or classes."""
    for node in body:
        yield node
        for field_name in ("body", "orelse", "finalbody"):
            inner = getattr(node, field_name, None)
            if isinstance(inner, list) and not isinstance(
                node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef
            ):
                yield from module_level(inner)
        for handler in getattr(node, "handlers", ()):
            yield from module_level(handler.body)


def defines(text: str, name: str) -> bool:
    """Whether a module's source defines `name` as a function or class at its top level."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return False
    return any(
        isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) and n.name == name
        for n in tree.body
    )


def defined(node: ast.stmt) -> set[str]:
    """The names a module-level statement defines itself (not by importing them)."""
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        return {node.name}
    if isinstance(node, ast.Assign | ast.AnnAssign | ast.AugAssign):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        names = [
            e for t in targets for e in (t.elts if isinstance(t, ast.Tuple | ast.List) else [t])
        ]
        return {n.id for n in names if isinstance(n, ast.Name)}  # not `cls.attr = ...`
    return set()
