"""What a test's code takes of what a call into the project gives it (gate 4's observer,
`observe`): an exception by its type only, or one attribute of a returned object.

**Exceptions.**
A test that runs `with pytest.raises(CheckError): glom(target, spec)` and never reads what it
caught receives the exception's type, nothing more: a mutant that changes only its message (glom
formats a repr of the spec into it) changes nothing any assertion of the test could see. The
observer then fingerprints such an exception by its type alone.

Read from the test file's code, per line: a line is *type only* when every catcher around it in
its function catches by type and lets the test read nothing of the exception, and there is at
least one. Catchers:
- `with pytest.raises(X)` / `with raises(X)` / `with self.assertRaises(X)`: no keyword argument
  (`match=`, `check=` read the text), and its `as` name, if any, never read in the function;
- `pytest.raises(X, f, ...)` / `self.assertRaises(X, f, ...)` as a statement of its own (the
  exception info it returns is dropped);
- `try:` whose every handler binds no name, or one never read in the function (the `try` body
  only: handlers, `else` and `finally` are outside it).
`assertRaisesRegex`, `match=`, an `as` name read anywhere in the function (`excinfo.value`,
`str(e)`, `cm.exception`) make the text received, as before. A nested function or class starts
afresh: its lines are caught only by what is around them inside it.

**One attribute.** `Lexer.get_default_instance()._SQL_REGEX` (sqlparse) gives the test the
lexer's rules, not its keyword tables: when the instruction right after the call reads one
attribute of its result (not a method it calls: that call is observed itself), the test receives
that attribute (`attribute_after_call`, from the caller's bytecode).
"""

from __future__ import annotations

import ast
import dis
import sys
import types
from collections.abc import Iterable

RAISES = frozenset({"raises", "assertRaises"})  # names that catch by type


