"""Call-graph propagation: the arguments a target receives while another target's inputs run
become inputs of its own (`wcswidth("ab")` calls `wcwidth("a")`; a public helper is called with
the values its callers really pass). Callers are explored first, so that what they pass reaches
the callees' exploration; the arguments are written back as source at the call, before the callee
runs, and kept only when every one of them can be.
"""

from __future__ import annotations

import ast
import contextlib
import inspect
from typing import TYPE_CHECKING, Any

from .calls import resolve
from .values import Imports, Unwritable, to_source

if TYPE_CHECKING:
    from types import CodeType, FrameType, ModuleType

    from ..protocol import OfflineFunction

PER_INPUT = 3  # calls of one callee captured while one input of a caller runs
PER_CALLEE = 30  # inputs one callee gets from its callers


class Watched:
    """The targets' code objects: a call of one (seen by the line tracer) is captured."""

    def __init__(self, module: ModuleType, functions: list[OfflineFunction]):
        # code -> (target name, what its first parameter is: "self" | "cls" | "")
        self.codes: dict[CodeType, tuple[str, str]] = {}
        for fn in functions:
            try:
                obj = resolve(module, fn.name)
                first = ""
                if "." in fn.name:
                    cls_name, meth = fn.name.rsplit(".", 1)
                    static = inspect.getattr_static(resolve(module, cls_name), meth)
                    first = (
                        "cls"
                        if isinstance(static, classmethod)
                        else ""
                        if isinstance(static, staticmethod)
                        else "self"
                    )
            except AttributeError:
                continue
            # the function itself under a decorator that wraps it (`functools.lru_cache`)
            with contextlib.suppress(ValueError):
                obj = inspect.unwrap(getattr(obj, "__func__", obj))
            code = getattr(obj, "__code__", None)
            if code is not None:
                self.codes[code] = (fn.name, first)

    def capture(self, frame: FrameType, caller: str, into: dict[str, list[dict]]) -> None:
        """At a call of a target other than `caller`: its arguments as an input, into `into`."""
        hit = self.codes.get(frame.f_code)
        if hit is None or hit[0] == caller or len(into.get(hit[0], ())) >= PER_INPUT:
            return
        inp = _arguments(frame, hit[1])
        if inp is not None:
            into.setdefault(hit[0], []).append(inp)


def _arguments(frame: FrameType, first: str) -> dict | None:
    code = frame.f_code
    names = list(code.co_varnames[: code.co_argcount + code.co_kwonlyargcount])
    values: dict[str, Any] = frame.f_locals
    imports = Imports()
    receiver = None
    try:
        if first:
            receiver = to_source(values[names[0]], imports) if first == "self" else None
            names = names[1:]
        positional = code.co_argcount - (1 if first else 0)
        sources = [to_source(values[n], imports) for n in names]
    except (Unwritable, KeyError):
        return None
    except Exception:  # noqa: BLE001 - a value whose repr or attributes raise: not captured
        return None
    return {
        "args": sources[:positional],
        "kwargs": dict(zip(names[positional:], sources[positional:], strict=True)),
        "receiver": receiver,
        "origin": "callgraph",
        "imports": sorted(set(imports.lines.values())),
        "helpers": [],
    }


def callers_first(text: str, functions: list[OfflineFunction]) -> list[OfflineFunction]:
    """The functions in the order given, except that one calling another target comes before it
    (cycles broken in that order)."""
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return functions
    defs: dict[str, ast.AST] = {}
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            defs[node.name] = node
        elif isinstance(node, ast.ClassDef):
            for item in node.body:
                if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    defs[f"{node.name}.{item.name}"] = item
    by_last: dict[str, list[str]] = {}
    for fn in functions:
        by_last.setdefault(fn.name.rsplit(".", 1)[-1], []).append(fn.name)
    calls: dict[str, list[str]] = {}
    for fn in functions:
        called = set()
        for sub in ast.walk(defs[fn.name]) if fn.name in defs else []:
            if isinstance(sub, ast.Call):
                func = sub.func
                last = func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")
                called.update(by_last.get(last, []))
        calls[fn.name] = sorted(called - {fn.name})
    remaining = [fn.name for fn in functions]
    placed: list[str] = []
    while remaining:  # the first in source order that no remaining function calls
        free = next((n for n in remaining if not any(n in calls[c] for c in remaining)), None)
        placed.append(free if free is not None else remaining[0])  # a cycle: source order
        remaining.remove(placed[-1])
    rank = {name: i for i, name in enumerate(placed)}
    return sorted(functions, key=lambda f: rank[f.name])
