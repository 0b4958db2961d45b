"""Memo caches (`functools.lru_cache` / `cache`) that a mutant cannot fill with anything but
true values.

A test that runs a mutated line and also fills a memo cache counts as writing module state, so every
test that reads the cache would run for that mutant (`plan.with_state`). When the cached function
cannot reach the mutated code, the cache holds what the original computes for each key - the value
any later reader would compute itself - so the readers need not run (more-itertools: `_shift_to_odd`
is cached, and every mutant of `factor` used to run the 17 s `test_primes`).

"Cannot reach" is decided statically and conservatively: the cached function, and every project
function it names, calls only names that resolve to builtins, stdlib callables or such project
functions, and methods whose names are those of builtin types and of no project function; it passes
no project function anywhere (`sorted(key=f)`). Anything else (a call on a parameter, `getattr`, a
subscript call) makes the cache opaque and changes nothing. Dunder methods run implicitly: a mutant
in one never skips a reader.
"""

from __future__ import annotations

import ast
import builtins
import inspect
import os
import textwrap
import types

from ..protocol import MutantSpec
from .bytecode import code_lines, reads_dynamically

_BUILTIN_METHODS = {
    name
    for t in (
        int,
        float,
        complex,
        str,
        bytes,
        bytearray,
        tuple,
        list,
        dict,
        set,
        frozenset,
        range,
        bool,
    )
    for name in dir(t)
    if not name.startswith("_")
}


class Memos:
    """Per written global (module key, name): the code lines its cached function may run,
    or None."""

    def __init__(
        self,
        modules: dict[str, types.ModuleType],
        writes: dict[str, set[tuple[str, str]]],
        scratch_root: str,
    ) -> None:
        self.scratch = os.path.realpath(scratch_root) + os.sep
        self.reach: dict[tuple[str, str], set[tuple[str, int]] | None] = {}
        project_names = self._project_names(modules)
        for key, name in {w for names in writes.values() for w in names}:
            try:
                value = getattr(modules.get(key), name, None)
                wrapped = getattr(value, "__wrapped__", None)
                if (
                    callable(getattr(value, "cache_info", None))
                    and type(wrapped) is types.FunctionType
                ):
                    self.reach[(key, name)] = self._closure(wrapped, project_names)
            except Exception:  # noqa: BLE001 - an odd object: opaque, its readers run
                self.reach[(key, name)] = None

    def _project_names(self, modules: dict[str, types.ModuleType]) -> set[str]:
        names: set[str] = set()
        for mod in modules.values():
            for value in list(vars(mod).values()):
                if isinstance(value, type):
                    names.update(vars(value))
                elif isinstance(value, types.FunctionType):
                    names.add(value.__name__)
        return names

    def _ours(self, value: object) -> bool:
        code = getattr(value, "__code__", None)
        return code is not None and os.path.realpath(code.co_filename).startswith(self.scratch)

    def _closure(
        self, root: types.FunctionType, project_names: set[str]
    ) -> set[tuple[str, int]] | None:
        lines: set[tuple[str, int]] = set()
        todo, seen = [root], set()
        while todo:
            f = todo.pop()
            if f.__code__ in seen:
                continue
            seen.add(f.__code__)
            if reads_dynamically(f.__code__) or f.__closure__:
                return None
            try:
                tree = ast.parse(textwrap.dedent(inspect.getsource(f)))
            except (OSError, TypeError, SyntaxError, IndentationError):
                return None
            fn = next(
                (
                    n
                    for n in ast.walk(tree)
                    if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
                ),
                None,
            )
            if fn is None:
                return None
            local = {
                n.id
                for n in ast.walk(fn)
                if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load)
            }
            args = fn.args
            local |= {
                a.arg
                for a in [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg]
                if a
            }
            for node in ast.walk(fn):
                if node is not fn and isinstance(
                    node, (ast.Lambda, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
                ):
                    return None
                if isinstance(node, ast.Call):
                    callee = node.func
                    if isinstance(callee, ast.Attribute):
                        if callee.attr not in _BUILTIN_METHODS or callee.attr in project_names:
                            return None
                    elif not isinstance(callee, ast.Name) or callee.id in local:
                        return None
                if (
                    isinstance(node, ast.Name)
                    and isinstance(node.ctx, ast.Load)
                    and node.id not in local
                ):
                    value = f.__globals__.get(node.id, getattr(builtins, node.id, None))
                    if isinstance(value, types.FunctionType) and self._ours(value):
                        todo.append(value)
                    elif (
                        isinstance(value, type)
                        and value.__module__ != "builtins"
                        and any(self._ours(v) for v in vars(value).values())
                    ):
                        return None  # a project class: its methods run on instantiation
                    elif callable(value) and not isinstance(
                        value, (types.BuiltinFunctionType, type, types.FunctionType)
                    ):
                        return None  # a partial, a bound method, an object with __call__: opaque
            path = os.path.realpath(f.__code__.co_filename)
            lines |= {(path, line) for line in code_lines(f.__code__)}
        return lines

    def inert(self, key: str, name: str, path: str, m: MutantSpec) -> bool:
        """Whether a write to this global cannot carry mutant `m`'s effect (at `path`, its line)."""
        lines = self.reach.get((key, name))
        if lines is None or any(n.startswith("__") and n.endswith("__") for n, _ in m.chain or ()):
            return False
        return not any((path, line) in lines for line in range(m.line, m.end_line + 1))
