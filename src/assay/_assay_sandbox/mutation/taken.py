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
A catcher whose `as` name the test reads only through attributes of the exception
(`caught.value.field`, `captured_exc.value.args[-1]`: rfc3986; `cm.exception.code`, `err.code`),
or through a name it gives the exception once and reads only so (`exc = caught_exc.value` then
`exc.component_name`: rfc3986 again), lets the test receive the exception's type and those
attributes (`Reads`), not its text.
`assertRaisesRegex`, `match=`, an `as` name read otherwise anywhere in the function
(`excinfo.value`, `str(e)`, `cm.exception`, `excinfo.match(...)`) make the text received. A nested
function or class starts afresh: its lines are caught only by what is around them inside it.

**One attribute.** `Lexer.get_default_instance()._SQL_REGEX` (sqlparse) gives the test the
lexer's rules, not its keyword tables: when the instruction right after the call reads one
attribute of its result (not a method it calls: that call is observed itself), the test receives
that attribute (`attribute_after_call`, from the caller's bytecode).
"""

from __future__ import annotations

import ast
import contextlib
import dis
import inspect
import sys
import types
from collections.abc import Iterable
from typing import Any

RAISES = frozenset({"raises", "assertRaises"})  # names that catch by type
# what a catcher's `as` name holds the exception in: pytest's ExceptionInfo, unittest's context
HOLDER = {"raises": "value", "assertRaises": "exception"}
INDEX = (int, str)  # constant subscripts kept in a read (`args[-1]`)
ATTRIBUTE_READS = frozenset(dis.opmap[n] for n in ("LOAD_ATTR",) if n in dis.opmap)

# the attributes of a caught exception the test reads, each with the constant subscript it
# takes of it, if any: (("field", None), ("args", -1))
Reads = tuple[tuple[str, int | str | None], ...]
Caught = bool | Reads  # True: by type only; False: the test reads its text


def caught_lines(source: str) -> dict[int, Caught]:
    """line -> True when an exception out of it is caught by type only, the attributes the test
    reads when it reads only those, False when a catcher around it lets the test read it; a
    line no catcher is around is absent (and so is every line when the source does not parse)."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return {}
    out: dict[int, Caught] = {}
    _Walk(out).scope(tree.body)
    return out


def taken_of(exc: BaseException, reads: Reads) -> Any:
    """What the test takes of a caught exception (`Reads`): its type and those attributes, each
    read from what the object holds, or from a property of its class (tomlkit's `e.value.line`:
    the getter the test calls itself, run once more here, untraced); anything else (a
    descriptor of another kind, a getter that raises): all of it, as before."""
    state = getattr(exc, "__dict__", None)
    state = state if isinstance(state, dict) else {}
    kind = type(exc)
    out: list[Any] = [f"{kind.__module__}.{kind.__qualname__}, caught"]
    for name, index in reads:
        if name == "args":
            value = exc.args
        elif name in state:
            value = state[name]
        elif isinstance(inspect.getattr_static(kind, name, None), property):
            try:
                value = getattr(exc, name)
            except Exception:
                return exc
        else:
            return exc
        if index is not None and isinstance(value, (tuple, list, dict, str)):
            with contextlib.suppress(LookupError, TypeError):
                value = value[index]  # type: ignore[index]
        out.append((name, index, value))
    return out


def _paths(body: Iterable[ast.stmt]) -> dict[str, list[tuple[str | int, ...]]]:
    """name -> each read of it as the attributes and constant subscripts taken of it
    (`n.value.args[-1]` -> ("value", "args", -1)); a method called ends the path before it."""
    parents: dict[int, ast.AST] = {}
    names: list[ast.Name] = []
    for stmt in body:
        for node in ast.walk(stmt):
            for child in ast.iter_child_nodes(node):
                parents[id(child)] = node
            if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Store):
                names.append(node)
    out: dict[str, list[tuple[str | int, ...]]] = {}
    for name in names:
        path: list[str | int] = []
        cur: ast.AST = name
        while True:
            up = parents.get(id(cur))
            if isinstance(up, ast.Attribute) and up.value is cur:
                path.append(up.attr)
            elif isinstance(up, ast.Subscript) and up.value is cur and path:
                index = _constant(up.slice)
                if index is None:
                    break
                path.append(index)
            else:
                break
            cur = up
        if isinstance(parents.get(id(cur)), ast.Call) and parents[id(cur)].func is cur:  # type: ignore[attr-defined]
            path = path[:-1]
        out.setdefault(name.id, []).append(tuple(path))
    return out


def _aliases(body: Iterable[ast.stmt]) -> dict[tuple[str, str], list[str]]:
    """(name, attribute) -> the names given `name.attribute` by `alias = name.attribute`, each
    a name stored nowhere else (`exception = captured_exc.value`)."""
    stores: dict[str, int] = {}
    found: dict[tuple[str, str], list[str]] = {}
    for stmt in body:
        for node in ast.walk(stmt):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                stores[node.id] = stores.get(node.id, 0) + 1
            if (
                isinstance(node, ast.Assign)
                and len(node.targets) == 1
                and isinstance(node.targets[0], ast.Name)
                and isinstance(node.value, ast.Attribute)
                and isinstance(node.value.value, ast.Name)
            ):
                key = (node.value.value.id, node.value.attr)
                found.setdefault(key, []).append(node.targets[0].id)
    return {k: [n for n in v if stores.get(n) == 1] for k, v in found.items()}


