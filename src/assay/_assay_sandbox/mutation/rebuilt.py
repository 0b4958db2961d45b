"""Functions a decorator rebuilds from their module's source, in a child that imports the mutant.

typeguard's `@typechecked` reads `inspect.getsource(sys.modules[f.__module__])` (that is,
`linecache`, which reads the file on disk), parses it and compiles the function anew: the function
that runs was the file's, never the mutant served from memory, and every mutant of it survived
(inflect's `engine.join`: 0 %). The child puts the mutated source where such readers look
(`show_source`); a mutant that still does not reach the code that runs (a decorator that opens the
file itself) is told apart by the live function's code, the same before and after the mutated body
ran (`Rebuilt`), and reported as not judged, never as a survivor.
"""

from __future__ import annotations

import linecache
import os
import sys
import types

from ..protocol import MutantSpec
from .bytecode import find_code
from .protocol import REBUILT, UNAPPLIED


def show_source(path: str, m: MutantSpec) -> None:
    """In a child: `linecache` (hence `inspect.getsource`) holds the mutated text of `path`, under
    the path as given and its real path; no modification time, so `checkcache` keeps it."""
    with open(path, encoding="utf-8") as fh:
        text = fh.read()
    mutated = text[: m.start] + m.replacement + text[m.end :]
    lines = mutated.splitlines(keepends=True)
    for name in {path, os.path.realpath(path)}:
        linecache.cache[name] = (len(mutated), None, lines, name)


def _code(module: types.ModuleType, qualname: str, path: str) -> types.CodeType | None:
    """The code of the live function `qualname` of `module` (a method through its class, a
    wrapper through `__wrapped__`), when it is a def of `path` of that name; else None: not
    reachable by name (nested in a function, not bound, or a wrapper of another file's)."""
    if "<" in qualname:
        return None
    obj: object = module
    for part in qualname.split("."):
        space = getattr(obj, "__dict__", None)  # a class's is a mappingproxy
        if not isinstance(space, (dict, types.MappingProxyType)) or part not in space:
            return None
        obj = space[part]
    obj = getattr(obj, "__func__", None) or getattr(obj, "fget", None) or obj
    for _ in range(10):
        inner = getattr(obj, "__wrapped__", None)
        if inner is None:
            break
        obj = inner
    code = getattr(obj, "__code__", None)
    if not isinstance(code, types.CodeType) or code.co_name != qualname.rsplit(".", 1)[-1]:
        return None
    return code if os.path.realpath(code.co_filename) == path else None


def _in_code(m: MutantSpec, path: str, code: types.CodeType) -> bool:
    """Whether the mutant changes the code of its outermost def (`code`: the mutated module's):
    a default value or a decorator's argument is the module's code, and leaves it as it was."""
    name, first = m.chain[-1]
    with open(path, encoding="utf-8") as fh:
        original = compile(fh.read(), path, "exec", dont_inherit=True)
    return find_code(original, name, first) != find_code(code, name, first)


class Rebuilt:
    """The live code of a mutant's outermost function as the module had it before the mutated
    body ran; `after` tells whether the mutated body left it so."""

    def __init__(self, m: MutantSpec, path: str, code: types.CodeType) -> None:
        self.path = path
        self.rel = m.file
        # the outermost def: the one a name reaches
        self.name = m.function.split(".<locals>.", 1)[0]
        self.before: types.CodeType | None = None
        if not m.chain or m.function == "<module>" or not _in_code(m, path, code):
            return
        for mod in list(sys.modules.values()):
            f = getattr(mod, "__file__", None)
            if isinstance(f, str) and os.path.realpath(f) == path:
                self.before = _code(mod, self.name, path)
                break

    def after(self, module: types.ModuleType) -> str | None:
        """Why the mutant is not what runs, or None: the function's code changed (it runs)."""
        if self.before is None or _code(module, self.name, self.path) != self.before:
            return None
        return f"{UNAPPLIED}: {self.rel}::{self.name} is {REBUILT}"
