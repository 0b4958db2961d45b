"""Structural equality of a module namespace before and after its body was re-run.

Re-running a body builds new objects even when nothing changed: equality by identity would flag
every name, equality by `==` would miss changed functions and classes. Names the comparison calls
unchanged need no test run at all.
"""

from __future__ import annotations

import re
import types
from typing import Any

_IMMUTABLE_LEAVES = {int, float, complex, str, bytes, bool, type(None), range}
_PATTERN = type(re.compile(""))
_EMPTY = object()  # stands for an empty closure cell


def changed_names(old: dict, new: dict) -> set[str]:
    """Names bound, unbound or bound to a structurally different object (aliasing counts
    across names)."""
    same = Same()
    return {
        k
        for k in sorted(old.keys() | new.keys())
        if k not in old or k not in new or not same(old[k], new[k])
    }


class Same:
    """Structural equality of two object graphs, old and re-built: functions by code, defaults and
    closure, classes by their own attributes, data by `==`; aliasing must match too (a bijection of
    mutable objects)."""

    MAX_DEPTH = 12

    def __init__(self) -> None:
        self.fwd: dict[int, int] = {}
        self.bwd: dict[int, int] = {}
        self.keep: list = []  # keeps compared objects alive: ids stay unique

    def __call__(self, a: Any, b: Any, depth: int = 0) -> bool:
        ta, tb = type(a), type(b)
        if ta in _IMMUTABLE_LEAVES:
            return ta is tb and (a is b or a == b)
        if ta is frozenset:  # immutable: identity carries no meaning, compare contents only
            return ta is tb and a == b
        if ta is tuple:
            # lengths checked
            return (
                ta is tb and len(a) == len(b) and all(self(x, y, depth + 1) for x, y in zip(a, b))  # noqa: B905
            )
        seen = self.fwd.get(id(a))
        if seen is not None or id(b) in self.bwd:
            return seen == id(b) and self.bwd.get(id(b)) == id(a)
        if a is b:
            self._pair(a, b)
            return True
        if depth > self.MAX_DEPTH or isinstance(a, types.ModuleType):
            return False
        if ta is not tb and not (
            ta.__module__ == tb.__module__
            and ta.__qualname__ == tb.__qualname__
            and self(ta, tb, depth + 1)
        ):
            return False  # instances of a re-built class: same when the classes are
        self._pair(a, b)
        d = depth + 1
        try:
            if ta is types.FunctionType:
                return (
                    a.__code__ == b.__code__
                    and a.__globals__ is b.__globals__
                    and (a.__name__, a.__qualname__, a.__module__)
                    == (b.__name__, b.__qualname__, b.__module__)
                    and self(a.__defaults__, b.__defaults__, d)
                    and self(a.__kwdefaults__, b.__kwdefaults__, d)
                    and self(cells(a), cells(b), d)
                    and self(a.__dict__, b.__dict__, d)
                )
            if isinstance(a, type):
                return (
                    a.__qualname__ == b.__qualname__
                    and self(a.__bases__, b.__bases__, d)
                    and self(_own(a), _own(b), d)
                )
            if ta is list:
                # lengths checked
                return len(a) == len(b) and all(self(x, y, d) for x, y in zip(a, b))  # noqa: B905
            if ta is dict:
                return list(a) == list(b) and all(self(a[k], b[k], d) for k in a)
            if ta is set or ta is _PATTERN:
                return a == b
            if ta in (staticmethod, classmethod):
                return self(a.__func__, b.__func__, d)
            if ta is property:
                return self(
                    (a.fget, a.fset, a.fdel, a.__doc__), (b.fget, b.fset, b.fdel, b.__doc__), d
                )
            if ta.__eq__ is not object.__eq__:
                return (a == b) is True
            state_a, state_b = _state(a), _state(b)
            return state_a is not None and state_b is not None and self(state_a, state_b, d)
        except Exception:  # noqa: BLE001 - cannot tell: count it as changed
            return False

    def _pair(self, a: object, b: object) -> None:
        self.fwd[id(a)] = id(b)
        self.bwd[id(b)] = id(a)
        self.keep.append((a, b))


def cells(f: types.FunctionType) -> tuple:
    """A function's closure contents (an empty cell as a shared sentinel)."""
    out = []
    for cell in f.__closure__ or ():
        try:
            out.append(cell.cell_contents)
        except ValueError:
            out.append(_EMPTY)
    return tuple(out)


def _own(cls: type) -> dict:
    """A class's own attributes, without the per-class `__dict__`/`__weakref__` descriptors."""
    return {k: v for k, v in vars(cls).items() if k not in ("__dict__", "__weakref__")}


def _state(obj: Any) -> dict | None:
    """Instance state (`__dict__` and slots) of an object compared by identity; None when it
    has none."""
    state = dict(getattr(obj, "__dict__", {}))
    for klass in type(obj).__mro__:
        for slot in getattr(klass, "__slots__", ()):
            if isinstance(slot, str) and hasattr(obj, slot):
                state[f"slot:{slot}"] = getattr(obj, slot)
    return state or None
