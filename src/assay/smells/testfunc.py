"""One test function as the rules see it: its nodes from one walk, its assertions and the values
its names are assigned."""

from __future__ import annotations

import ast
from collections import defaultdict
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any, TypeVar, overload

from assay.smells.checks import Assertion

if TYPE_CHECKING:
    from assay.smells.context import Module

_N = TypeVar("_N", bound=ast.AST)
_M = TypeVar("_M", bound=ast.AST)


@dataclass
class TestFunc:
    node: ast.FunctionDef | ast.AsyncFunctionDef
    cls: ast.ClassDef | None
    module: Module
    nodes: list[ast.AST] = field(default_factory=list)
    by_type: dict[type, list[ast.AST]] = field(default_factory=lambda: defaultdict(list))
    parents: dict[int, ast.AST] = field(default_factory=dict)
    calls: list[tuple[ast.Call, str | None]] = field(default_factory=list)

    @property
    def name(self) -> str:
        return f"{self.cls.name}::{self.node.name}" if self.cls else self.node.name

    @property
    def body(self) -> list[ast.stmt]:
        body = self.node.body
        if (
            body
            and isinstance(body[0], ast.Expr)
            and isinstance(body[0].value, ast.Constant)
            and isinstance(body[0].value.value, str)
        ):
            body = body[1:]
        return body

    @cached_property
    def generated(self) -> bool:
        """Marked `@pytest.mark.assay_generated` (the test, its class, or the
        module's `pytestmark`)."""
        m = self.module
        if m.generated:
            return True
        owners = [self.node, *([self.cls] if self.cls else [])]
        marks = [d for o in owners for d in o.decorator_list]
        if self.cls:
            marks += [
                s.value
                for s in self.cls.body
                if isinstance(s, ast.Assign) and _names(s) == ["pytestmark"]
            ]
        return any(m.marks_generated(e) for e in marks)

    @property
    def params(self) -> list[str]:
        a = self.node.args
        return [x.arg for x in (*a.posonlyargs, *a.args, *a.kwonlyargs)]

    @overload
    def of(self, t: type[_N], /) -> list[_N]: ...

    @overload
    def of(self, t1: type[_N], t2: type[_M], /) -> list[_N | _M]: ...

    @overload
    def of(self, *types: type[ast.AST]) -> list[ast.AST]: ...

    def of(self, *types: type[ast.AST]) -> list[Any]:
        """The test's nodes of the given types (each list in source order for a single type)."""
        if len(types) == 1:
            return self.by_type.get(types[0], [])
        return [n for t in types for n in self.by_type.get(t, [])]

    def ancestors(self, node: ast.AST) -> Iterator[ast.AST]:
        p = self.parents.get(id(node))
        while p is not None and p is not self.node:
            yield p
            p = self.parents.get(id(p))

    @cached_property
    def assertions(self) -> list[Assertion]:
        return (
            [a for a in (self.module.classify(self, c, n) for c, n in self.calls) if a]
            + [
                Assertion(n, "assert", has_msg=n.msg is not None, expr=n.test)
                for n in self.of(ast.Assert)
            ]
            + [Assertion(n, "raise") for n in self.of(ast.Raise)]
        )

    @cached_property
    def assigned(self) -> dict[str, list[ast.AST | None]]:
        """Local name -> the values assigned to it in the test (for following `expected = f(x)`);
        None for a bare annotation (`x: int`)."""
        out: dict[str, list[ast.AST | None]] = defaultdict(list)
        for node in self.of(
            ast.Assign, ast.AnnAssign, ast.AugAssign, ast.For, ast.With, ast.NamedExpr
        ):
            targets: Sequence[ast.expr]
            value: ast.AST | None
            if isinstance(node, ast.Assign):
                targets, value = node.targets, node.value
            elif isinstance(node, (ast.AnnAssign, ast.AugAssign, ast.NamedExpr)):
                targets, value = [node.target], node.value
                if isinstance(node, ast.AugAssign):
                    value = node  # a changed value: never a plain copy
            elif isinstance(node, ast.For):
                targets, value = [node.target], node  # loop variables are not plain copies
            elif isinstance(node, ast.With):
                targets = [i.optional_vars for i in node.items if i.optional_vars is not None]
                value = node
            else:  # not reached: `of` returns only the types asked for
                continue
            for t in targets:
                for n in ast.walk(t):
                    if isinstance(n, ast.Name):
                        out[n.id].append(value if isinstance(t, ast.Name) else t)
        return out


def _names(assign: ast.Assign) -> list[str]:
    return [t.id for t in assign.targets if isinstance(t, ast.Name)]
