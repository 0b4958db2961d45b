"""Values as Python source, and boundary values by type.

A test can only pin a value it can write back: `to_source` gives an expression that evaluates
(with the import lines it records) to an equal value of the same type - literals, containers,
enums, dataclasses, named tuples, importable classes and functions, and objects whose `repr` is
such an expression - or raises `Unwritable`. The caller checks the round trip where the value
lives (`round_trips`).
"""

from __future__ import annotations

import ast
import builtins
import dataclasses
import enum
import math
import sys
import types
from decimal import Decimal
from fractions import Fraction
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Iterable

MAX_SOURCE = 300
MAX_DEPTH = 6


class Unwritable(Exception):
    """The value has no source form that compares equal."""


class Imports:
    """Names a source text needs: bound name -> import line; a name bound twice to different
    things fails."""

    def __init__(self, base: dict[str, str] | None = None):
        self.lines: dict[str, str] = dict(base or {})

    def bind(self, name: str, line: str) -> None:
        if self.lines.get(name, line) != line:
            raise Unwritable(f"name {name} would be imported from two places")
        self.lines[name] = line

    def namespace(self) -> dict:
        ns: dict = {}
        for line in dict.fromkeys(self.lines.values()):
            if line:
                exec(line, ns)  # noqa: S102 - import lines built here, run in the sandbox
        return ns


def importable(obj: object, imports: Imports) -> str:
    """Source naming a module-level class or function (`Name` or `Outer.Inner`), its
    import recorded."""
    module, qual = getattr(obj, "__module__", None), getattr(obj, "__qualname__", None)
    if not module or not qual or "<" in qual or module == "__main__":
        raise Unwritable(f"{obj!r} is not importable")
    if module == "builtins":
        if getattr(builtins, qual, None) is not obj:
            raise Unwritable(f"{obj!r} is not a builtin name")
        return qual
    top = qual.split(".")[0]
    found = sys.modules.get(module)
    for part in qual.split("."):
        found = getattr(found, part, None)
    if found is not obj:
        raise Unwritable(f"{module}.{qual} is not {obj!r}")
    imports.bind(top, f"from {module} import {top}")
    return qual


def to_source(value: object, imports: Imports, depth: int = 0) -> str:
    """Source of an expression equal to `value` (see the module docstring); raises Unwritable."""
    src = _source(value, imports, depth)
    if len(src) > MAX_SOURCE:
        raise Unwritable("too long to read")
    return src


def _seq(items: Iterable[object], imports: Imports, depth: int) -> list[str]:
    return [_source(v, imports, depth + 1) for v in items]


