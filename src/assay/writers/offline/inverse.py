"""Inverse pairs seen in the probe: functions `f` and `g` where `f(x)` returned `y` and `g(y)`
returned `x` (format and parse, encode and decode) - read from what the code did, not from the
names. Their tests may share one (`gather`): "dates written and read back" is one thing a reader
names. Two witnesses at least, each returning a value that none of its arguments is (`tail(3, [3, 1,
2])` hands its sequence back: with `count([3, 1, 2]) == 3` it would look like a pair), so two
functions that hand some value back unchanged are not a pair."""

from __future__ import annotations

import ast
from collections.abc import Iterable

from assay.writers.offline.probe import Kept

MIN_WITNESSES = 2


def inverses(kept: Iterable[Kept], kinds: dict[str, str]) -> dict[str, set[str]]:
    """Function -> the functions it is an inverse pair with (symmetric), from the probe's cases: a
    plain call whose first argument is the other's return value and whose return value is the
    other's first argument."""
    forward: dict[tuple[str, str], set[str]] = {}  # (first argument, return) -> functions
    for k in kept:
        pair = _pair(k, kinds)
        if pair is not None:
            forward.setdefault(pair, set()).add(k.function)
    witnesses: dict[tuple[str, str], set[tuple[str, str]]] = {}
    for (x, y), fns in forward.items():
        for g in forward.get((y, x), ()):
            for f in fns:
                if f != g:
                    witnesses.setdefault((min(f, g), max(f, g)), set()).add(min((x, y), (y, x)))
    out: dict[str, set[str]] = {}
    for (f, g), seen in witnesses.items():
        if len(seen) >= MIN_WITNESSES:
            out.setdefault(f, set()).add(g)
            out.setdefault(g, set()).add(f)
    return out


def joined(*maps: dict[str, set[str]]) -> dict[str, set[str]]:
    """The union of relation maps (`blend.relations`, `inverses`)."""
    out: dict[str, set[str]] = {}
    for m in maps:
        for fn, others in m.items():
            out.setdefault(fn, set()).update(others)
    return out


def _pair(k: Kept, kinds: dict[str, str]) -> tuple[str, str] | None:
    """(first argument, return value), each in a normal form; None for anything but a plain
    function's return."""
    i, o = k.input, k.outcome
    if kinds.get(k.function) != "function" or i.get("receiver") is not None:
        return None
    if o.get("k") != "return" or "after" in o or not i.get("args"):
        return None
    args = [_norm(a) for a in i["args"]]
    y = _norm(o.get("expr", ""))
    # a value handed back as it came (`tail(3, [3, 1, 2])`) is no transformation
    return (args[0], y) if args[0] and y and y not in args else None


class _Unqualified(ast.NodeTransformer):
    """`datetime.date(1985, 4, 12)` as `date(1985, 4, 12)`: a mined input names a class as the
    test file imported it, a repr by its module."""

    def visit_Attribute(self, node: ast.Attribute) -> ast.AST:
        return ast.copy_location(ast.Name(node.attr, ast.Load()), node)


def _norm(expr: str) -> str:
    try:
        tree = ast.parse(expr, mode="eval")
    except (SyntaxError, ValueError):
        return ""
    return ast.dump(_Unqualified().visit(tree))
