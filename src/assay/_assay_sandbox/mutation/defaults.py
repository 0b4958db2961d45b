"""Mutants of a default value (`def f(x=0)` -> `def f(x=1)`): set `__defaults__` / `__kwdefaults__`
of the live function objects instead of re-running the module body.

The `def` runs at import, so such a mutant would otherwise count as import-time code, whose effect
can rarely be bounded (every test runs). A default is only read when the function is called without
that argument, so the tests that ran the function's body are the ones that can observe it. Taken
only when the mutant changes one literal default (the others may be any expression: they keep their
live values), the live functions hold the original value there, and the body never ran while pytest
collected (an object built at import would keep the old default). Limit: a test that reads a default
without calling the function (`inspect.signature`) is not selected.
"""

from __future__ import annotations

import ast
import os
from typing import TYPE_CHECKING

from ..protocol import MutantSpec, MutationJob
from .bytecode import code_lines
from .shapes import ChildResult, Functions, Report

if TYPE_CHECKING:
    import pytest

    from .patch import Hunt
    from .tracers import CollectTracer

_MISSING = object()


def _def_at(tree: ast.AST, line: int) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.lineno == line:
            return node
    return None


def _changed_default(
    old_fn: ast.FunctionDef | ast.AsyncFunctionDef, new_fn: ast.FunctionDef | ast.AsyncFunctionDef
) -> tuple[int | str, object, object] | None:
    """The one default the mutant changed: (position, or name for a keyword-only one; old value; new
    value), both literals; None when anything else differs. The other defaults may be any
    expression: the mutant leaves them as they are, so the live values stay right."""
    a, b = old_fn.args, new_fn.args
    if len(a.defaults) != len(b.defaults) or len(a.kw_defaults) != len(b.kw_defaults):
        return None
    pairs: list[tuple[int | str, ast.expr, ast.expr]] = [
        (i, x, y) for i, (x, y) in enumerate(zip(a.defaults, b.defaults, strict=True))
    ]
    pairs += [
        (arg.arg, x, y)
        for arg, x, y in zip(a.kwonlyargs, a.kw_defaults, b.kw_defaults, strict=True)
        if x is not None and y is not None
    ]
    differ = [(key, x, y) for key, x, y in pairs if ast.dump(x) != ast.dump(y)]
    if len(differ) != 1:
        return None
    key, x, y = differ[0]
    return key, ast.literal_eval(x), ast.literal_eval(y)


def defaults_patch(
    cfg: MutationJob,
    m: MutantSpec,
    text: str,
    mutated: str,
    functions: Functions,
    collect: CollectTracer,
) -> tuple[list, set[int]] | None:
    """([(live function, new __defaults__, new __kwdefaults__)], lines of their body), or None."""
    try:
        old_fn, new_fn = (
            _def_at(ast.parse(text), m.stmt_line),
            _def_at(ast.parse(mutated), m.stmt_line),
        )
        if old_fn is None or new_fn is None:
            return None
        change = _changed_default(old_fn, new_fn)
    except (ValueError, SyntaxError, TypeError):
        return None
    if change is None:
        return None
    key, before, after = change
    first = min([old_fn.lineno, *(d.lineno for d in old_fn.decorator_list)])
    funcs = functions.get((os.path.realpath(cfg.targets[m.file]), old_fn.name, first), [])
    patches = []
    for f in funcs:
        positional, keywords = list(f.__defaults__ or ()), dict(f.__kwdefaults__ or {})
        if isinstance(key, str):
            live = keywords.get(key, _MISSING)
        else:  # __defaults__ holds the values of `args.defaults`, in order
            live = positional[key] if len(positional) == len(old_fn.args.defaults) else _MISSING
        # not the function this def made, or rebound
        if type(live) is not type(before) or live != before:
            return None
        if isinstance(key, str):
            keywords[key] = after
        else:
            positional[key] = after
        patches.append((f, tuple(positional) or None, keywords or None))
    if not patches:
        return None
    body = set()
    for f in funcs:
        body |= code_lines(f.__code__)
    body -= {first, old_fn.lineno, m.stmt_line, *range(m.line, m.end_line + 1)}
    if any((m.file, line) in collect.lines or (m.file, line) in collect.foreign for line in body):
        return None
    return patches, body


def run_defaulted(
    patches: list, items: list[pytest.Item], report: Report, hunt: Hunt
) -> ChildResult:
    from .patch import run_items

    for f, positional, keywords in patches:
        f.__defaults__ = positional
        f.__kwdefaults__ = keywords
    return run_items(items, report, hunt)