def _source(v: Any, imports: Imports, depth: int) -> str:  # noqa: C901 - one case per kind of value
    if depth > MAX_DEPTH:
        raise Unwritable("nested too deeply")
    t = type(v)
    if v is None or t in (bool, int, str, bytes):
        if t is str and len(v) > MAX_SOURCE or t is int and abs(v) > 10**30:
            raise Unwritable("too long to read")
        return repr(v)
    if t is float:
        if math.isnan(v):
            raise Unwritable("nan never compares equal")
        return repr(v) if math.isfinite(v) else ('float("inf")' if v > 0 else '-float("inf")')
    if t is complex:
        if not (math.isfinite(v.real) and math.isfinite(v.imag)):
            raise Unwritable("not finite")
        return repr(v)
    if t is list:
        return "[" + ", ".join(_seq(v, imports, depth)) + "]"
    if t is tuple:
        items = _seq(v, imports, depth)
        return "(" + items[0] + ",)" if len(items) == 1 else "(" + ", ".join(items) + ")"
    if t is dict:
        return (
            "{"
            + ", ".join(
                f"{_source(k, imports, depth + 1)}: {_source(x, imports, depth + 1)}"
                for k, x in v.items()
            )
            + "}"
        )
    if t in (set, frozenset):
        items = sorted(_seq(v, imports, depth))
        if not items:
            return "set()" if t is set else "frozenset()"
        body = "{" + ", ".join(items) + "}"
        return body if t is set else f"frozenset({body})"
    if t is Decimal:
        if not v.is_finite():
            raise Unwritable("not finite")
        imports.bind("Decimal", "from decimal import Decimal")
        return f"Decimal({str(v)!r})"
    if t is Fraction:
        imports.bind("Fraction", "from fractions import Fraction")
        return f"Fraction({v.numerator}, {v.denominator})"
    if isinstance(v, enum.Enum):
        return f"{importable(t, imports)}.{v.name}"
    if isinstance(v, (type, types.FunctionType, types.BuiltinFunctionType)):
        return importable(v, imports)
    if dataclasses.is_dataclass(v):
        fields = [f for f in dataclasses.fields(v) if f.init]
        args = ", ".join(
            f"{f.name}={_source(getattr(v, f.name), imports, depth + 1)}" for f in fields
        )
        return f"{importable(t, imports)}({args})"
    if t is types.SimpleNamespace:  # an object of attributes, for an untyped parameter
        imports.bind("SimpleNamespace", "from types import SimpleNamespace")
        args = ", ".join(
            f"{n}={_source(x, imports, depth + 1)}" for n, x in vars(v).items() if n.isidentifier()
        )
        return f"SimpleNamespace({args})"
    if isinstance(v, tuple) and hasattr(t, "_fields"):
        args = ", ".join(f"{n}={_source(x, imports, depth + 1)}" for n, x in zip(t._fields, v))  # noqa: B905
        return f"{importable(t, imports)}({args})"
    return _from_repr(v, t, imports)


def _from_repr(v: object, t: type, imports: Imports) -> str:
    """An object whose repr is an expression over builtins, its own class, its module's names
    and modules."""
    if t.__eq__ is object.__eq__:
        raise Unwritable(f"{t.__name__} compares by identity")
    text = repr(v)
    if len(text) > MAX_SOURCE or " at 0x" in text:
        raise Unwritable("repr is not an expression")
    try:
        tree = ast.parse(text, mode="eval")
    except (SyntaxError, ValueError):
        raise Unwritable("repr is not an expression") from None
    home = sys.modules.get(t.__module__)
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute):
            root: ast.expr = node
            while isinstance(root, ast.Attribute):
                root = root.value
            if isinstance(root, ast.Name) and isinstance(
                sys.modules.get(root.id), types.ModuleType
            ):
                imports.bind(root.id, f"import {root.id}")
                root.id = "\0module"  # resolved: not a bare name
        if isinstance(node, ast.Name) and node.id != "\0module":
            if node.id == t.__name__:
                importable(t, imports)
            elif isinstance(getattr(home, node.id, None), type) or callable(
                getattr(home, node.id, None)
            ):
                importable(getattr(home, node.id), imports)
            elif not hasattr(builtins, node.id):
                raise Unwritable(f"repr names {node.id}")
    return text


def round_trips(src: str, value: object, namespace: dict) -> bool:
    """Whether `src` evaluates to a value of the same type that compares equal to `value`."""
    try:
        back = eval(src, dict(namespace))  # noqa: S307 - source built by to_source, in the sandbox
        return type(back) is type(value) and bool(back == value)
    except Exception:  # noqa: BLE001 - a value that cannot be rebuilt is simply not written
        return False


# --- boundary values by type ----------------------------------------------------------------------
BASE: dict[type, list] = {
    int: [0, 1, -1, 2, 10, 100],
    float: [0.0, 1.0, -1.0, 0.5, 2.5, 100.0],
    str: ["", "a", "abc", " ", "A-1", "Hello World"],
    bytes: [b"", b"a", b"abc"],
    bool: [False, True],
    Decimal: [
        Decimal("0"),
        Decimal("1"),
        Decimal("-1"),
        Decimal("0.5"),
        Decimal("1.49"),
        Decimal("2.5"),
    ],
}
UNTYPED = [0, 1, -1, "", "a", "abc", None, [], [1, 2, 3], {}, {"a": 1}]


