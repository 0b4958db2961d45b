"""Where a file's tests enter the project when they reach it only through other code: the
functions the run executed that no code of the reached modules refers to (`mutation.entered`
says why). Here, in the worker, so that the mutants of the code those entries delegate to are
set aside before any runs (python-dotenv's `test_ipython.py`: 170 of 177, 464 s, ran for
nothing); the parent decides again from the same facts (the run's scope and the sources).
"""

from __future__ import annotations

import ast
import contextlib


def overload_stub(node: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """A `@typing.overload` signature: the def after it replaces it, and it never runs."""
    return any(
        (d.id if isinstance(d, ast.Name) else d.attr if isinstance(d, ast.Attribute) else "")
        == "overload"
        for d in node.decorator_list
    )


def function_defs(tree: ast.Module) -> dict[str, ast.FunctionDef | ast.AsyncFunctionDef]:
    """Qualname of every def (`f`, `C.m`, `f.<locals>.g`; the first of a redefined name) -> its
    node, in nested statements too (an `if`, a `try`, an `except`). `@overload` signatures are
    not defs of their name: async_lru 2.4.0's `alru_cache` took the span of its first overload,
    and the code its tests ran, in the def that follows them, was out of gate 4's scope."""
    found: dict[str, ast.FunctionDef | ast.AsyncFunctionDef] = {}

    def walk(body: list[ast.stmt], qual: str) -> None:
        for node in body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and overload_stub(node):
                continue
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                name = f"{qual}{node.name}"
                found.setdefault(name, node)
                walk(node.body, f"{name}.<locals>.")
            elif isinstance(node, ast.ClassDef):
                walk(node.body, f"{qual}{node.name}.")
            else:
                for child in ast.iter_child_nodes(node):
                    if isinstance(child, ast.stmt):
                        walk([child], qual)
                    elif isinstance(child, ast.ExceptHandler):
                        walk(child.body, qual)

    walk(tree.body, "")
    return found


def _referred(tree: ast.Module) -> list[tuple[str, int]]:
    """The names the module's code refers to (a name read, an attribute's name, an import), with
    their line; a function's reads of its own local variables (main.py's `dotenv = DotEnv(...)`)
    are not references to a function of that name."""
    out: list[tuple[str, int]] = []

    def visit(node: ast.AST, local: frozenset[str]) -> None:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            local = frozenset(_bound(node))
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            if node.id not in local:
                out.append((node.id, node.lineno))
        elif isinstance(node, ast.Attribute):
            out.append((node.attr, node.lineno))
        elif isinstance(node, ast.Import | ast.ImportFrom):
            out.extend((a.asname or a.name.rsplit(".", 1)[-1], node.lineno) for a in node.names)
        for child in ast.iter_child_nodes(node):
            visit(child, local)

    visit(tree, frozenset())
    return out


def _bound(node: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda) -> set[str]:
    """The names a function binds itself: its parameters and what it assigns."""
    args = node.args
    every = [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg]
    bound = {a.arg for a in every if a is not None}
    body = node.body if isinstance(node.body, list) else [node.body]
    for stmt in body:
        bound.update(
            n.id for n in ast.walk(stmt) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)
        )
    return bound


def _called_as(qualname: str) -> str:
    """The name project code would use to run it: a dunder method runs through its class."""
    parts = [p for p in qualname.split(".") if p != "<locals>"]
    if parts[-1].startswith("__") and parts[-1].endswith("__") and len(parts) > 1:
        return parts[-2]
    return parts[-1]


def entry_points(scope: dict[str, list[str]], sources: dict[str, str]) -> dict[str, list[str]]:
    """rel -> the executed functions of `scope` that no code of `sources` refers to outside their
    own body."""
    trees: dict[str, ast.Module] = {}
    for rel, text in sources.items():
        with contextlib.suppress(SyntaxError, ValueError):
            trees[rel] = ast.parse(text)
    refs: dict[str, list[tuple[str, int]]] = {}  # name -> (module, line) of each reference
    for rel, tree in trees.items():
        for ref, line in _referred(tree):
            refs.setdefault(ref, []).append((rel, line))
    out: dict[str, list[str]] = {}
    for rel, names in scope.items():
        defs = function_defs(trees[rel]) if rel in trees else {}
        for name in names:
            node = defs.get(name)
            if node is None:
                continue
            first, last = node.lineno, node.end_lineno or node.lineno
            if all(
                other == rel and first <= line <= last
                for other, line in refs.get(_called_as(name), ())
            ):
                out.setdefault(rel, []).append(name)
    return out


def beyond_entries(
    scope: dict[str, list[str]], sources: dict[str, str]
) -> tuple[dict[str, list[str]], dict[str, list[str]]]:
    """(the entry points, the executed functions of the reached modules that hold none) for a
    file whose tests call no project code themselves; nothing beyond when every reached module
    holds one, or none does (the entries could not be told)."""
    entries = entry_points(scope, sources)
    beyond = {rel: list(names) for rel, names in scope.items() if names and rel not in entries}
    if not entries or not beyond:
        return entries, {}
    return entries, beyond
