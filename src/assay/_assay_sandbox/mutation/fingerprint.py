"""The fingerprint of a value that crosses from the project to a test (gate 4's observer,
`observe`): bounded (depth, items, nodes), never raising. An object is its type and its attributes,
a container its items, floats their repr, anything else its repr without addresses (and a text
without the addresses of default reprs it holds); an object the test built only to hand it on
(`through`) its type alone."""

from __future__ import annotations

import hashlib
import re
import types
from typing import Any

ADDRESS = re.compile(r"0x[0-9a-fA-F]+")
# an address in a text the project built from a default repr ("<function f at 0x7f3c...>", glom's
# messages); other hex in a text ("0xff") still counts
IN_TEXT = re.compile(r"(?<= at )0x[0-9a-fA-F]{6,}")
MAX_DEPTH = 4
MAX_ITEMS = 100  # of one container; its length is always part of it
SCALARS = (type(None), bool, int, float, complex, str, bytes, bytearray)


class Walk:
    """Feeds one value's fingerprint into a hash: at most `budget` nodes, cycles cut."""

    def __init__(self, h: Any, budget: int, through: dict[int, Any] | None = None) -> None:
        self.h = h
        self.budget = budget
        self.path: set[int] = set()
        # objects the test built only to hand them on (`through`): their type alone
        self.through = through or {}

    def put(self, text: str) -> None:
        self.h.update(text.encode("utf-8", "surrogatepass"))
        self.h.update(b"\x1f")

    def feed(self, value: Any, depth: int = 0) -> None:
        self.budget -= 1
        if self.budget < 0:
            self.put("...")
            return
        kind = type(value)
        if isinstance(value, SCALARS):
            if isinstance(value, str) and " at 0x" in value:  # a default repr in a text
                value = IN_TEXT.sub("0x", value)
            self.put(f"{kind.__name__}:{value!r}")
            return
        if id(value) in self.path:
            self.put("<cycle>")
            return
        if id(value) in self.through:
            self.put(f"{kind.__module__}.{kind.__qualname__}, handed on by the test")
            return
        self.path.add(id(value))
        try:
            self._compound(value, kind, depth)
        except Exception as err:  # a hostile __eq__, __iter__ or property: its type says enough
            self.put(f"<{kind.__qualname__}: {type(err).__name__}>")
        finally:
            self.path.discard(id(value))

    def _compound(self, value: Any, kind: type, depth: int) -> None:
        name = f"{kind.__module__}.{kind.__qualname__}"
        if isinstance(value, BaseException):
            self.put(f"raise {name}: {ADDRESS.sub('0x', str(value))}")
            return
        if isinstance(value, (types.MethodType, types.BuiltinMethodType)) and not isinstance(
            getattr(value, "__self__", None), (types.ModuleType, type(None))
        ):
            # a bound method handed to the project (`seen.append`): its object is what changes
            self.put(f"{name} {value.__name__}")
            self.feed(value.__self__, depth + 1)
            return
        if isinstance(value, (types.FunctionType, types.BuiltinFunctionType, type)):
            self.put(f"{name} {getattr(value, '__module__', '')}.{value.__qualname__}")
            return
        if isinstance(value, (types.ModuleType, types.GeneratorType, types.CoroutineType)):
            self.put(f"{name} {getattr(value, '__name__', '')}")
            return
        if depth >= MAX_DEPTH:
            self.put(f"{name} len={len(value) if hasattr(value, '__len__') else '?'}")
            return
        if isinstance(value, dict):
            self.put(f"{name} len={len(value)}")
            for i, (k, v) in enumerate(dict.items(value)):
                if i >= MAX_ITEMS:
                    break
                self.feed(k, depth + 1)
                self.feed(v, depth + 1)
            return
        if isinstance(value, (list, tuple)):
            self.put(f"{name} len={len(value)}")
            for item in list(value)[:MAX_ITEMS]:
                self.feed(item, depth + 1)
            return
        if isinstance(value, (set, frozenset)):
            # set order follows insertion history: each item on its own, sorted
            self.put(f"{name} len={len(value)}")
            for digest in sorted(self._apart(item, depth + 1) for item in value)[:MAX_ITEMS]:
                self.put(digest)
            return
        state = state_of(value)
        if state is not None:
            self.put(name)
            self.feed(state, depth + 1)
            return
        self.put(f"{name} {ADDRESS.sub('0x', repr(value))}")

    def _apart(self, value: Any, depth: int) -> str:
        inner = Walk(hashlib.blake2b(digest_size=8), min(self.budget, 50))
        inner.path = self.path
        inner.feed(value, depth)
        self.budget -= 50 - max(inner.budget, 0)
        return inner.h.hexdigest()


def state_of(value: Any) -> dict[str, Any] | None:
    """An object's attributes: its `__dict__` and its slots; None for objects with neither
    (builtin and C types, whose repr is their value)."""
    state: dict[str, Any] = {}
    found = False
    for klass in type(value).__mro__:
        for slot in klass.__dict__.get("__slots__", ()) if klass is not object else ():
            if isinstance(slot, str) and slot not in ("__dict__", "__weakref__"):
                found = True
                if hasattr(value, slot):
                    state[slot] = getattr(value, slot)
    attrs = getattr(value, "__dict__", None)
    if isinstance(attrs, dict):
        found = True
        state.update(attrs)
    return state if found else None
