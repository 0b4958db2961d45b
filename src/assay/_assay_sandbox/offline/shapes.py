"""Values for an untyped parameter, from how the function uses it (`ast` of its source).

`for x in p`, `len(p)`, `p[0]`: a sequence; `p["key"]`, `p.get(...)`, `p.items()`: a mapping with
those keys; `p.split()`, `p + "s"`: a string; `ord(p)`: a character, at the numbers the function
compares with; `p > 0`, `p * 2`, `abs(p)`: a number; `a, b = p`: a pair; `p(...)`: a callable;
`isinstance(p, T)`, or a docstring that types it (`:type p: bytes`, `:param bytes p:`, numpy's
`p : bytes`, Google's `p (bytes):`): a T; `p.attempt`: an object with that attribute (a
`SimpleNamespace`). The most used shape comes first. Untyped code otherwise gets a fixed mix of
values that mostly raise, and a default of None is all a parameter is ever given.
"""

from __future__ import annotations

import ast
import inspect
import re
from collections import Counter
from types import SimpleNamespace
from typing import Any

from .values import pooled

SEQ_CALLS = {"len", "sorted", "list", "tuple", "set", "iter", "enumerate", "reversed", "zip", "any"}
SEQ_CALLS |= {"all", "sum", "max", "min", "frozenset", "map", "filter", "next"}
NUM_CALLS = {"abs", "round", "divmod", "int", "float", "range", "pow", "hex", "oct", "bin"}
STR_METHODS = set(dir(str)) - set(dir(object)) - {"count", "index"}
MAP_METHODS = {"get", "items", "keys", "values", "setdefault", "update", "popitem"}
SEQ_METHODS = {"append", "extend", "insert", "sort", "reverse", "index", "count", "remove"}
TYPES: dict[str, list] = {
    "int": [0, 1, -1, 2, 10],
    "float": [0.0, 1.5, -2.5],
    "bool": [True, False],
    "str": ["", "a", "abc"],
    "bytes": [b"", b"abc"],
    "list": [[], [1], [1, 2, 3]],
    "tuple": [(), (1,), (1, 2)],
    "dict": [{}, {"a": 1}],
    "set": [set(), {1, 2}],
    "Mapping": [{}, {"a": 1}],
    "Sequence": [[], [1, 2, 3]],
    "Iterable": [[], [1, 2, 3]],
}


def _is(node: ast.AST, name: str) -> bool:
    return isinstance(node, ast.Name) and node.id == name


