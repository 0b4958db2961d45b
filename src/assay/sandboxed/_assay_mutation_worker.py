"""Mutation worker: imports pytest and the project once, then serves mutants from forked children.

Standalone (stdlib + pytest) because it runs under the interpreter of the user's tests.

1. Collection runs under a line tracer: lines of the target files executed at import time.
2. A forked child runs every test once under the tracer: per test, the target lines it executes (call
   phase apart, for the verify gate's scope) and its duration.
3. Each mutant is compiled in memory (never written): equivalent and duplicate mutants (same bytecode as
   the original or an earlier mutant) are Ignored; uncovered ones are NoCoverage without running.
4. The others run in forked children, `workers` at a time, only the covering tests, fastest first, stopping
   at the first failure; a child past its deadline is killed (Timeout).
   - mutant inside a function: the child swaps `__code__` of the live function objects of the enclosing
     defs (decorated, nested, methods, closures alike) - no re-import;
   - mutant whose line runs at import time (module code, decorators, calls made while importing): the
     child re-runs the mutated module body in the live module and rebinds the globals of the project's
     and tests' modules that held the old objects - no re-collection - then diffs the namespace against
     the live one: unchanged is Ignored, else only the tests that may read a changed name run, or every
     test when the effect cannot be bounded (BodyWatch, Server._read_index);
   - otherwise (the swap is impossible): the child drops the project's modules and re-runs pytest
     in-process with a meta-path finder that serves the mutated module code.

Input: a JSON file (argv[1]). Output: JSON lines appended to `events` (never stdout, which pytest captures).
"""

from __future__ import annotations

import contextlib
import ctypes
import dis
import gc
import hashlib
import importlib.abc
import importlib.machinery
import json
import os
import re
import select
import signal
import sys
import sysconfig
import threading
import time
import traceback
import types

import _assay_boot
import pytest

_IMMUTABLE = (int, float, complex, str, bytes, bool, tuple, frozenset, type(None))


# --- import-time mutants: what re-running the module body changed ----------------------------------
_STATE_OPS = {"STORE_ATTR", "DELETE_ATTR", "STORE_SUBSCR", "DELETE_SUBSCR"}
_PURE_C_MODULES = {"builtins", "math", "unicodedata", "_sre", "_operator", "_functools", "_string"}
_IMPURE_BUILTINS = {"setattr", "delattr", "exec", "eval", "open", "print", "input", "breakpoint", "__import__",
                    "next", "exit", "quit", "help"}
_PURE_SELF = (str, bytes, int, float, complex, bool, tuple, frozenset, range, type(None), type(re.compile("")),
              type(re.match("", "")))
_READ_ONLY_METHODS = {"copy", "count", "index", "get", "keys", "values", "items", "union", "intersection",
                      "difference", "symmetric_difference", "issubset", "issuperset", "isdisjoint", "__contains__",
                      "__getitem__", "__len__", "__iter__", "__reversed__", "__sizeof__"}
# stdlib Python code the body may call: it only builds the new objects handed to it
_TRUSTED_PY = {"re": None, "enum": None, "dataclasses": None, "typing": None, "collections": {"namedtuple"},
               "functools": {"wraps", "update_wrapper", "lru_cache", "cache", "decorating_function",
                             "total_ordering", "__init__", "__set_name__"},
               "abc": {"__new__"}}
_DYNAMIC = {"getattr", "vars", "globals", "__dict__", "dir", "eval", "exec", "__getattribute__",
            "attrgetter", "methodcaller", "inspect"}
_DOTTED = re.compile(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)*")
_STDLIB = os.path.realpath(sysconfig.get_paths()["stdlib"]) + os.sep


def _code_tree(code: types.CodeType):
    yield code
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            yield from _code_tree(const)


def _names(code: types.CodeType, nested: bool = True) -> set[str]:
    """Every name a code object (and its nested ones) may read: globals, attributes, and identifiers inside
    string constants (`monkeypatch.setattr("pkg.mod.NAME", ...)`, `mock.patch(...)`)."""
    names: set[str] = set()
    for c in _code_tree(code) if nested else (code,):
        names.update(c.co_names)
        for const in c.co_consts:
            if isinstance(const, str) and _DOTTED.fullmatch(const):
                names.update(const.split("."))
    return names


def _dynamic(code: types.CodeType, nested: bool = True) -> bool:
    """Whether the code may read names it does not spell (`getattr(mod, name)`, `vars(mod)`, ...)."""
    return any(_DYNAMIC.intersection(c.co_names) for c in (_code_tree(code) if nested else (code,)))


def _lines(code: types.CodeType) -> set[int]:
    return {line for c in _code_tree(code) for _, _, line in c.co_lines() if line}


def _is_function_code(code: types.CodeType) -> bool:
    """Function bodies run when called; module and class bodies ran at import (CO_NEWLOCALS marks functions)."""
    return bool(code.co_flags & 0x2)