def caught_lines(source: str) -> dict[int, bool]:
    """line -> True when an exception out of it is caught by type only, False when a catcher
    around it lets the test read it; a line no catcher is around is absent (and so is every
    line when the source does not parse)."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return {}
    out: dict[int, bool] = {}
    _Walk(out).scope(tree.body)
    return out


def _callee(node: ast.expr) -> str:
    if isinstance(node, ast.Call):
        func = node.func
        if isinstance(func, ast.Attribute):
            return func.attr
        if isinstance(func, ast.Name):
            return func.id
    return ""


def _loaded(body: Iterable[ast.stmt]) -> frozenset[str]:
    """Every name the statements read (nested functions included: a closure reads it too)."""
    names: set[str] = set()
    for stmt in body:
        for node in ast.walk(stmt):
            if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Store):
                names.add(node.id)
    return frozenset(names)


class _Walk:
    """Marks the lines of each statement with what catches it: None (nothing), True (type only
    throughout) or False (some catcher lets the test read the exception)."""

    def __init__(self, out: dict[int, bool]) -> None:
        self.out = out
        self.read: frozenset[str] = frozenset()

    def scope(self, body: list[ast.stmt]) -> None:
        outer, self.read = self.read, _loaded(body)
        self.block(body, None)
        self.read = outer

    def block(self, body: Iterable[ast.stmt], caught: bool | None) -> None:
        for stmt in body:
            self.stmt(stmt, caught)

    def mark(self, node: ast.AST, caught: bool | None) -> None:
        first = getattr(node, "lineno", None)
        last = getattr(node, "end_lineno", None) or first
        if first is None or last is None:
            return
        for line in range(first, last + 1):
            if caught is None:
                self.out.pop(line, None)
            else:
                self.out[line] = caught

    def stmt(self, stmt: ast.stmt, caught: bool | None) -> None:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            self.mark(stmt, None)
            self.scope(stmt.body)
            return
        self.mark(stmt, caught)
        if isinstance(stmt, (ast.With, ast.AsyncWith)):
            own = self.with_catches(stmt)
            self.block(stmt.body, caught if own is None else _and(caught, own))
            return
        if isinstance(stmt, (ast.Try, getattr(ast, "TryStar", ast.Try))):
            self.block(stmt.body, _and(caught, self.try_catches(stmt)))  # type: ignore[attr-defined]
            for handler in stmt.handlers:  # type: ignore[attr-defined]
                self.mark(handler, caught)
                self.block(handler.body, caught)
            self.block(stmt.orelse, caught)  # type: ignore[attr-defined]
            self.block(stmt.finalbody, caught)  # type: ignore[attr-defined]
            return
        if isinstance(stmt, ast.Expr) and _callee(stmt.value) in RAISES:
            call = stmt.value
            assert isinstance(call, ast.Call)
            if len(call.args) > 1:  # the call form: `raises(X, f, *args)`, its result dropped
                self.mark(stmt, _and(caught, True))
            return
        for field in ("body", "orelse"):  # if, for, while, match cases: same catchers
            inner = getattr(stmt, field, None)
            if isinstance(inner, list) and inner and isinstance(inner[0], ast.stmt):
                self.block(inner, caught)
        for case in getattr(stmt, "cases", ()):
            self.block(case.body, caught)

    def with_catches(self, stmt: ast.With | ast.AsyncWith) -> bool | None:
        """True: a catcher by type only; False: one that reads the exception; None: no catcher."""
        own: bool | None = None
        for item in stmt.items:
            name = _callee(item.context_expr)
            if name in RAISES or name.startswith("assertRaises"):
                call = item.context_expr
                assert isinstance(call, ast.Call)
                blind = name in RAISES and not call.keywords and self.unread(item.optional_vars)
                own = _and(own, blind) if own is not None else blind
        return own

    def try_catches(self, stmt: ast.stmt) -> bool:
        handlers = getattr(stmt, "handlers", [])
        return bool(handlers) and all(h.name is None or h.name not in self.read for h in handlers)

    def unread(self, target: ast.expr | None) -> bool:
        return target is None or (isinstance(target, ast.Name) and target.id not in self.read)


def _and(outer: bool | None, own: bool | None) -> bool | None:
    """A line is type only when every catcher around it is (and there is one)."""
    if own is None:
        return outer
    if outer is None:
        return own
    return outer and own


# id(code) -> (code, {offset of a call, or of a cache entry after it: the attribute read next})
_AFTER: dict[int, tuple[types.CodeType, dict[int, str]]] = {}


def attribute_after_call(code: types.CodeType, offset: int) -> str | None:
    """The attribute the instruction after the call at `offset` reads of its result (not a
    method it loads to call: the call is observed itself); None for anything else. Each code
    object is read once (hashing a code object on every call cost more than the test)."""
    found = _AFTER.get(id(code))
    if found is None or found[0] is not code:
        found = _AFTER[id(code)] = (code, _calls_then_attribute(code))
    return found[1].get(offset)


def read_ahead(codes: Iterable[types.CodeType]) -> None:
    """Read the tables of `codes` and of the functions nested in them now: in the worker, before
    the children fork, so that each child does not read them again (a child is 30-40 ms; reading a
    test module's functions is several)."""
    todo = list(codes)
    while todo:
        code = todo.pop()
        if id(code) not in _AFTER:
            _AFTER[id(code)] = (code, _calls_then_attribute(code))
        todo += [c for c in code.co_consts if isinstance(c, types.CodeType)]


def _calls_then_attribute(code: types.CodeType) -> dict[int, str]:
    out: dict[int, str] = {}
    instructions = list(dis.get_instructions(code))  # inline caches left out
    for call, after in zip(instructions, instructions[1:], strict=False):
        method = sys.version_info >= (3, 12) and bool((after.arg or 0) & 1)
        if call.opname.startswith("CALL") and after.opname == "LOAD_ATTR" and not method:
            # the frame's offset is the call's, or (3.11+) that of the last cache entry after it
            for at in range(call.offset, after.offset):
                out[at] = str(after.argval)
    return out
