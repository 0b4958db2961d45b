"""Which tests may observe an import-time mutant, from the names its re-run body changed.

Built once in the worker before forking (a scan of the live functions), read in each child.
"""

from __future__ import annotations

import gc
import os
import types
from typing import TYPE_CHECKING, Any

from ..protocol import MutantSpec, MutationJob
from .bytecode import code_lines, code_tree, is_function_code, names_read, reads_dynamically
from .realpaths import real as real_path
from .same import cells

if TYPE_CHECKING:
    import pytest

_MODULE_REACH = {
    "modules",
    "import_module",
    "__import__",
    "globals",
    "__globals__",
    "reload",
    "getmodule",
}


class Readers:
    """Which tests may read each name.

    A function of a target module that names N (global, attribute, or an identifier in a string
    constant) reads N in the tests that executed it in the baseline; a test function that names N
    reads it. Any other code of the project (fixtures, helpers, other modules) cannot be tied to
    tests: its names are `untracked` and a mutant changing one of them runs every test. Code that
    can read names dynamically (`getattr`, `vars`, `__dict__`, ...) reads every name - when it can
    reach a target module at all (names it, or `sys.modules` / importlib / `globals()`).
    """

    def __init__(
        self,
        cfg: MutationJob,
        original_code: dict[str, types.CodeType],
        covering: dict[tuple[str, int], list[str]],
        items: list[pytest.Item],
    ) -> None:
        self.covering = covering  # (rel, line) -> ids of the tests that executed it
        self.readers: dict[str, set[str]] = {}
        self.always: set[str] = set()  # tests that read names dynamically
        for rel, code in original_code.items():
            for c in code_tree(code):
                if not is_function_code(c):
                    continue
                ids = {
                    i
                    for _, _, line in c.co_lines()
                    if line is not None
                    for i in covering.get((rel, line), ())
                }
                if reads_dynamically(c, nested=False):
                    self.always |= ids
                for name in names_read(c, nested=False):
                    self.readers.setdefault(name, set()).update(ids)
        tests_of: dict[types.CodeType, list[str]] = {}
        for item in items:
            obj = getattr(item, "obj", None)
            test_code = getattr(getattr(obj, "__func__", obj), "__code__", None)
            if test_code is not None:
                tests_of.setdefault(test_code, []).append(item.nodeid)
        scratch = os.path.realpath(cfg.scratch_root) + os.sep
        targets = {os.path.realpath(p) for p in cfg.targets.values()}
        # to read a target's globals by a computed name, code needs the module object: it names
        # the module (`import pkg.mod`, `mod.__dict__`) or reaches it through sys.modules,
        # importlib or globals()
        reach = (
            _MODULE_REACH
            | {os.path.splitext(os.path.basename(p))[0] for p in targets}
            | {os.path.basename(os.path.dirname(p)) for p in targets if p.endswith("__init__.py")}
        )
        self.untracked: set[str] = set()
        # project code no test maps to may read a target's globals by computed names
        self.dynamic = False
        real: dict[str, str] = {}  # the look-up inline: one per function object of the process
        for obj in gc.get_objects():
            if type(obj) is not types.FunctionType:
                continue
            c = obj.__code__
            if not os.path.isabs(c.co_filename):  # "<frozen site>", "<string>": not project code
                continue
            path = real.get(c.co_filename) or real.setdefault(
                c.co_filename, real_path(c.co_filename)
            )
            if not path.startswith(scratch) or path in targets:
                continue
            names = names_read(c)
            test_ids = tests_of.get(c)
            if test_ids is None:
                self.untracked |= names
                self.dynamic = self.dynamic or (reads_dynamically(c) and bool(names & reach))
                continue
            if reads_dynamically(c):
                self.always.update(test_ids)
            for name in names:
                self.readers.setdefault(name, set()).update(test_ids)

    def readers_of(self, key: str, name: str) -> set[str] | None:
        """Tests that may read global `name` of module `key` (a target's rel or `module:<name>`);
        None when code no test maps to reads it (or reads names dynamically): anyone may."""
        if self.dynamic or name in self.untracked:
            return None
        return self.readers.get(name, set()) | self.always

    def select(self, m: MutantSpec, names: set[str], old: dict) -> tuple[set[str], bool]:
        """Tests that may observe a change of `names` in the module namespace, and whether that set
        is complete: readers of the names, tests that executed the old functions/classes/tables they
        held, tests covering the mutated lines."""
        rel = m.file
        selected = set(self.always)
        for line in {*range(m.line, m.end_line + 1), m.stmt_line}:
            selected.update(self.covering.get((rel, line), ()))
        complete = not self.dynamic
        for name in names:
            selected |= self.readers.get(name, set())
            complete = complete and name not in self.untracked
            if name in old:
                for line in _code_lines_of(old[name]):
                    selected.update(self.covering.get((rel, line), ()))
        return selected, complete


def _code_lines_of(value: Any, depth: int = 0) -> set[int]:
    """Lines of every function reachable from a changed value (methods, wrapped, closures, tables of
    them): the tests that executed any of them in the baseline may behave differently."""
    if depth > 6:
        return set()
    if isinstance(value, types.FunctionType):
        lines = code_lines(value.__code__)
        for cell in cells(value):
            lines |= _code_lines_of(cell, depth + 1)
        return lines | _code_lines_of(getattr(value, "__wrapped__", None), depth + 1)
    if isinstance(value, (staticmethod, classmethod)):
        return _code_lines_of(value.__func__, depth + 1)
    if isinstance(value, property):
        return set().union(
            *(_code_lines_of(f, depth + 1) for f in (value.fget, value.fset, value.fdel))
        )
    if isinstance(value, type):
        return set().union(set(), *(_code_lines_of(v, depth + 1) for v in vars(value).values()))
    if isinstance(value, (list, tuple)):
        return set().union(set(), *(_code_lines_of(v, depth + 1) for v in value))
    if isinstance(value, dict):
        return set().union(set(), *(_code_lines_of(v, depth + 1) for v in value.values()))
    wrapped = (
        getattr(value, "__wrapped__", None) if not isinstance(value, types.ModuleType) else None
    )
    return _code_lines_of(wrapped, depth + 1) if wrapped is not None else set()