class BodyWatch:
    """Profile hook for re-running a module body: notes any effect outside the module's own namespace.

    Allowed: calls into the module's own code; pure builtins and methods of immutable values; mutating
    methods only on containers the re-run itself bound as module globals (`PLURALS.insert(...)`); a few
    stdlib builders (re, enum, dataclasses, typing, namedtuple, functools.wraps). Anything else - a call
    into another module, `setattr`, `x.attr = ...`, `x[k] = ...`, augmented assignment (may mutate in
    place) - makes the mutant unclassifiable (`unsafe` says why) and the caller runs every test.
    """

    def __init__(self, path: str, module: types.ModuleType, old: dict):
        self.path = path
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

    def __call__(self, frame, event, arg):
        if self.unsafe is not None:
            return
        try:
            if event == "call":
                if self._file(frame.f_code) == self.path:
                    self.executed[id(frame.f_code)] = frame.f_code
                elif frame.f_back is not None and self._file(frame.f_back.f_code) == self.path:
                    self._check_python(frame.f_code)
            elif event == "c_call" and self._file(frame.f_code) == self.path:
                self._check_c(arg)
        except Exception as err:  # noqa: BLE001 - never break the run: just stop trusting the diff
            self.unsafe = f"watch failed: {err!r}"

    def _check_python(self, code: types.CodeType) -> None:
        path = self._file(code)
        if path.startswith(_STDLIB):
            rel = path[len(_STDLIB):]
            top = rel.split(os.sep)[0].removesuffix(".py")
            if top in _TRUSTED_PY and (_TRUSTED_PY[top] is None or code.co_name in _TRUSTED_PY[top]):
                return
        self.unsafe = f"calls {code.co_name} in {path}"

    def _check_c(self, fn) -> None:
        owner = getattr(fn, "__self__", None)
        name = getattr(fn, "__name__", "?")
        if isinstance(owner, types.ModuleType):
            if owner.__name__ in _PURE_C_MODULES and not (owner.__name__ == "builtins" and name in _IMPURE_BUILTINS):
                return
        elif type(owner) in _PURE_SELF or name in _READ_ONLY_METHODS or owner is self.module.__dict__:
            return
        elif type(owner) in (list, dict, set) and id(owner) not in self.old_ids and any(
                v is owner for v in self.module.__dict__.values()):
            return  # a fresh module-level table being filled
        self.unsafe = f"calls {name} on {type(owner).__name__}"

    def finish(self) -> None:
        """Statements that write into objects (`a.b = `, `a[k] = `, `a += `) may reach other modules' state."""
        if self.unsafe is not None:
            return
        for code in self.executed.values():
            for ins in dis.get_instructions(code):
                if ins.opname in _STATE_OPS or ins.opname.startswith("INPLACE_") or (
                        ins.opname == "BINARY_OP" and ins.argrepr.endswith("=")):
                    self.unsafe = f"`{ins.opname}` at line {ins.positions.lineno if ins.positions else '?'}"
                    return


class Same:
    """Structural equality of two object graphs, old and re-built: functions by code, defaults and closure,
    classes by their own attributes, data by `==`; aliasing must match too (a bijection of mutable objects)."""

    MAX_DEPTH = 12

    def __init__(self):
        self.fwd: dict[int, int] = {}
        self.bwd: dict[int, int] = {}
        self.keep: list = []  # keeps compared objects alive: ids stay unique

    def __call__(self, a, b, depth: int = 0) -> bool:
        ta, tb = type(a), type(b)
        if ta in _IMMUTABLE_LEAVES:
            return ta is tb and (a is b or a == b)
        if ta is frozenset:  # immutable: identity carries no meaning, compare contents only
            return ta is tb and a == b
        if ta is tuple:
            return ta is tb and len(a) == len(b) and all(
                self(x, y, depth + 1) for x, y in zip(a, b))  # noqa: B905 - lengths checked
        seen = self.fwd.get(id(a))
        if seen is not None or id(b) in self.bwd:
            return seen == id(b) and self.bwd.get(id(b)) == id(a)
        if a is b:
            self._pair(a, b)
            return True
        if depth > self.MAX_DEPTH or isinstance(a, types.ModuleType):
            return False
        if ta is not tb and not (ta.__module__ == tb.__module__ and ta.__qualname__ == tb.__qualname__
                                 and self(ta, tb, depth + 1)):
            return False  # instances of a re-built class: same when the classes are
        self._pair(a, b)
        d = depth + 1
        try:
            if ta is types.FunctionType:
                return (a.__code__ == b.__code__ and a.__globals__ is b.__globals__
                        and (a.__name__, a.__qualname__, a.__module__) == (b.__name__, b.__qualname__, b.__module__)
                        and self(a.__defaults__, b.__defaults__, d) and self(a.__kwdefaults__, b.__kwdefaults__, d)
                        and self(_cells(a), _cells(b), d) and self(a.__dict__, b.__dict__, d))
            if isinstance(a, type):
                return (a.__qualname__ == b.__qualname__ and self(a.__bases__, b.__bases__, d)
                        and self(_own(a), _own(b), d))
            if ta is list:
                return len(a) == len(b) and all(self(x, y, d) for x, y in zip(a, b))  # noqa: B905 - lengths checked
            if ta is dict:
                return list(a) == list(b) and all(self(a[k], b[k], d) for k in a)
            if ta is set or ta is _PATTERN:
                return a == b
            if ta in (staticmethod, classmethod):
                return self(a.__func__, b.__func__, d)
            if ta is property:
                return self((a.fget, a.fset, a.fdel, a.__doc__), (b.fget, b.fset, b.fdel, b.__doc__), d)
            if ta.__eq__ is not object.__eq__:
                return (a == b) is True
            state_a, state_b = _state(a), _state(b)
            return state_a is not None and state_b is not None and self(state_a, state_b, d)
        except Exception:  # noqa: BLE001 - cannot tell: count it as changed
            return False

    def _pair(self, a, b) -> None:
        self.fwd[id(a)] = id(b)
        self.bwd[id(b)] = id(a)
        self.keep.append((a, b))


