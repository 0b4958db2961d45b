"""Per-test coverage without a tracer: statement probes compiled into the live target functions.

Any tracer on 3.10-3.11 (`sys.settrace`, coverage.py's C tracer) runs every frame of the process on
the interpreter's slow tracing path, pytest's own machinery included, and pays a call per target
line; a hot loop in the code under test (more-itertools' `nth_prime` inside `test_primes`) then
costs 5-15x. Here each statement inside a target function gets a probe,
`__assay_probe__(<file, line>)` (a `set.add` bound in builtins), and the live function objects get
the probed code through `__code__`, as mutants do: no tracing at all, one C call per statement
executed in the targets, nothing anywhere else.

Statement level: a probe records the first line of its statement, which is the line a mutant's span
always includes (`stmt_line`). Module and class bodies ran at import: the collection tracer has
their lines. Every live function of the targets must take its probed code (same closure layout, one
unambiguous match), or `instrument` returns None and the caller uses a tracer instead. A target
first imported later (by a fixture, inside a test) is loaded from its probed code (`_ProbedFinder`):
its functions were not live to take it.
"""

from __future__ import annotations

import ast
import builtins
import gc
import importlib.machinery
import os
import sys
import types
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .shapes import Functions

PROBE = "__assay_probe__"
_SCALE = 1_000_000  # probe constant = file index * _SCALE + line


class _Probes(ast.NodeTransformer):
    def __init__(self, base: int):
        self.base = base
        self.depth = 0  # inside a function

    def _probe(self, stmt: ast.stmt) -> ast.stmt:
        call = ast.Expr(
            ast.Call(ast.Name(PROBE, ast.Load()), [ast.Constant(self.base + stmt.lineno)], [])
        )
        for node in ast.walk(call):
            if isinstance(node, ast.expr | ast.stmt):
                node.lineno, node.col_offset = stmt.lineno, stmt.col_offset
                node.end_lineno, node.end_col_offset = stmt.lineno, stmt.col_offset
        return call

    def _fill(self, node: ast.AST, docstring: bool) -> None:
        for name in ("body", "orelse", "finalbody"):
            stmts = getattr(node, name, None)
            if not (isinstance(stmts, list) and stmts and isinstance(stmts[0], ast.stmt)):
                continue
            out = []
            for i, stmt in enumerate(stmts):
                keep_doc = (
                    docstring
                    and name == "body"
                    and i == 0
                    and isinstance(stmt, ast.Expr)
                    and isinstance(stmt.value, ast.Constant)
                    and isinstance(stmt.value.value, str)
                )
                out += [stmt] if keep_doc else [self._probe(stmt), stmt]
            setattr(node, name, out)

    def visit_FunctionDef(self, node: Any) -> ast.AST:
        self.depth += 1
        self.generic_visit(node)
        self.depth -= 1
        self._fill(node, docstring=True)
        return node

    visit_AsyncFunctionDef = visit_FunctionDef

    def generic_visit(self, node: ast.AST) -> ast.AST:
        super().generic_visit(node)
        if self.depth and not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            self._fill(node, docstring=isinstance(node, ast.ClassDef))
        return node


def _key(code: types.CodeType) -> tuple:
    return (
        getattr(code, "co_qualname", code.co_name),
        code.co_firstlineno,
        code.co_argcount,
        code.co_varnames,
    )


def _index(code: types.CodeType, out: dict) -> None:
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            out.setdefault(_key(const), []).append(const)
            _index(const, out)


class ProbeRecorder:
    """Same shape as the tracers (`start`, `switch`, `stop`, `collect`); `instrument()` first."""

    name = "probes"

    def __init__(self, targets: dict[str, str]):
        self.targets = targets  # realpath -> rel
        self.rels = list(targets.values())
        self.hits: set[int] = set()
        self.modules: dict[str, types.CodeType] = {}  # realpath -> the probed module's code
        self.data: dict = {}
        self.key: object = None

    def instrument(self, functions: Functions | None = None) -> bool:
        """Swap the probed code into every live function of the targets (`functions`: the worker's
        index of them, `patch.function_index`, else a scan); False (nothing swapped) when one cannot
        take it."""
        probed: dict[str, dict] = {}
        for i, (path, _rel) in enumerate(self.targets.items()):
            with open(path, encoding="utf-8") as fh:
                tree = ast.parse(fh.read(), path)
            module = compile(_Probes((i + 1) * _SCALE).visit(tree), path, "exec", dont_inherit=True)
            self.modules[path] = module
            probed[path] = {}
            _index(module, probed[path])
        swaps = []
        real: dict[str, str] = {}
        live = (
            [f for funcs in functions.values() for f in funcs]
            if functions is not None
            else [obj for obj in gc.get_objects() if type(obj) is types.FunctionType]
        )
        for obj in live:
            code = obj.__code__
            path = real.get(code.co_filename) or real.setdefault(
                code.co_filename, os.path.realpath(code.co_filename)
            )
            if path not in probed:
                continue
            found = probed[path].get(_key(code), [])
            if len(found) != 1 or found[0].co_freevars != code.co_freevars:
                return False
            swaps.append((obj, found[0]))
        # read before the swap: a module in `sys.modules` may be a proxy whose `__getattr__` is
        # a target's (humanfriendly's `DeprecationProxy`), which calls the probe once swapped in
        loaded = {os.path.realpath(f) for m in list(sys.modules.values()) if (f := _file_of(m))}
        for func, code in swaps:
            func.__code__ = code
        later = {path: module for path, module in self.modules.items() if path not in loaded}
        if later:
            sys.meta_path.insert(0, _ProbedFinder(later))
        return True

    def switch(self, key: object) -> None:
        if self.key is not None:
            self.data.setdefault(self.key, set()).update(self.hits)
        self.hits.clear()
        self.key = key

    def start(self) -> None:
        setattr(builtins, PROBE, self.hits.add)

    def stop(self) -> None:
        self.switch(None)

    def collect(self) -> dict:
        out = {}
        for key, hits in self.data.items():
            out[key] = {(self.rels[h // _SCALE - 1], h % _SCALE) for h in hits}
        return out


def _file_of(module: Any) -> str | None:
    """A module's `__file__`, or None; a proxy's `__getattr__` may raise anything."""
    try:
        f = getattr(module, "__file__", None)
    except Exception:
        return None
    return f if isinstance(f, str) else None


class _ProbedFinder:
    """Meta path finder of the child that records: a target not imported yet runs its probed code
    when a test (or a fixture) imports it."""

    def __init__(self, modules: dict[str, types.CodeType]) -> None:
        self.modules = modules

    def find_spec(self, name: str, path: Any = None, target: Any = None) -> Any:
        spec = importlib.machinery.PathFinder.find_spec(name, path)
        if spec is None or spec.origin is None:
            return None
        code = self.modules.get(os.path.realpath(spec.origin))
        if code is None:
            return None
        spec.loader = _ProbedLoader(name, spec.origin, code)
        return spec


class _ProbedLoader(importlib.machinery.SourceFileLoader):
    def __init__(self, name: str, path: str, code: types.CodeType) -> None:
        super().__init__(name, path)
        self.code = code

    def get_code(self, fullname: str) -> types.CodeType:
        return self.code
