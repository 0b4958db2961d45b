"""Whether an attribute a test asserts on holds a flag (its truthiness is its value) or a value
(truthiness passes for almost any wrong one). Read from the target modules' source, never run."""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterator

from assay.smells.index import TargetIndex

# unittest.mock's records of calls: truthy once anything was called (`called` is its flag)
MOCK_RECORDS = {
    "call_args",
    "call_args_list",
    "mock_calls",
    "method_calls",
    "call_count",
    "return_value",
    "side_effect",
}
VALUE_NODES = (
    ast.List,
    ast.Dict,
    ast.Set,
    ast.Tuple,
    ast.ListComp,
    ast.DictComp,
    ast.SetComp,
    ast.GeneratorExp,
    ast.JoinedStr,
    ast.BinOp,
)


def holds_value(
    attr: str, index: TargetIndex | None, boolean: Callable[[ast.expr | None], bool]
) -> bool:
    """`obj.attr` holds a value, not a flag: a dunder (`__doc__`), a mock's call record, or an
    attribute the target modules only ever give values (a number, a string, a list, a
    non-`bool` annotation), never a comparison, a `not`, an `and`/`or`, a bool or a name (a
    parameter may be a flag). An attribute assay cannot see defined is taken as a flag: the
    object's state after the test's action (`s.closed`)."""
    if attr.startswith("__") and attr.endswith("__"):
        return True
    if attr in MOCK_RECORDS:
        return True
    seen = [_value(e, boolean) for e in _definitions(attr, index)]
    return bool(seen) and all(seen)


def _value(e: ast.expr | None, boolean: Callable[[ast.expr | None], bool]) -> bool:
    if e is None or boolean(e):
        return False
    if isinstance(e, ast.Constant):
        return e.value is not None
    if isinstance(e, ast.IfExp):
        return _value(e.body, boolean) and _value(e.orelse, boolean)
    if isinstance(e, ast.Call):
        return True  # not a predicate (`boolean` said so): a value the call computed
    return isinstance(e, VALUE_NODES)


def _definitions(attr: str, index: TargetIndex | None) -> Iterator[ast.expr | None]:
    """What the target modules' classes assign to `attr` (`self.attr = ...` in a method, a
    class-level assignment or annotation) or return from a property of that name. An annotation
    stands for its values: `bool` as a flag, any other type as a value."""
    if index is None:
        return
    for cls in index.classes.values():
        for item in cls.body:
            if isinstance(item, ast.Assign) and any(_names(t, attr, "") for t in item.targets):
                yield item.value
            elif isinstance(item, ast.AnnAssign) and _names(item.target, attr, ""):
                flag = isinstance(item.annotation, ast.Name) and item.annotation.id == "bool"
                yield ast.Constant(value=False if flag else "a value")
                if item.value is not None:
                    yield item.value
        for node in ast.walk(cls):
            if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            if node.name == attr:
                yield from (r.value for r in ast.walk(node) if isinstance(r, ast.Return))
                continue
            for a in ast.walk(node):
                targets = a.targets if isinstance(a, ast.Assign) else []
                if isinstance(a, ast.AnnAssign):
                    targets = [a.target]
                if any(_names(t, attr, "self") for t in targets):
                    yield a.value  # type: ignore[attr-defined]


def _names(target: ast.expr, attr: str, owner: str) -> bool:
    """`attr = ...` at class level (no owner) or `self.attr = ...` in a method."""
    if not owner:
        return isinstance(target, ast.Name) and target.id == attr
    return (
        isinstance(target, ast.Attribute)
        and target.attr == attr
        and isinstance(target.value, ast.Name)
        and target.value.id == owner
    )
