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
     and tests' modules that held the old objects - no re-collection;
   - otherwise (the swap is impossible): the child drops the project's modules and re-runs pytest
     in-process with a meta-path finder that serves the mutated module code.

Input: a JSON file (argv[1]). Output: JSON lines appended to `events` (never stdout, which pytest captures).
"""

from __future__ import annotations

import contextlib
import ctypes
import gc
import hashlib
import importlib.abc
import importlib.machinery
import json
import os
import select
import signal
import sys
import threading
import time
import traceback
import types

import _assay_boot
import pytest

_IMMUTABLE = (int, float, complex, str, bytes, bool, tuple, frozenset, type(None))


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
        from _pytest.runner import runtestprotocol

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
        self._run_jobs(jobs, by_id)
        self.events.emit(event="done")

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
        module = next(mod for mod in list(sys.modules.values())
                      if getattr(mod, "__file__", None) and os.path.realpath(mod.__file__) == path)
        old = dict(module.__dict__)
        exec(code, module.__dict__)
        swaps = {}
        for name, value in old.items():
            new = module.__dict__.get(name, value)
            if new is not value and not name.startswith("__"):
                swaps[id(value)] = (name, value, new)
        scratch = os.path.realpath(self.cfg["scratch_root"]) + os.sep
        for mod in list(sys.modules.values()):
            f = getattr(mod, "__file__", None)
            if mod is module or not f or not os.path.realpath(f).startswith(scratch):
                continue
            space = mod.__dict__
            for key, value in list(space.items()):
                hit = swaps.get(id(value))
                # immutable values may be shared by accident (small ints, interned strings): same name only
                if hit and hit[1] is value and (key == hit[0] or not isinstance(value, _IMMUTABLE)):
                    space[key] = hit[2]
        return self._run_items(items)

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

    def _run_jobs(self, jobs, by_id) -> None:
        workers = max(1, self.cfg["workers"])
        pending = list(reversed(jobs))
        running: dict[int, tuple] = {}
        while pending or running:
            while pending and len(running) < workers:
                m, ordered, code, patches, timeout, mode = job = pending.pop()
                items = [by_id[i] for i in ordered]
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
            elif result["killed_by"]:
                self._result(m, "Killed", ordered, result["killed_by"], result["tests_completed"], took)
            else:
                self._result(m, "Survived", ordered, (), result["tests_completed"], took)


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