def pooled(kind: type, pool: dict[str, list], limit: int = 14) -> list:
    """Base values of a scalar type, then values mined from the tests and the code (and neighbours
    of numbers)."""
    mined = pool.get(kind.__name__, [])
    if kind is float:
        mined = mined + [float(x) for x in pool.get("int", [])[:6]]
    if kind is Decimal:
        mined = [Decimal(str(x)) for x in pool.get("float", []) + pool.get("int", [])]
    if kind is int:
        mined = [y for x in mined for y in (x, x - 1, x + 1)]
    base = BASE.get(kind, [])
    return list(dict.fromkeys([*base[:3], *mined, *base[3:]]))[:limit]


def values_for(hint: Any, pool: dict[str, list], depth: int = 0) -> list:
    """Candidate values for a parameter annotated `hint` (empty when nothing sensible is known)."""
    import typing

    if depth > 2:
        return []
    if hint in BASE:
        return pooled(hint, pool)
    if hint is type(None) or hint is None:
        return [None]
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin is typing.Literal:
        return list(args)
    if origin in (typing.Union, getattr(types, "UnionType", None)):
        out: list = []
        for a in args:
            out += values_for(a, pool, depth + 1)[:6]
        return out
    if origin in (list, set, frozenset, tuple) or _abc(
        origin, "Sequence", "Iterable", "Collection", "Set"
    ):
        inner = values_for(args[0], pool, depth + 1) if args and args[0] is not Ellipsis else [1, 2]
        if origin is tuple and args and (len(args) != 2 or args[1] is not Ellipsis):
            firsts = [values_for(a, pool, depth + 1)[:2] for a in args]
            return (
                [tuple(v[0] for v in firsts), tuple(v[-1] for v in firsts)] if all(firsts) else []
            )
        build = origin if origin in (list, set, frozenset, tuple) else list
        return [
            build(x) for x in ([], inner[:1], inner[:2], inner[:4]) if len(x) or build is not set
        ]
    if origin is dict or _abc(origin, "Mapping", "MutableMapping"):
        keys = values_for(args[0], pool, depth + 1) if args else ["a", "b"]
        vals = values_for(args[1], pool, depth + 1) if args else [1, 2]
        if not keys or not vals:
            return [{}]
        return [{}, {keys[0]: vals[0]}, {keys[0]: vals[-1]}, dict(zip(keys[:3], vals[1:4]))]  # noqa: B905
    if isinstance(hint, type) and issubclass(hint, enum.Enum):
        return list(hint)
    if isinstance(hint, type) and dataclasses.is_dataclass(hint):
        return _instances(hint, pool, depth)
    return []


def _abc(origin: Any, *names: str) -> bool:
    return (
        origin is not None
        and getattr(origin, "__module__", "") == "collections.abc"
        and origin.__name__ in names
    )


def _instances(cls: type, pool: dict[str, list], depth: int) -> list:
    """A dataclass built from the first value of each field, then with one field varied at
    a time."""
    import typing

    try:
        hints = typing.get_type_hints(cls)
    except Exception:  # noqa: BLE001 - unresolvable annotations: nothing to build from
        return []
    fields = [f for f in dataclasses.fields(cls) if f.init]
    choices = {}
    for f in fields:
        vals = values_for(hints.get(f.name), pool, depth + 1)
        has_default = (
            f.default is not dataclasses.MISSING or f.default_factory is not dataclasses.MISSING
        )
        if not vals and not has_default:
            return []
        choices[f.name] = vals[:4]
    base = {name: vals[0] for name, vals in choices.items() if vals}
    combos = [base] + [{**base, name: v} for name, vals in choices.items() for v in vals[1:]]
    out = []
    for kw in combos:
        try:
            out.append(cls(**kw))
        except Exception:  # noqa: BLE001 - a combination the class refuses
            continue
    return out