_IMMUTABLE_LEAVES = {int, float, complex, str, bytes, bool, type(None), range}
_PATTERN = type(re.compile(""))


def _cells(f) -> tuple:
    out = []
    for cell in f.__closure__ or ():
        try:
            out.append(cell.cell_contents)
        except ValueError:
            out.append(_EMPTY)
    return tuple(out)


_EMPTY = object()


def _own(cls: type) -> dict:
    """A class's own attributes, without the per-class `__dict__`/`__weakref__` descriptors."""
    return {k: v for k, v in vars(cls).items() if k not in ("__dict__", "__weakref__")}


def _state(obj) -> dict | None:
    """Instance state (`__dict__` and slots) of an object compared by identity; None when it has none."""
    state = dict(getattr(obj, "__dict__", {}))
    for klass in type(obj).__mro__:
        for slot in getattr(klass, "__slots__", ()):
            if isinstance(slot, str) and hasattr(obj, slot):
                state[f"slot:{slot}"] = getattr(obj, slot)
    return state or None


def _code_lines_of(value, depth: int = 0) -> set[int]:
    """Lines of every function reachable from a changed value (methods, wrapped, closures, tables of them):
    the tests that executed any of them in the baseline may behave differently."""
    if depth > 6:
        return set()
    if isinstance(value, types.FunctionType):
        lines = _lines(value.__code__)
        for cell in _cells(value):
            lines |= _code_lines_of(cell, depth + 1)
        return lines | _code_lines_of(getattr(value, "__wrapped__", None), depth + 1)
    if isinstance(value, (staticmethod, classmethod)):
        return _code_lines_of(value.__func__, depth + 1)
    if isinstance(value, property):
        return set().union(*(_code_lines_of(f, depth + 1) for f in (value.fget, value.fset, value.fdel)))
    if isinstance(value, type):
        return set().union(set(), *(_code_lines_of(v, depth + 1) for v in vars(value).values()))
    if isinstance(value, (list, tuple)):
        return set().union(set(), *(_code_lines_of(v, depth + 1) for v in value))
    if isinstance(value, dict):
        return set().union(set(), *(_code_lines_of(v, depth + 1) for v in value.values()))
    wrapped = getattr(value, "__wrapped__", None) if not isinstance(value, types.ModuleType) else None
    return _code_lines_of(wrapped, depth + 1) if wrapped is not None else set()


class Events:
    def __init__(self, path: str):
        self.fh = open(path, "a", buffering=1, encoding="utf-8")  # noqa: SIM115 - lives as long as the worker

    def emit(self, **data) -> None:
        self.fh.write(json.dumps(data) + "\n")


class LineTracer:
    """Records (target file, line) pairs executed; other files cost one dict lookup per call."""

    def __init__(self, targets: dict[str, str]):
        self.targets = targets  # realpath -> project-relative path
        self.names: dict[str, str | None] = {}
        self.lines: set = set()
        self.call_lines: set = set()
        self.in_call = False

    def _rel(self, filename: str) -> str | None:
        rel = self.names.get(filename, 0)
        if rel == 0:
            rel = self.names[filename] = self.targets.get(os.path.realpath(filename))
        return rel

    def _global(self, frame, event, arg):
        rel = self._rel(frame.f_code.co_filename)
        if rel is None:
            return None
        local = self._local_for(rel)
        return local(frame, event, arg)

    def _local_for(self, rel: str):
        def local(frame, event, arg):
            if event == "line":
                key = (rel, frame.f_lineno)
                self.lines.add(key)
                if self.in_call:
                    self.call_lines.add(key)
            return local

        return local

    def start(self) -> None:
        threading.settrace(self._global)
        sys.settrace(self._global)

    def stop(self) -> None:
        sys.settrace(None)
        threading.settrace(None)

    def take(self) -> tuple[set, set]:
        lines, call = self.lines, self.call_lines
        self.lines, self.call_lines = set(), set()
        return lines, call