def _number(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and type(node.value) in (int, float)


def _text(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and isinstance(node.value, str)


def documented(tree: ast.AST, name: str) -> str | None:
    """The type the function's docstring gives parameter `name`, when it is one of TYPES: the author
    wrote it there rather than as a hint (base62's `:type barray: bytes`, checked by a helper the
    uses below do not see into)."""
    defs = (ast.FunctionDef, ast.AsyncFunctionDef)
    fn = next((n for n in ast.walk(tree) if isinstance(n, defs)), None)
    doc = ast.get_docstring(fn) if fn is not None else None
    if not doc:
        return None
    p = re.escape(name)
    for pattern in (
        rf":type\s+{p}\s*:\s*([\w.]+)",  # Sphinx `:type p: bytes`
        rf":param\s+([\w.]+)\s+{p}\s*:",  # Sphinx `:param bytes p:`
        rf"^\s*{p}\s+:\s+([\w.]+)",  # numpy `p : bytes`
        rf"^\s*{p}\s*\(([\w.]+)[^)]*\)\s*:",  # Google `p (bytes): ...`
    ):
        found = re.search(pattern, doc, re.MULTILINE)
        if found and found.group(1).split(".")[-1] in TYPES:
            return found.group(1).split(".")[-1]
    return None


def uses(tree: ast.AST, name: str) -> tuple[Counter, list[str], int]:  # noqa: C901 - one case a use
    """(shape -> how often, constant keys it is subscripted with, unpacked length)."""
    seen: Counter = Counter()
    label = documented(tree, name)
    if label:  # the author's word outweighs a use or two
        seen[f"type:{label}"] += 3
    keys: list[str] = []
    width = 0
    for node in ast.walk(tree):
        if isinstance(node, (ast.For, ast.comprehension)) and _is(node.iter, name):
            seen["seq"] += 1
        elif isinstance(node, ast.Call):
            func, args = node.func, node.args
            if _is(func, name):
                seen["callable"] += 1
            elif isinstance(func, ast.Name) and any(_is(a, name) for a in args):
                if func.id in SEQ_CALLS:
                    seen["seq"] += 1
                elif func.id in NUM_CALLS:
                    seen["num"] += 1
                elif func.id == "ord":
                    seen["char"] += 2
                elif func.id == "isinstance" and len(args) == 2 and _is(args[0], name):
                    kinds = args[1].elts if isinstance(args[1], ast.Tuple) else [args[1]]
                    for k in kinds:
                        label = ast.unparse(k).split(".")[-1]
                        if label in TYPES:
                            seen[f"type:{label}"] += 2
            elif isinstance(func, ast.Attribute) and _is(func.value, name):
                if func.attr in MAP_METHODS:
                    seen["map"] += 1
                    if func.attr in ("get", "setdefault") and args and _text(args[0]):
                        keys.append(args[0].value)  # type: ignore[attr-defined]
                elif func.attr in STR_METHODS:
                    seen["str"] += 1
                elif func.attr in SEQ_METHODS:
                    seen["seq"] += 1
        elif isinstance(node, ast.Subscript) and _is(node.value, name):
            if _text(node.slice):
                seen["map"] += 1
                keys.append(node.slice.value)  # type: ignore[attr-defined]
            else:
                seen["seq"] += 1
        elif isinstance(node, ast.Assign) and _is(node.value, name):
            target = node.targets[0]
            if isinstance(target, (ast.Tuple, ast.List)):
                seen["tuple"] += 1
                width = len(target.elts)
        elif isinstance(node, (ast.BinOp, ast.Compare, ast.AugAssign)):
            sides = (
                [node.left, node.right]
                if isinstance(node, ast.BinOp)
                else [node.left, *node.comparators]
                if isinstance(node, ast.Compare)
                else [node.target, node.value]
            )
            if any(_is(s, name) for s in sides):
                if isinstance(node, ast.Compare) and any(
                    isinstance(op, (ast.In, ast.NotIn)) for op in node.ops
                ):
                    if any(_is(c, name) for c in node.comparators):
                        seen["seq"] += 1
                elif any(_number(s) for s in sides):
                    seen["num"] += 1
                elif any(_text(s) for s in sides):
                    seen["str"] += 1
        elif (
            isinstance(node, ast.UnaryOp)
            and isinstance(node.op, ast.USub)
            and _is(node.operand, name)
        ):
            seen["num"] += 1
    return seen, list(dict.fromkeys(keys)), width


def _values(shape: str, pool: dict[str, list], keys: list[str], width: int) -> list:
    if shape.startswith("type:"):
        return TYPES[shape[5:]]
    if shape == "num":
        return pooled(int, pool, 8) + pooled(float, pool, 4)
    if shape == "str":
        return pooled(str, pool, 10)
    if shape == "char":  # `ord(p)` compared with numbers: the characters at those boundaries
        codes = [n for n in pooled(int, pool, 40) if 0 <= n < 0x110000]
        return list(dict.fromkeys(chr(n) for n in codes))[:24] + ["a"]
    if shape == "seq":
        words = [s for s in pool.get("str", []) if s][:3] or ["a", "b"]
        return [[1, 2, 3], [], [3, 1, 2], [1], [0, -1, 5, 5], words, "abc"]
    if shape == "map":
        full = {k: i + 1 for i, k in enumerate(keys)}
        return [full, {k: "a" for k in keys}, {}, {"a": 1}] if keys else [{}, {"a": 1, "b": 2}]
    if shape == "tuple":
        n = width or 2
        return [tuple(range(1, n + 1)), tuple("abcdefgh"[:n]), tuple(0 for _ in range(n))]
    if shape == "callable":
        return [str, len, abs, bool]
    return []


def attributes(tree: ast.AST, name: str) -> list[str]:
    """The attributes read from `name` that are not a method of a builtin type (`state.attempt`):
    it is an object with those attributes."""
    methods = {id(n.func) for n in ast.walk(tree) if isinstance(n, ast.Call)}
    return list(
        dict.fromkeys(
            n.attr
            for n in ast.walk(tree)
            if isinstance(n, ast.Attribute)
            and _is(n.value, name)
            and isinstance(n.ctx, ast.Load)
            and not n.attr.startswith("_")
            and id(n) not in methods
        )
    )


def _objects(attrs: list[str], pool: dict[str, list]) -> list:
    """Objects with these attributes, each a number (most attributes read that way are counts and
    durations): all equal, then each one apart."""
    numbers = [v for v in pooled(int, pool, 6) if v > 0][:3] or [1, 2, 3]
    out = [SimpleNamespace(**dict.fromkeys(attrs, n)) for n in numbers]
    out += [SimpleNamespace(**{a: (5 if a == b else 1) for a in attrs}) for b in attrs[:4]]
    return out


def shaped(obj: Any, name: str, pool: dict[str, list]) -> list:
    """Values for parameter `name` of function `obj`, by the shapes its body uses it as; empty
    when its source cannot be read or it is only passed on."""
    try:
        tree = ast.parse(inspect.getsource(getattr(obj, "__func__", obj)).strip())
    except (OSError, TypeError, SyntaxError, IndentationError):
        return []
    seen, keys, width = uses(tree, name)
    attrs = attributes(tree, name)
    if attrs:
        seen["obj"] += len(attrs)
    out: list = []
    for shape, _ in seen.most_common():
        values = _objects(attrs, pool) if shape == "obj" else _values(shape, pool, keys, width)
        out += [v for v in values if v not in out]
    return out
