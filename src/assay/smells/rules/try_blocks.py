"""Shapes of `try` blocks and of the functions a test defines, for AS007: whether a handler can be
skipped depends on what the `try` runs."""

from __future__ import annotations

import ast
from collections.abc import Mapping


def surely_raises(body: list[ast.stmt], local: Mapping[str, ast.AST], depth: int = 0) -> bool:
    """The block raises whatever the project does: a `raise`, a division of a number by a zero
    literal, or a call of a function the test defines whose own body surely raises, before any
    statement that could return or jump."""
    for stmt in body:
        value = stmt.value if isinstance(stmt, ast.Expr | ast.Assign | ast.Return) else None
        if isinstance(stmt, ast.Raise) or (value is not None and _raising(value, local, depth)):
            return True
        if isinstance(stmt, ast.Return) or not isinstance(stmt, ast.Expr | ast.Assign | ast.Pass):
            return False
    return False


def _raising(e: ast.expr, local: Mapping[str, ast.AST], depth: int) -> bool:
    if isinstance(e, ast.BinOp) and isinstance(e.op, ast.Div | ast.FloorDiv | ast.Mod):
        left, right = e.left, e.right
        return (
            isinstance(left, ast.Constant)
            and type(left.value) in (int, float)
            and isinstance(right, ast.Constant)
            and type(right.value) in (int, float)
            and not right.value
        )
    if isinstance(e, ast.Call) and isinstance(e.func, ast.Name) and depth < 5:
        fn = local.get(e.func.id)
        return isinstance(fn, ast.FunctionDef) and surely_raises(fn.body, local, depth + 1)
    return False


def in_nested_functions(fn: ast.AST) -> set[int]:
    """Ids of the nodes inside functions defined in the test's body."""
    inner = [
        n
        for n in ast.walk(fn)
        if n is not fn and isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)
    ]
    return {id(n) for f in inner for n in ast.walk(f)}


def raises_on(handler: ast.ExceptHandler) -> bool:
    """The handler ends by raising what it caught (`raise`, `raise e`)."""
    last = handler.body[-1] if handler.body else None
    return isinstance(last, ast.Raise) and (
        last.exc is None
        or (
            isinstance(last.exc, ast.Name)
            and handler.name is not None
            and last.exc.id == handler.name
        )
    )
