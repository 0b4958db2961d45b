"""Reading compiled code: nested code objects, the names and lines they hold, bytecode fingerprints.

Standalone (stdlib only), like the worker. Mutants are compared, located and classified by their
compiled code, never by source text: the code is what runs.
"""

from __future__ import annotations

import ast
import hashlib
import os
import re
import types
from collections.abc import Iterator

# names through which code may read a namespace without spelling the name it reads
_DYNAMIC = {
    "getattr",
    "vars",
    "globals",
    "__dict__",
    "dir",
    "eval",
    "exec",
    "__getattribute__",
    "attrgetter",
    "methodcaller",
    "inspect",
}
_DOTTED = re.compile(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)*")


def code_tree(code: types.CodeType) -> Iterator[types.CodeType]:
    yield code
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            yield from code_tree(const)


def names_read(code: types.CodeType, nested: bool = True) -> set[str]:
    """Every name a code object (and its nested ones) may read: globals, attributes, and identifiers
    inside string constants (`monkeypatch.setattr("pkg.mod.NAME", ...)`, `mock.patch(...)`)."""
    found: set[str] = set()
    for c in code_tree(code) if nested else (code,):
        found.update(c.co_names)
        for const in c.co_consts:
            if isinstance(const, str) and _DOTTED.fullmatch(const):
                found.update(const.split("."))
    return found


def reads_dynamically(code: types.CodeType, nested: bool = True) -> bool:
    """Whether the code may read names it does not spell (`getattr(mod, name)`,
    `vars(mod)`, ...)."""
    return any(_DYNAMIC.intersection(c.co_names) for c in (code_tree(code) if nested else (code,)))


def code_lines(code: types.CodeType) -> set[int]:
    return {line for c in code_tree(code) for _, _, line in c.co_lines() if line}


def is_function_code(code: types.CodeType) -> bool:
    """Function bodies run when called; module and class bodies ran at import (CO_NEWLOCALS
    marks functions)."""
    return bool(code.co_flags & 0x2)


def fingerprint(code: types.CodeType) -> str:
    """Bytecode identity, line numbers left out: equal fingerprints behave identically."""
    h = hashlib.sha256()

    def walk(c: types.CodeType) -> None:
        h.update(c.co_code)
        h.update(
            repr(
                (
                    c.co_name,
                    c.co_names,
                    c.co_varnames,
                    c.co_freevars,
                    c.co_cellvars,
                    c.co_flags,
                    c.co_argcount,
                    c.co_kwonlyargcount,
                    c.co_posonlyargcount,
                )
            ).encode()
        )
        for const in c.co_consts:
            if isinstance(const, types.CodeType):
                walk(const)
            else:
                h.update(f"{type(const).__name__}:{const!r}".encode())

    walk(code)
    return h.hexdigest()


def compile_units(text: str) -> list[tuple[int, int, int, str]]:
    """(first char, end char, first line, header) of each def a mutant inside it compiles with,
    alone: every top-level def or class, and every def or class in a class body (a class whose body
    holds only classes up to the module: no type parameters), decorators and whole lines included,
    innermost first. `header`: the `class Name:` lines of the enclosing classes, at their own
    indentation, which give the def the qualified name and the private-name mangling it has in its
    class. A method of parse's 600-line `Parser` class compiled with the whole class cost the worker
    about 25 ms a mutant, most of gate 4's own CPU there."""
    starts = [0]
    for i, ch in enumerate(text):
        if ch == "\n":
            starts.append(i + 1)
    starts.append(len(text))
    lines = text.split("\n")
    units: list[tuple[int, int, int, str]] = []

    def visit(body: list[ast.stmt], header: str) -> None:
        for node in body:
            if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                continue
            if not node.end_lineno:
                continue
            if isinstance(node, ast.ClassDef) and not getattr(node, "type_params", None):
                indent = lines[node.lineno - 1][: node.col_offset]
                visit(node.body, f"{header}{indent}class {node.name}:\n")
            first = min([node.lineno] + [d.lineno for d in node.decorator_list])
            end = starts[min(node.end_lineno, len(starts) - 1)]
            units.append((starts[first - 1], end, first, header))

    visit(ast.parse(text).body, "")
    return units


def find_code(code: types.CodeType, name: str, first: int) -> types.CodeType | None:
    """The nested code object of the def `name` starting at line `first`."""
    if code.co_name == name and code.co_firstlineno == first:
        return code
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            found = find_code(const, name, first)
            if found is not None:
                return found
    return None


def import_error(err: BaseException, path: str) -> str:
    """`ValueError: bad (line 12)`: the exception and the line of the module that raised it."""
    line = None
    tb = err.__traceback__
    while tb is not None:
        if os.path.realpath(tb.tb_frame.f_code.co_filename) == path:
            line = tb.tb_lineno
        tb = tb.tb_next
    text = f"{type(err).__name__}: {err}"[:500]
    return f"{text} (line {line})" if line else text