def _fingerprint(code: types.CodeType) -> str:
    """Bytecode identity, line numbers left out: equal fingerprints behave identically."""
    h = hashlib.sha256()

    def walk(c: types.CodeType) -> None:
        h.update(c.co_code)
        h.update(repr((c.co_name, c.co_names, c.co_varnames, c.co_freevars, c.co_cellvars, c.co_flags,
                       c.co_argcount, c.co_kwonlyargcount, c.co_posonlyargcount)).encode())
        for const in c.co_consts:
            if isinstance(const, types.CodeType):
                walk(const)
            else:
                h.update(f"{type(const).__name__}:{const!r}".encode())

    walk(code)
    return h.hexdigest()


def _find_code(code: types.CodeType, name: str, first: int) -> types.CodeType | None:
    if code.co_name == name and code.co_firstlineno == first:
        return code
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            found = _find_code(const, name, first)
            if found is not None:
                return found
    return None


class MutantFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Serves the mutated code object for one file; everything else imports as usual."""

    def __init__(self, path: str, code: types.CodeType):
        self.path = path
        self.code = code

    def find_spec(self, fullname, path, target=None):
        spec = importlib.machinery.PathFinder.find_spec(fullname, path)
        if spec is None or not spec.origin or os.path.realpath(spec.origin) != self.path:
            return None
        spec.loader = self
        return spec

    def create_module(self, spec):
        return None

    def exec_module(self, module):
        exec(self.code, module.__dict__)


def _die_with_parent() -> None:
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None).prctl(1, signal.SIGKILL)


def _quiet() -> None:
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    os.dup2(devnull, 2)


class Server:
    """pytest plugin: takes over the run loop once collection is done."""

    def __init__(self, cfg: dict, events: Events, tracer: LineTracer):
        self.cfg = cfg
        self.events = events
        self.tracer = tracer
        self.collect_errors: list[str] = []
        self.served = False
        self.started = time.monotonic()

    # --- pytest hooks ----------------------------------------------------------------------------
    def pytest_collectreport(self, report):
        if report.failed:
            self.collect_errors.append(f"{report.nodeid}: {report.longreprtext[-1500:]}")

    def pytest_collection_finish(self, session):
        self.tracer.stop()
        self.import_lines, _ = self.tracer.take()
        self.collection_s = time.monotonic() - self.started

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_call(self, item):
        self.tracer.in_call = True

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_teardown(self, item):
        self.tracer.in_call = False

    def pytest_runtestloop(self, session):
        self.served = True
        if self.collect_errors:
            self.events.emit(event="error", message="collection failed:\n" + "\n".join(self.collect_errors))
            return True
        try:
            self.serve(session)
        except Exception:
            self.events.emit(event="error", message=traceback.format_exc()[-3000:])
        return True

    # --- the work --------------------------------------------------------------------------------
    def _fork(self, body) -> tuple[int, int]:
        """Fork a child that runs `body()` and writes its JSON result into a pipe; returns (pid, read fd)."""
        r, w = os.pipe()
        pid = os.fork()
        if pid == 0:
            code = 0
            try:
                os.close(r)
                _die_with_parent()
                _quiet()
                data = json.dumps(body()).encode()
            except BaseException:
                data, code = json.dumps({"crash": traceback.format_exc()[-1500:]}).encode(), 3
            view = memoryview(data)
            while view:
                view = view[os.write(w, view):]
            os._exit(code)
        os.close(w)
        return pid, r

    @staticmethod
    def _read_all(fd: int) -> bytes:
        chunks = []
        while True:
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                break
            chunks.append(chunk)
        os.close(fd)
        return b"".join(chunks)

    def _run_items(self, items) -> dict:
        """Run tests in a forked child until the first failure."""
        from _pytest.nodes import Node
        from _pytest.runner import runtestprotocol

        # only pass/fail matters here: formatting a failure's traceback costs more than a fast test
        Node._repr_failure_py = lambda self, excinfo, style=None: "failed"

        done = 0
        for i, item in enumerate(items):
            nxt = items[i + 1] if i + 1 < len(items) else None
            reports = runtestprotocol(item, nextitem=nxt, log=False)
            done += 1
            if any(r.failed for r in reports):
                return {"killed_by": [item.nodeid], "tests_completed": done}
        return {"killed_by": [], "tests_completed": done}

    def _baseline(self, items) -> list[dict]:
        from _pytest.runner import runtestprotocol

        tracer = self.tracer
        out = []
        tracer.start()
        for i, item in enumerate(items):
            nxt = items[i + 1] if i + 1 < len(items) else None
            start = time.perf_counter()
            reports = runtestprotocol(item, nextitem=nxt, log=False)
            elapsed = time.perf_counter() - start
            lines, call = tracer.take()
            if any(r.failed for r in reports):
                outcome = "failed"
            elif any(r.skipped for r in reports):
                outcome = "skipped"
            else:
                outcome = "passed"
            out.append({"id": item.nodeid, "outcome": outcome, "duration": elapsed,
                        "lines": sorted(lines), "call": sorted(call)})
        tracer.stop()
        return out

    def _wait(self, pid: int, r: int, timeout: float) -> tuple[str, dict, float]:
        """Read a child's (possibly large) result while it runs, so that a full pipe never blocks it."""
        start = time.monotonic()
        deadline = start + timeout
        chunks = []
        while True:
            ready, _, _ = select.select([r], [], [], max(0.0, deadline - time.monotonic()))
            if not ready:
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
                os.close(r)
                return "timeout", {}, time.monotonic() - start
            chunk = os.read(r, 1 << 16)
            if not chunk:
                break
            chunks.append(chunk)
        os.close(r)
        _, status = os.waitpid(pid, 0)
        raw = b"".join(chunks)
        return "exited", json.loads(raw) if raw else {"crash": f"exit status {status}"}, time.monotonic() - start

    def serve(self, session) -> None:
        cfg = self.cfg
        self.events.emit(event="collected", tests=len(session.items), collection_s=round(self.collection_s, 3))
        by_id = {item.nodeid: item for item in session.items}

        pid, r = self._fork(lambda: self._baseline(list(session.items)))
        state, result, took = self._wait(pid, r, cfg["baseline_timeout"])
        if state == "timeout" or "crash" in result:
            self.events.emit(event="error", message=f"baseline run failed: {result.get('crash', 'timed out')}")
            return
        tests = [t for t in result if t["outcome"] == "passed"]
        tests.sort(key=lambda t: t["duration"])
        duration = {t["id"]: t["duration"] for t in tests}
        covering: dict[tuple[str, int], list[str]] = {}
        for t in tests:
            for rel, line in t["lines"]:
                covering.setdefault((rel, line), []).append(t["id"])
        scope = self._scope(tests) if cfg.get("functions") is not None else None
        line_tests: dict[str, dict[int, int]] = {}
        for (rel, line), ids in covering.items():
            line_tests.setdefault(rel, {})[line] = len(ids)
        self.events.emit(
            event="baseline",
            duration_s=round(took, 3),
            tests=[{"id": t["id"], "outcome": t["outcome"], "duration": round(t["duration"], 5)} for t in result],
            line_tests=line_tests,
            scope={rel: sorted(names) for rel, names in scope.items()} if scope is not None else None,
        )
        import_lines = self.import_lines
        all_ids = [t["id"] for t in tests]

        sources, original_code, originals = {}, {}, {}
        for rel, path in cfg["targets"].items():
            with open(path, encoding="utf-8") as fh:
                sources[rel] = fh.read()
            original_code[rel] = compile(sources[rel], os.path.realpath(path), "exec", dont_inherit=True)
            originals[_fingerprint(original_code[rel])] = None
        functions = self._function_index()

        jobs = []
        for m in cfg["mutants"]:
            rel = m["file"]
            if scope is not None and m["function"] not in scope.get(rel, ()):
                continue
            span = {*range(m["line"], m["end_line"] + 1), m["stmt_line"]}
            ids = {i for line in span for i in covering.get((rel, line), ())}
            at_import = any((rel, line) in import_lines for line in span)
            if at_import:  # its effect is made at import time (module code, decorators): every test
                ids = set(all_ids)
            ordered = sorted(ids, key=lambda i: duration[i])
            text = sources[rel]
            mutated = text[: m["start"]] + m["replacement"] + text[m["end"]:]
            try:
                code = compile(mutated, os.path.realpath(cfg["targets"][rel]), "exec", dont_inherit=True)
            except (SyntaxError, ValueError) as err:
                self._result(m, "CompileError", ordered, reason=str(err))
                continue
            fp = _fingerprint(code)
            if fp in originals:
                twin = originals[fp]
                self._result(m, "Ignored", ordered,
                             reason=f"duplicate of {twin}" if twin else "equivalent: same bytecode as the original")
                continue
            originals[fp] = m["id"]
            if not ordered:
                self._result(m, "NoCoverage", [])
                continue
            patches = None if at_import else self._patches(m, code, functions)
            timeout = cfg["timeout_factor"] * sum(duration[i] for i in ordered) + cfg["timeout_base"]
            mode = "rebind" if at_import else "patch" if patches is not None else "reimport"
            if mode == "reimport":
                timeout += 2 * self.collection_s
            jobs.append((m, ordered, code, patches, timeout, mode))
        self.covering = covering
        if any(job[5] == "rebind" for job in jobs):
            self.index = self._read_index(original_code, covering, session.items)
            scratch = os.path.realpath(self.cfg["scratch_root"]) + os.sep
            self.project_modules = [(mod, real) for mod in list(sys.modules.values())
                                    if getattr(mod, "__file__", None)
                                    and (real := os.path.realpath(mod.__file__)).startswith(scratch)]
            self.original_unsafe = self._probe_originals(original_code)
        self._run_jobs(jobs, by_id)
        self.events.emit(event="done")

    def _read_index(self, original_code, covering, items) -> dict:
        """Which tests may read each name (built once, before forking), for import-time mutants.

        A function of a target module that names N (global, attribute, or an identifier in a string
        constant) reads N in the tests that executed it in the baseline; a test function that names N
        reads it. Any other code of the project (fixtures, helpers, other modules) cannot be tied to tests:
        its names are `untracked` and a mutant changing one of them runs every test. Code that can read
        names dynamically (`getattr`, `vars`, `__dict__`, ...) reads every name.
        """
        readers: dict[str, set[str]] = {}
        always: set[str] = set()
        for rel, code in original_code.items():
            for c in _code_tree(code):
                if not _is_function_code(c):
                    continue
                names = _names(c, nested=False)
                ids = {i for _, _, line in c.co_lines() for i in covering.get((rel, line), ())}
                if _dynamic(c, nested=False):
                    always |= ids
                for name in names:
                    readers.setdefault(name, set()).update(ids)
        tests_of: dict[types.CodeType, list[str]] = {}
        for item in items:
            obj = getattr(item, "obj", None)
            code = getattr(getattr(obj, "__func__", obj), "__code__", None)
            if code is not None:
                tests_of.setdefault(code, []).append(item.nodeid)
        scratch = os.path.realpath(self.cfg["scratch_root"]) + os.sep
        targets = {os.path.realpath(p) for p in self.cfg["targets"].values()}
        untracked: set[str] = set()
        dynamic = False
        real: dict[str, str] = {}
        for obj in gc.get_objects():
            if type(obj) is not types.FunctionType:
                continue
            c = obj.__code__
            if not os.path.isabs(c.co_filename):  # "<frozen site>", "<string>": not project code
                continue
            path = real.get(c.co_filename) or real.setdefault(c.co_filename, os.path.realpath(c.co_filename))
            if not path.startswith(scratch) or path in targets:
                continue
            names = _names(c)
            ids = tests_of.get(c)
            if ids is None:
                untracked |= names
                dynamic = dynamic or _dynamic(c)
                continue
            if _dynamic(c):
                always.update(ids)
            for name in names:
                readers.setdefault(name, set()).update(ids)
        return {"readers": readers, "always": always, "untracked": untracked, "dynamic": dynamic}

    def _probe_originals(self, original_code) -> dict[str, str | None]:
        """Re-run each original module body under the watch, in a throwaway child: when the original has
        effects outside its namespace (registers itself somewhere), a mutant that drops or changes them
        leaves the live state as the original made it, so no namespace diff can bound who observes it."""
        out = {}
        for rel, code in original_code.items():
            path = os.path.realpath(self.cfg["targets"][rel])
            module = next((mod for mod, real in self.project_modules if real == path), None)
            if module is None:
                out[rel] = "not imported"
                continue
            pid, r = self._fork(lambda c=code, p=path, mod=module: self._watch_body(c, p, mod)[0].unsafe)
            state, result, _ = self._wait(pid, r, self.cfg["baseline_timeout"])
            out[rel] = "probe failed" if state == "timeout" or isinstance(result, dict) else result
        return out

    @staticmethod
    def _watch_body(code, path: str, module: types.ModuleType) -> tuple[BodyWatch, dict]:
        """Re-run a module body in the live module under the watch; returns the watch and the old namespace."""
        old = dict(module.__dict__)
        watch = BodyWatch(path, module, old)
        sys.setprofile(watch)
        try:
            exec(code, module.__dict__)
        finally:
            sys.setprofile(None)
        watch.finish()
        return watch, old

    def _select(self, m: dict, names: set[str], old: dict) -> tuple[set[str], bool]:
        """Tests that may observe a change of `names` in the module namespace, and whether that set is
        complete: readers of the names, tests that executed the old functions/classes/tables they held,
        tests covering the mutated lines."""
        ix, rel = self.index, m["file"]
        selected = set(ix["always"])
        for line in {*range(m["line"], m["end_line"] + 1), m["stmt_line"]}:
            selected.update(self.covering.get((rel, line), ()))
        complete = not ix["dynamic"]
        for name in names:
            selected |= ix["readers"].get(name, set())
            complete = complete and name not in ix["untracked"]
            if name in old:
                for line in _code_lines_of(old[name]):
                    selected.update(self.covering.get((rel, line), ()))
        return selected, complete

    def _scope(self, tests) -> dict[str, set[str]]:
        """Functions the tests execute in their call phase: the innermost def around each line."""
        spans = self.cfg["functions"]
        scope: dict[str, set[str]] = {}
        for t in tests:
            for rel, line in t["call"]:
                best = None
                for name, first, last in spans.get(rel, ()):
                    if first <= line <= last and (best is None or first >= best[1]):
                        best = (name, first)
                if best:
                    scope.setdefault(rel, set()).add(best[0])
        return scope

    def _function_index(self) -> dict[tuple[str, str, int], list]:
        """Live function objects of the target files, by (real path, name, first line)."""
        paths = {os.path.realpath(p) for p in self.cfg["targets"].values()}
        index: dict[tuple[str, str, int], list] = {}
        real: dict[str, str] = {}
        for obj in gc.get_objects():
            if type(obj) is types.FunctionType:
                c = obj.__code__
                path = real.get(c.co_filename) or real.setdefault(c.co_filename, os.path.realpath(c.co_filename))
                if path in paths:
                    index.setdefault((path, c.co_name, c.co_firstlineno), []).append(obj)
        return index

    def _patches(self, m: dict, code, functions) -> list | None:
        """(function objects, mutated code) pairs for the enclosing defs, or None: re-import instead."""
        if not m["chain"]:
            return None
        path = os.path.realpath(self.cfg["targets"][m["file"]])
        patches = []
        for name, first in m["chain"]:
            new = _find_code(code, name, first)
            if new is None:
                return None
            funcs = functions.get((path, name, first), [])
            if any(len(new.co_freevars) != len(f.__closure__ or ()) for f in funcs):
                return None
            if funcs:
                patches.append((funcs, new))
        return patches or None

    def _result(self, m, status, covered, killed_by=(), completed=0, duration=0.0, reason="") -> None:
        self.events.emit(event="mutant", id=m["id"], status=status, covered_by=covered, killed_by=list(killed_by),
                         tests_completed=completed, duration_s=round(duration, 4), reason=reason)

    def _child_patch(self, patches, items):
        for funcs, new in patches:
            for f in funcs:
                f.__code__ = new
        return self._run_items(items)

    def _child_rebind(self, m, code, items):
        """Module-level mutant, fast way: re-run the mutated module body in the live module, then point the
        project's and tests' module globals that held the old objects at the new ones; no re-collection."""
        path = os.path.realpath(self.cfg["targets"][m["file"]])
        module = next(mod for mod, real in self.project_modules if real == path)
        watch, old = self._watch_body(code, path, module)
        unsafe = watch.unsafe or self.original_unsafe[m["file"]]
        same = Same()
        new = module.__dict__
        changed = {k for k in sorted(old.keys() | new.keys())
                   if k not in old or k not in new or not same(old[k], new[k])}
        if not changed and unsafe is None:
            return {"equivalent": "equivalent: re-running the module body leaves its namespace unchanged"}
        swaps = {}
        for name, value in old.items():
            new = module.__dict__.get(name, value)
            if new is not value and not name.startswith("__"):
                swaps[id(value)] = (name, value, new)
        aliases: set[str] = set()
        for mod, _ in self.project_modules:
            if mod is module:
                continue
            space = mod.__dict__
            for key, value in list(space.items()):
                hit = swaps.get(id(value))
                # immutable values may be shared by accident (small ints, interned strings): same name only
                if hit and hit[1] is value and (key == hit[0] or not isinstance(value, _IMMUTABLE)):
                    space[key] = hit[2]
                    if hit[0] in changed:
                        aliases.add(key)
        selected, complete = self._select(m, changed | aliases, old)
        if complete and unsafe is None:
            run = [item for item in items if item.nodeid in selected]
            return {**self._run_items(run), "selected": [item.nodeid for item in run]}
        # cannot bound who observes it: every test, the likely killers first
        return self._run_items(sorted(items, key=lambda item: item.nodeid not in selected))

    def _child_reimport(self, m, code, ordered):
        scratch = os.path.realpath(self.cfg["scratch_root"]) + os.sep
        for name, mod in list(sys.modules.items()):
            f = getattr(mod, "__file__", None)
            if f and os.path.realpath(f).startswith(scratch):
                del sys.modules[name]
        sys.meta_path.insert(0, MutantFinder(os.path.realpath(self.cfg["targets"][m["file"]]), code))

        class Collector:
            def __init__(self):
                self.killed_by: list[str] = []
                self.completed = 0

            def pytest_runtest_logreport(self, report):
                if report.failed and not self.killed_by:
                    self.killed_by.append(report.nodeid)
                if report.when == "teardown":
                    self.completed += 1

            def pytest_collectreport(self, report):
                if report.failed and not self.killed_by:
                    self.killed_by.append(report.nodeid or "<collection>")

        collector = Collector()
        # parametrize ids may be built from the mutated module: name the test functions, not their ids
        functions = list(dict.fromkeys(nodeid.split("[")[0] for nodeid in ordered))
        args = [*functions, "-x", "-q", "-p", "no:cacheprovider", "-p", "no:randomly", *self.cfg["pytest_args"]]
        exit_code = int(pytest.main(args, plugins=[collector]))
        if exit_code == 0:
            return {"killed_by": [], "tests_completed": collector.completed}
        if exit_code in (1, 2) or collector.killed_by:  # failed, or the mutated module does not import
            return {"killed_by": collector.killed_by or ["<collection>"], "tests_completed": collector.completed}
        return {"crash": f"pytest exit code {exit_code}"}

    def _likely_killers_first(self, m: dict, ordered: list[str]) -> list[str]:
        """Tests that killed a mutant on the same line first, then those that killed most mutants so far,
        then the fastest: a killed mutant stops at its first failing test, so this only saves time."""
        same_line = self.line_killers.get((m["file"], m["line"]), ())
        return sorted(ordered, key=lambda i: (i not in same_line, -self.kills.get(i, 0)))

    def _run_jobs(self, jobs, by_id) -> None:
        self.kills: dict[str, int] = {}
        self.line_killers: dict[tuple[str, int], set[str]] = {}
        workers = max(1, self.cfg["workers"])
        pending = list(reversed(jobs))
        running: dict[int, tuple] = {}
        while pending or running:
            while pending and len(running) < workers:
                m, ordered, code, patches, timeout, mode = job = pending.pop()
                items = [by_id[i] for i in self._likely_killers_first(m, ordered)]
                if mode == "patch":
                    pid, r = self._fork(lambda p=patches, it=items: self._child_patch(p, it))
                elif mode == "rebind":
                    pid, r = self._fork(lambda m=m, c=code, it=items: self._child_rebind(m, c, it))
                else:
                    pid, r = self._fork(lambda m=m, c=code, o=ordered: self._child_reimport(m, c, o))
                running[pid] = (job, r, time.monotonic())
            self._reap_one(running)

    def _reap_one(self, running: dict[int, tuple]) -> None:
        """Wait until one child exits or passes its deadline; record its verdict."""
        now = time.monotonic()
        nearest = min(start + job[4] for job, _, start in running.values())
        fds = {}
        for pid in running:
            with contextlib.suppress(AttributeError, OSError):
                fds[os.pidfd_open(pid)] = pid
        try:
            if fds and len(fds) == len(running):
                select.select(list(fds), [], [], max(0.0, nearest - now))
            else:
                time.sleep(0.002)
        finally:
            for fd in fds:
                os.close(fd)
        now = time.monotonic()
        for pid, (job, r, start) in list(running.items()):
            m, ordered = job[0], job[1]
            done, status = os.waitpid(pid, os.WNOHANG)
            if not done:
                if now >= start + job[4]:
                    os.kill(pid, signal.SIGKILL)
                    os.waitpid(pid, 0)
                    os.close(r)
                    del running[pid]
                    self._result(m, "Timeout", ordered, duration=now - start,
                                 reason=f"no verdict within {job[4]:.1f}s")
                continue
            del running[pid]
            raw = self._read_all(r)
            result = json.loads(raw) if raw else {"crash": f"child died (status {status})"}
            took = time.monotonic() - start
            if "crash" in result:
                self._result(m, "RuntimeError", ordered, duration=took, reason=result["crash"])
            elif "equivalent" in result:
                self._result(m, "Ignored", [], duration=took, reason=result["equivalent"])
            else:
                covered = result.get("selected", ordered)
                status = "Killed" if result["killed_by"] else "Survived"
                for killer in result["killed_by"][:1]:
                    self.kills[killer] = self.kills.get(killer, 0) + 1
                    self.line_killers.setdefault((m["file"], m["line"]), set()).add(killer)
                self._result(m, status, covered, result["killed_by"], result["tests_completed"], took)


def main() -> int:
    with open(sys.argv[1], encoding="utf-8") as fh:
        cfg = json.load(fh)
    _assay_boot.isolate_imports(cfg["user_root"], cfg["scratch_root"], cfg["source_roots"])
    os.chdir(cfg["scratch_root"])
    events = Events(cfg["events"])
    tracer = LineTracer({os.path.realpath(p): rel for rel, p in cfg["targets"].items()})
    server = Server(cfg, events, tracer)
    args = [*cfg["tests"], "-q", "-p", "no:cacheprovider", "-p", "no:randomly", *cfg["pytest_args"]]
    tracer.start()
    code = pytest.main(args, plugins=[server])
    tracer.stop()
    if not server.served:
        events.emit(event="error", message=f"pytest stopped before running (exit code {int(code)}): "
                    + ("\n".join(server.collect_errors) or "no tests collected")[-3000:])
    return 0


if __name__ == "__main__":
    sys.exit(main())
