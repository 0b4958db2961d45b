"""Mutants of a default value (`def f(x=0)` -> `def f(x=1)`): set `__defaults__` / `__kwdefaults__` of the
live function objects instead of re-running the module body.

The `def` runs at import, so such a mutant would otherwise count as import-time code, whose effect can
rarely be bounded (every test runs). A default is only read when the function is called without that
argument, so the tests that ran the function's body are the ones that can observe it. Taken only when
every default of that `def` is a literal, the live functions hold exactly the original values, and the
body never ran while pytest collected (an object built at import would keep the old default).
Limit: a test that reads a default without calling the function (`inspect.signature`) is not selected.
"""

from __future__ import annotations

import ast
import os

from .code import code_lines


def _def_at(tree: ast.AST, line: int):
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.lineno == line:
            return node
    return None


def _literals(fn) -> tuple[tuple, dict | None]:
    args = fn.args
    positional = tuple(ast.literal_eval(d) for d in args.defaults)
    keywords = {a.arg: ast.literal_eval(d) for a, d in zip(args.kwonlyargs, args.kw_defaults, strict=True)
                if d is not None}
    return positional, keywords or None


def defaults_patch(cfg, m, text: str, mutated: str, functions: dict, collect) -> tuple[tuple, set[int]] | None:
    """((live functions, new __defaults__, new __kwdefaults__), lines of their body), or None."""
    try:
        old_fn, new_fn = _def_at(ast.parse(text), m.stmt_line), _def_at(ast.parse(mutated), m.stmt_line)
        if old_fn is None or new_fn is None:
            return None
        old, new = _literals(old_fn), _literals(new_fn)
    except (ValueError, SyntaxError, TypeError):
        return None
    first = min([old_fn.lineno, *(d.lineno for d in old_fn.decorator_list)])
    funcs = functions.get((os.path.realpath(cfg.targets[m.file]), old_fn.name, first), [])
    if not funcs or any((f.__defaults__ or ()) != old[0] or f.__kwdefaults__ != old[1] for f in funcs):
        return None
    body = set()
    for f in funcs:
        body |= code_lines(f.__code__)
    body -= {first, old_fn.lineno, m.stmt_line, *range(m.line, m.end_line + 1)}
    if any((m.file, line) in collect.lines or (m.file, line) in collect.foreign for line in body):
        return None
    return (funcs, new[0] or None, new[1]), body


def run_defaulted(patch: tuple, items, report) -> dict:
    from .patch import run_items

    funcs, positional, keywords = patch
    for f in funcs:
        f.__defaults__ = positional
        f.__kwdefaults__ = keywords
    return run_items(items, report)
