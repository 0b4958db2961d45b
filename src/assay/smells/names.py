"""Names in a test's syntax tree as the rules compare them: `np.random.rand` with its
import resolved."""

from __future__ import annotations

import ast


def dotted(node: ast.AST, aliases: dict[str, str]) -> str | None:
    """`np.random.rand` -> `numpy.random.rand` using the module's imports; None for
    non-name chains."""
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Call):  # Path(x).write_text -> Path().write_text
        inner = dotted(node.func, aliases)
        if inner is None:
            return None
        parts.append(inner + "()")
        return ".".join(reversed(parts))
    if not isinstance(node, ast.Name):
        return None
    parts.append(aliases.get(node.id, node.id))
    return ".".join(reversed(parts))


def last_name(name: str | None) -> str:
    return name.rsplit(".", 1)[-1] if name else ""
