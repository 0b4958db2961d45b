"""Which functions read the data a module-level statement builds: a mutant of a rule table
(`PLURALS = [...]`, `_irregular('person', 'people')` at import) matters only to the functions
that read that table, directly or through the module's functions they call."""

from __future__ import annotations

import ast
from collections.abc import Iterable


def _names(nodes: Iterable[ast.AST]) -> set[str]:
    return {n.id for node in nodes for n in ast.walk(node) if isinstance(n, ast.Name)}


def readers(text: str) -> dict[int, set[str]]:
    """Line of a module-level statement -> the functions (`f`, `Class.method`) that read a name
    it binds or changes (a call at import: the names the called function uses); lines of no
    statement, or of one no function reads, are absent."""
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return {}
    defs: dict[str, set[str]] = {}  # function -> module names it reads
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            defs[node.name] = _names(node.body)
        elif isinstance(node, ast.ClassDef):
            for item in node.body:
                if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    defs[f"{node.name}.{item.name}"] = _names(item.body)
    # through the module's functions a function calls
    for _ in range(3):
        for fn, names in defs.items():
            for callee in [c for c in names if c in defs and c != fn]:
                names |= defs[callee]
    module_names = _names(
        t
        for node in tree.body
        if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign))
        for t in (node.targets if isinstance(node, ast.Assign) else [node.target])
    )
    out: dict[int, set[str]] = {}
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            bound = _names(targets)
        else:  # a call at import: what the function it calls touches
            called = [
                n.func.id
                for n in ast.walk(node)
                if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)
            ]
            bound = set().union(*(defs.get(c, set()) for c in called)) & module_names
        users = {fn for fn, names in defs.items() if names & bound}
        if users:
            for line in range(node.lineno, (node.end_lineno or node.lineno) + 1):
                out[line] = users
    return out


def called_at_import(text: str) -> dict[str, list[int]]:
    """A module's functions that module-level statements call (`_irregular('person', 'people')`:
    a helper that fills the tables) -> the lines of those statements: a mutant of such a function
    changes the tables, and is reached by what reaches one of its calls."""
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return {}
    defs = {n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
    out: dict[str, list[int]] = {}
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        for call in ast.walk(node):
            if (
                isinstance(call, ast.Call)
                and isinstance(call.func, ast.Name)
                and call.func.id in defs
            ):
                out.setdefault(call.func.id, []).append(node.lineno)
    return out
