"""Objects a test builds only to hand them on: not what it receives from the project (gate 4).

structlog's `test_binds_independently` builds `KeyValueRenderer(sort_keys=True)` as one of the
processors of a logger it binds, and asserts on the bound contexts only: it never renders a line.
The observer counted the renderer's state (after `__init__`, and inside every logger that held it)
as received, and the file was rejected for `processors.py` at 0% - five mutants of
`KeyValueRenderer.__init__`, which no assertion of the test could see.

A call of the test file's code is *passed through* when its value is only handed on: it is an
argument of another call (directly, or inside a list, tuple, set or dict display), or it is bound
once to a name that is read only so. The call it is handed to is neither a builtin (`repr(C())`,
`vars(C())` read it) nor an assertion (`assertEqual(C(), ...)`, `mock.assert_called_with(C())`).
What such a call builds - its result, and the object an `__init__` fills - is fingerprinted by its
type alone, at its own observation point and wherever it turns up inside a value the project
hands back later. What the project computes *with* it still counts: a line the renderer renders
comes back as a value of its own.
"""

from __future__ import annotations

import ast
import builtins
import dis
import types

Span = tuple[int, int, int, int]  # lineno, col, end_lineno, end_col of a call
BUILTINS = frozenset(dir(builtins))
CALLS = frozenset(n for n in dis.opmap if n.startswith("CALL"))
# code object id -> (the code, the offsets of its passed-through calls)
_OFFSETS: dict[int, tuple[types.CodeType, frozenset[int]]] = {}


def passed_through(source: str) -> frozenset[Span]:
    """The spans of the calls of `source` whose value is only handed on to another call."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return frozenset()
    parents: dict[int, ast.AST] = {}
    for node in ast.walk(tree):
        for child in ast.iter_child_nodes(node):
            parents[id(child)] = node
    out: set[Span] = set()
    for func in ast.walk(tree):
        if not isinstance(func, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            continue
        own = list(_own_nodes(func))
        stores: dict[str, int] = {}
        loads: dict[str, list[ast.Name]] = {}
        for node in own:
            if isinstance(node, ast.Name):
                if isinstance(node.ctx, ast.Load):
                    loads.setdefault(node.id, []).append(node)
                else:
                    stores[node.id] = stores.get(node.id, 0) + 1
        for node in own:
            if not isinstance(node, ast.Call):
                continue
            up = parents.get(id(node))
            handed = _handed_on(node, parents)
            if (
                not handed
                and isinstance(up, ast.Assign)
                and len(up.targets) == 1
                and isinstance(up.targets[0], ast.Name)
            ):
                name = up.targets[0].id
                reads = loads.get(name, [])
                handed = (
                    stores.get(name) == 1
                    and bool(reads)
                    and all(_handed_on(r, parents) for r in reads)
                )
            if handed and node.end_lineno is not None and node.end_col_offset is not None:
                out.add((node.lineno, node.col_offset, node.end_lineno, node.end_col_offset))
    return frozenset(out)


def _own_nodes(func: ast.AST) -> list[ast.AST]:
    """The nodes of a function's body, not those of the functions and classes nested in it."""
    out: list[ast.AST] = []
    todo = list(ast.iter_child_nodes(func))
    while todo:
        node = todo.pop()
        out.append(node)
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda | ast.ClassDef):
            todo += ast.iter_child_nodes(node)
    return out


def _handed_on(node: ast.expr, parents: dict[int, ast.AST]) -> bool:
    """Whether `node`'s value is an argument of a call that neither reads it (a builtin) nor
    asserts on it, maybe inside displays."""
    cur: ast.AST = node
    up = parents.get(id(cur))
    while isinstance(up, ast.List | ast.Tuple | ast.Set | ast.Starred | ast.keyword) or (
        isinstance(up, ast.Dict) and any(v is cur for v in up.values)
    ):
        cur, up = up, parents.get(id(up))
    if not isinstance(up, ast.Call) or up.func is cur:
        return False
    func = up.func
    name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
    return bool(name) and name not in BUILTINS and not name.lower().startswith("assert")


def through_offsets(code: types.CodeType, spans: frozenset[Span]) -> frozenset[int]:
    """The offsets of the call instructions of `code` that make a passed-through call (a
    frame's `f_lasti` while it calls). Each code object is read once."""
    found = _OFFSETS.get(id(code))
    if found is None or found[0] is not code:
        instructions = list(dis.get_instructions(code))  # inline caches left out
        offsets = frozenset(
            at
            for i, after in zip(instructions, [*instructions[1:], None], strict=True)
            if i.opname in CALLS
            and (p := getattr(i, "positions", None)) is not None
            and (p.lineno, p.col_offset, p.end_lineno, p.end_col_offset) in spans
            # the frame's offset is the call's, or (3.11+) that of the last cache entry after it
            for at in range(i.offset, after.offset if after is not None else i.offset + 2)
        )
        found = _OFFSETS[id(code)] = (code, offsets)
    return found[1]


def read_ahead(codes: list[types.CodeType], spans: frozenset[Span]) -> None:
    """`through_offsets` of `codes` and of the functions nested in them, read in the worker
    before the children fork."""
    todo = list(codes)
    while todo:
        code = todo.pop()
        through_offsets(code, spans)
        todo += [c for c in code.co_consts if isinstance(c, types.CodeType)]