def _constant(node: ast.expr) -> int | str | None:
    """A constant subscript: `[-1]`, `[0]`, `["key"]`."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        inner = _constant(node.operand)
        return -inner if isinstance(inner, int) else None
    if isinstance(node, ast.Constant) and isinstance(node.value, INDEX):
        return node.value if not isinstance(node.value, bool) else None
    return None


def _reads(paths: list[tuple[str | int, ...]], holder: str | None) -> Caught:
    """What reading a catcher's name by `paths` takes of the exception: True (nothing but its
    type), the attributes read (`Reads`), or False (anything else: its text)."""
    out: list[tuple[str, int | str | None]] = []
    for path in paths:
        if holder == "value" and path in (("type",), ("typename",)):
            continue
        if holder is not None:
            if not path or path[0] != holder:
                return False
            path = path[1:]
        if not path or not isinstance(path[0], str):
            return False
        index = path[1] if len(path) > 1 and not isinstance(path[1], str) else None
        out.append((path[0], index))
    return tuple(sorted(set(out), key=repr)) or True


def _callee(node: ast.expr) -> str:
    if isinstance(node, ast.Call):
        func = node.func
        if isinstance(func, ast.Attribute):
            return func.attr
        if isinstance(func, ast.Name):
            return func.id
    return ""


class _Walk:
    """Marks the lines of each statement with what catches it: None (nothing), True (type only
    throughout) or False (some catcher lets the test read the exception)."""

    def __init__(self, out: dict[int, Caught]) -> None:
        self.out = out
        self.read: dict[str, list[tuple[str | int, ...]]] = {}
        self.aliases: dict[tuple[str, str], list[str]] = {}

    def scope(self, body: list[ast.stmt]) -> None:
        outer = self.read, self.aliases
        self.read, self.aliases = _paths(body), _aliases(body)
        self.block(body, None)
        self.read, self.aliases = outer

    def block(self, body: Iterable[ast.stmt], caught: Caught | None) -> None:
        for stmt in body:
            self.stmt(stmt, caught)

    def mark(self, node: ast.AST, caught: Caught | None) -> None:
        first = getattr(node, "lineno", None)
        last = getattr(node, "end_lineno", None) or first
        if first is None or last is None:
            return
        for line in range(first, last + 1):
            if caught is None:
                self.out.pop(line, None)
            else:
                self.out[line] = caught

    def stmt(self, stmt: ast.stmt, caught: Caught | None) -> None:
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

    def with_catches(self, stmt: ast.With | ast.AsyncWith) -> Caught | None:
        """True: a catcher by type only; its `Reads`: one whose name the test reads only through
        attributes of the exception; False: one that reads it otherwise; None: no catcher."""
        own: Caught | None = None
        for item in stmt.items:
            name = _callee(item.context_expr)
            if name in RAISES or name.startswith("assertRaises"):
                call = item.context_expr
                assert isinstance(call, ast.Call)
                blind: Caught = name in RAISES and not call.keywords
                if blind:
                    blind = self.taken(item.optional_vars, HOLDER[name])
                own = _and(own, blind)
        return own

    def try_catches(self, stmt: ast.stmt) -> Caught:
        handlers = getattr(stmt, "handlers", [])
        own: Caught | None = None
        for h in handlers:
            own = _and(own, True if h.name is None else _reads(self.read.get(h.name, []), None))
        return False if own is None else own

    def taken(self, target: ast.expr | None, holder: str) -> Caught:
        if target is None:
            return True
        if not isinstance(target, ast.Name):
            return False
        paths = list(self.read.get(target.id, []))
        for alias in self.aliases.get((target.id, holder), []):
            # `exc = caught.value`, then only `exc.field`: the read `caught.value` is that alias
            read = self.read.get(alias, [])
            if (holder,) in paths and read and all(p and isinstance(p[0], str) for p in read):
                paths.remove((holder,))
                paths += [(holder, *p) for p in read]
        return _reads(paths, holder)


def _and(outer: Caught | None, own: Caught | None) -> Caught | None:
    """A line is type only when every catcher around it is (and there is one); the attributes
    read by any of them otherwise; the text when one reads it."""
    if own is None:
        return outer
    if outer is None:
        return own
    if outer is False or own is False:
        return False
    if outer is True:
        return own
    if own is True:
        return outer
    return tuple(sorted(set(outer) | set(own), key=repr))


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


def read_by_attribute(back: types.FrameType | None) -> bool:
    """Whether the call was made by an attribute read (a property's getter), not a call."""
    if back is None:
        return False
    try:
        return back.f_code.co_code[back.f_lasti] in ATTRIBUTE_READS
    except IndexError:
        return False


def arguments(frame: types.FrameType) -> list[Any]:
    """The values of a frame's parameters (`self`, `*args` and `**kwargs` included)."""
    code = frame.f_code
    n = code.co_argcount + code.co_kwonlyargcount
    n += bool(code.co_flags & 0x04) + bool(code.co_flags & 0x08)  # *args, **kwargs
    local = frame.f_locals
    return [local.get(name) for name in code.co_varnames[:n]]
