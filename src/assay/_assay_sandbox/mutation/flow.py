"""A module body read statically: which names an import-time mutant can change, and which in-place
writes the body makes only into objects it has just built.

Re-running a body re-creates every value, and some differ from the old ones whatever the mutant
does: `object()` sentinels, `random.Random()` instances, dataclasses whose generated methods get
fresh globals. A name counts as changed by the mutant only when its statement may depend on the
mutated one (reads a name it binds, or calls code that does); the rest changed the same way a re-run
of the original does.

`x.attr = v` / `x[k] = v` / `x += v` in code run at import are effects outside the namespace
unless `x` holds an object this body made itself (`batched.__doc__ = ...` after its `def`;
`data[i] = 0` on a local `bytearray(...)`): those are listed as safe lines. Standalone (stdlib
only), like the worker.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Iterator
from typing import Any

from .bytecode import _DYNAMIC as DYNAMIC_NAMES

# calls that build a new object (unless the name is rebound by the module)
_BUILDERS = {
    "list",
    "dict",
    "set",
    "bytearray",
    "frozenset",
    "tuple",
    "bytes",
    "object",
    "deque",
    "defaultdict",
    "OrderedDict",
    "Counter",
    "array",
}
_DISPLAYS = (
    ast.List,
    ast.Dict,
    ast.Set,
    ast.ListComp,
    ast.DictComp,
    ast.SetComp,
    ast.Tuple,
    ast.Constant,
    ast.JoinedStr,
)
# reading a namespace without spelling the names read
_DYNAMIC = DYNAMIC_NAMES | {"locals", "setattr", "__import__", "import_module", "modules", "reload"}
_SCOPES = (
    ast.FunctionDef,
    ast.AsyncFunctionDef,
    ast.ClassDef,
    ast.Lambda,
    ast.ListComp,
    ast.SetComp,
    ast.DictComp,
    ast.GeneratorExp,
)


class Statement:
    def __init__(self, node: ast.stmt):
        self.first = min([node.lineno, *(d.lineno for d in getattr(node, "decorator_list", ()))])
        self.last = node.end_lineno or node.lineno
        self.binds = _binds(node)
        names = {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}
        attrs = {n.attr for n in ast.walk(node) if isinstance(n, ast.Attribute)}
        self.reads = names
        self.dynamic = bool((names | attrs) & _DYNAMIC)
        self.callable = isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))


class Body:
    def __init__(self, source: str):
        tree = ast.parse(source)
        self.statements = [Statement(node) for node in tree.body]
        self.bound = set().union(set(), *(s.binds for s in self.statements))
        self.functions: dict[int, ast.FunctionDef | ast.AsyncFunctionDef] = {}
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
                self.functions.setdefault(first, node)
        self.module_safe = _safe_lines(tree.body, _fresh_names(_assignments(tree.body)), scope=None)
        self._function_safe: dict[int, set[int]] = {}

    def influenced(self, line: int) -> set[str] | None:
        """Names whose value may depend on the top-level statement holding `line` (None: any
        name may).

        A statement that depends on it may also change, in place, whatever it reads and whatever the
        functions it calls read (`_irregular(...)` at import inserting into `PLURALS`): those names
        count too.
        """
        k = next((i for i, s in enumerate(self.statements) if s.first <= line <= s.last), None)
        if k is None:
            return None
        mutated = self.statements[k]
        # it may change in place what it reads
        hot = set(mutated.binds) | self._reach(mutated.reads)
        grew = True
        while grew:
            grew = False
            for i, s in enumerate(self.statements):
                if i == k or not (s.dynamic or s.reads & hot):
                    continue
                # a def or class reading a hot name: calling it may depend on the mutant
                if s.callable:
                    add = s.binds
                elif i < k:
                    continue
                elif s.dynamic:
                    return None
                else:
                    add = s.binds | self._reach(s.reads)
                if not add <= hot:
                    hot |= add
                    grew = True
        return hot

    def _reach(self, names: set[str]) -> set[str]:
        """`names` and every name read by the module's functions and classes they
        name, transitively."""
        out = set(names)
        grew = True
        while grew:
            grew = False
            for s in self.statements:
                if s.callable and s.binds & out and not s.reads <= out:
                    out |= s.reads
                    grew = True
        return out

    def mutant_changed(self, changed: set[str], line: int) -> set[str]:
        """Of the names a re-run changed, those the mutated statement may have changed: names bound
        by statements that cannot depend on it changed as a re-run of the original changes them."""
        hot = self.influenced(line)
        if hot is None:
            return changed
        return {n for n in changed if n in hot or n not in self.bound}

    def safe_store(self, function: bool, first_line: int, line: int) -> bool:
        """Whether the in-place write at `line` (in the module or a class body, or in the function
        starting at `first_line`) only touches an object this run built."""
        if not function:
            return line in self.module_safe
        node = self.functions.get(first_line)
        if node is None:
            return False
        safe = self._function_safe.get(first_line)
        if safe is None:
            safe = self._function_safe[first_line] = _safe_lines(
                node.body, _fresh_locals(node), scope=node
            )
        return line in safe


def _binds(node: ast.AST) -> set[str]:
    """Names a top-level statement binds in the module namespace (not inside nested scopes,
    walrus aside)."""
    out: set[str] = set()

    def visit(n: ast.AST, top: bool) -> None:
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out.add(n.name)
            args = getattr(n, "args", None)
            for d in [
                *n.decorator_list,
                *getattr(args, "defaults", ()),
                *getattr(args, "kw_defaults", ()),
            ]:
                if d is not None:
                    visit(d, False)
            return
        if isinstance(n, ast.NamedExpr) and isinstance(n.target, ast.Name):
            out.add(n.target.id)
        if isinstance(n, (ast.Import, ast.ImportFrom)):
            out.update((a.asname or a.name).split(".")[0] for a in n.names if a.name != "*")
        if isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del)) and top:
            out.add(n.id)
        inner = top and not isinstance(n, _SCOPES)
        for child in ast.iter_child_nodes(n):
            visit(child, inner)

    visit(node, True)
    return out


def _fresh(value: ast.AST | None, fresh: set[str]) -> bool:
    """An expression that builds a new object (or an immutable one)."""
    if value is None:
        return False
    if isinstance(value, _DISPLAYS):
        return True
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Name):
        return value.func.id in _BUILDERS
    if isinstance(value, ast.BinOp):
        return _fresh(value.left, fresh)
    return isinstance(value, ast.Name) and value.id in fresh


def _assignments(body: list[ast.stmt]) -> Iterator[tuple[str, ast.expr | None]]:
    """(name, value or None) of every binding of a plain name in these statements (nested
    scopes skipped)."""

    def visit(n: ast.AST) -> Iterator[tuple[str, ast.expr | None]]:
        if isinstance(n, (ast.Assign, ast.AnnAssign)):
            targets = n.targets if isinstance(n, ast.Assign) else [n.target]
            for t in targets:
                if isinstance(t, ast.Name):
                    yield t.id, n.value
                else:
                    yield from (
                        (x.id, None)
                        for x in ast.walk(t)
                        if isinstance(x, ast.Name) and isinstance(x.ctx, ast.Store)
                    )
            return
        if isinstance(n, ast.AugAssign) and isinstance(n.target, ast.Name):
            # keeps what the name held: a new or immutable value stays so
            yield (n.target.id, ast.Constant(0))
            return
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            yield n.name, ast.Constant(0)
            return
        if isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del)):
            yield n.id, None  # for targets, with-as, except-as, del: anything
        if isinstance(n, (ast.Import, ast.ImportFrom)):
            yield from (((a.asname or a.name).split(".")[0], None) for a in n.names)
        if isinstance(n, ast.NamedExpr) and isinstance(n.target, ast.Name):
            yield n.target.id, None
        if isinstance(n, (ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
            return
        for child in ast.iter_child_nodes(n):
            yield from visit(child)

    for stmt in body:
        yield from visit(stmt)


def _fresh_names(pairs: Iterable[tuple[str, ast.expr | None]]) -> set[str]:
    values: dict[str, list] = {}
    for name, value in pairs:
        values.setdefault(name, []).append(value)
    fresh: set[str] = set()
    grew = True
    while grew:  # `a = []` then `b = a`: b is fresh too
        grew = False
        for name, vs in values.items():
            if name not in fresh and all(_fresh(v, fresh) for v in vs):
                fresh.add(name)
                grew = True
    return fresh


def _fresh_locals(node: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    args = node.args
    params = {
        a.arg
        for a in [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg]
        if a
    }
    declared = {
        n for s in ast.walk(node) if isinstance(s, (ast.Global, ast.Nonlocal)) for n in s.names
    }
    return _fresh_names(_assignments(node.body)) - params - declared


def _safe_lines(body: list[ast.stmt], fresh: set[str], scope: Any) -> set[int]:
    """Lines whose every in-place write (`x.a = `, `x[k] = `, `del x[k]`, `x += `) goes into a
    fresh name."""
    good: set[int] = set()
    bad: set[int] = set()

    def base(t: ast.AST) -> str | None:
        while isinstance(t, (ast.Attribute, ast.Subscript)):
            t = t.value
        return t.id if isinstance(t, ast.Name) else None

    def visit(n: ast.AST) -> None:
        if n is not scope and isinstance(n, _SCOPES) and not isinstance(n, ast.ClassDef):
            return  # a nested function's writes are its own code object's
        targets: list = []
        if isinstance(n, (ast.Assign, ast.Delete)):
            targets = n.targets
        elif isinstance(n, (ast.AugAssign, ast.AnnAssign)):
            targets = [n.target]
        if isinstance(n, ast.AnnAssign) and n.simple:
            good.add(n.lineno)  # `name: T` stores into the namespace's own `__annotations__`
        for t in targets:
            for sub in ast.walk(t):
                if isinstance(sub, (ast.Attribute, ast.Subscript)) and isinstance(
                    sub.ctx, (ast.Store, ast.Del)
                ):
                    (good if base(sub) in fresh else bad).add(sub.lineno)
            if isinstance(n, ast.AugAssign):
                (good if base(t) in fresh else bad).add(n.lineno)
        for child in ast.iter_child_nodes(n):
            visit(child)

    for stmt in body:
        visit(stmt)
    return good - bad
