"""Re-running a module body in its live module, watching for effects outside the module's namespace.

An import-time mutant is judged by diffing the namespace its body leaves behind; that diff only
bounds the mutant's effect when the body touched nothing else, which is what BodyWatch checks.
"""

from __future__ import annotations

import dis
import os
import re
import sys
import sysconfig
import types
from typing import Any

from .bytecode import is_function_code
from .flow import Body

_STATE_OPS = {"STORE_ATTR", "DELETE_ATTR", "STORE_SUBSCR", "DELETE_SUBSCR"}
_PURE_C_MODULES = {"builtins", "math", "unicodedata", "_sre", "_operator", "_functools", "_string"}
_IMPURE_BUILTINS = {
    "setattr",
    "delattr",
    "exec",
    "eval",
    "open",
    "print",
    "input",
    "breakpoint",
    "__import__",
    "next",
    "exit",
    "quit",
    "help",
}
_PURE_SELF = (
    str,
    bytes,
    int,
    float,
    complex,
    bool,
    tuple,
    frozenset,
    range,
    type(None),
    type(re.compile("")),
    type(re.match("", "")),
)
_READ_ONLY_METHODS = {
    "copy",
    "count",
    "index",
    "get",
    "keys",
    "values",
    "items",
    "union",
    "intersection",
    "difference",
    "symmetric_difference",
    "issubset",
    "issuperset",
    "isdisjoint",
    "__contains__",
    "__getitem__",
    "__len__",
    "__iter__",
    "__reversed__",
    "__sizeof__",
}
# stdlib Python code the body may call: it only builds the new objects handed to it
_TRUSTED_PY = {
    "re": None,
    "enum": None,
    "dataclasses": None,
    "typing": None,
    "collections": {"namedtuple"},
    "functools": {
        "wraps",
        "update_wrapper",
        "lru_cache",
        "cache",
        "decorating_function",
        "total_ordering",
        "__init__",
        "__set_name__",
    },
    "abc": {"__new__"},
}
# stdlib classes whose methods only touch the instance the body made
# (`with suppress(KeyError): ...`)
_TRUSTED_SELF = {"contextlib": {"suppress", "nullcontext"}, "random": {"Random", "SystemRandom"}}
_STDLIB = os.path.realpath(sysconfig.get_paths()["stdlib"]) + os.sep


class BodyWatch:
    """Profile hook for re-running a module body: notes any effect outside the module's
    own namespace.

    Allowed: calls into the module's own code; pure builtins and methods of immutable values;
    mutating methods only on containers the re-run itself bound as module globals
    (`PLURALS.insert(...)`); a few stdlib builders (re, enum, dataclasses, typing, namedtuple,
    functools.wraps). Anything else - a call into another module, `setattr`, `x.attr = ...`,
    `x[k] = ...`, augmented assignment (may mutate in place) - makes the mutant unclassifiable
    (`unsafe` says why) and the caller runs every test.
    """

    def __init__(self, path: str, module: types.ModuleType, old: dict, body: Body | None = None):
        self.path = path
        self.body = body
        self.module = module
        self.old_ids = {id(v) for v in old.values()}
        self.executed: dict[int, types.CodeType] = {}
        self.unsafe: str | None = None
        self.real: dict[str, str] = {}

    def _file(self, code: types.CodeType) -> str:
        f = code.co_filename
        r = self.real.get(f)
        if r is None:
            r = self.real[f] = os.path.realpath(f)
        return r

    def __call__(self, frame: types.FrameType, event: str, arg: Any) -> None:
        if self.unsafe is not None:
            return
        try:
            if event == "call":
                if self._file(frame.f_code) == self.path:
                    self.executed[id(frame.f_code)] = frame.f_code
                elif frame.f_back is not None and self._file(frame.f_back.f_code) == self.path:
                    self._check_python(frame)
            elif event == "c_call" and self._file(frame.f_code) == self.path:
                self._check_c(arg)
        except Exception as err:  # noqa: BLE001 - never break the run: just stop trusting the diff
            self.unsafe = f"watch failed: {err!r}"

    def _check_python(self, frame: types.FrameType) -> None:
        code = frame.f_code
        if code.co_name == "_handle_fromlist" and code.co_filename.startswith("<frozen importlib"):
            # `from package import a, b`: getattr on a module already imported, unless a name is a
            # submodule not imported yet (a real import: an effect outside the namespace)
            module, fromlist = frame.f_locals.get("module"), frame.f_locals.get("fromlist") or ()
            if module is not None and all(x == "*" or hasattr(module, x) for x in fromlist):
                return
        path = self._file(code)
        if path.startswith(_STDLIB):
            rel = path[len(_STDLIB) :]
            top = rel.split(os.sep)[0].removesuffix(".py")
            if top in _TRUSTED_PY:
                names = _TRUSTED_PY[top]
                if names is None or code.co_name in names:
                    return
            if type(frame.f_locals.get("self")).__name__ in _TRUSTED_SELF.get(top, ()):
                return
        self.unsafe = f"calls {code.co_name} in {path}"

    def _check_c(self, fn: Any) -> None:
        owner = getattr(fn, "__self__", None)
        name = getattr(fn, "__name__", "?")
        if isinstance(owner, types.ModuleType):
            if owner.__name__ in _PURE_C_MODULES and not (
                owner.__name__ == "builtins" and name in _IMPURE_BUILTINS
            ):
                return
        elif (
            type(owner) in _PURE_SELF or name in _READ_ONLY_METHODS or owner is self.module.__dict__
        ):
            return
        elif (
            type(owner) in (list, dict, set)
            and id(owner) not in self.old_ids
            and any(v is owner for v in self.module.__dict__.values())
        ):
            return  # a fresh module-level table being filled
        self.unsafe = f"calls {name} on {type(owner).__name__}"

    def finish(self) -> None:
        """Statements that write into objects (`a.b = `, `a[k] = `, `a += `) may reach other
        modules' state."""
        if self.unsafe is not None:
            return
        for code in self.executed.values():
            for ins in dis.get_instructions(code):
                if (
                    ins.opname in _STATE_OPS
                    or ins.opname.startswith("INPLACE_")
                    or (ins.opname == "BINARY_OP" and ins.argrepr.endswith("="))
                ):
                    line = getattr(getattr(ins, "positions", None), "lineno", None)
                    body = self.body
                    if (
                        line
                        and body is not None
                        and body.safe_store(is_function_code(code), code.co_firstlineno, line)
                    ):
                        continue  # into an object this run built
                    self.unsafe = f"`{ins.opname}` at line {line or '?'}"
                    return


def watch_body(
    code: types.CodeType, path: str, module: types.ModuleType, body: Body | None = None
) -> tuple[BodyWatch, dict]:
    """Re-run a module body in the live module under the watch; returns the watch and the
    old namespace."""
    old = dict(module.__dict__)
    watch = BodyWatch(path, module, old, body)
    sys.setprofile(watch)
    try:
        exec(code, module.__dict__)
    finally:
        sys.setprofile(None)
    watch.finish()
    return watch, old
