"""Which lines of the target files run: while collecting (`CollectTracer`) and per
test (`make_tracer`).

Per-test coverage is the baseline's main cost, so it uses the fastest recorder the interpreter has
(measured in `bench/mutation_tracers.py`): `_MONITORING` on 3.12+ (each line reported once per phase
of a test, all other code disabled after its first call), coverage.py's C tracer on 3.10-3.11 when
the interpreter has coverage, else a `sys.settrace` tracer.
`ASSAY_MUTATION_TRACER=monitoring|coverage|settrace` picks one.

Every recorder has the same shape: `start()`, `switch(key)` at each phase of each test (lines
recorded until the next switch belong to `key`), `stop()`, then `collect()` -> {key: {(rel, line)}}.
"""

from __future__ import annotations

import os
import sys
import threading
import types
from collections.abc import Callable
from typing import Any

from .probes import ProbeRecorder
from .shapes import Functions
from .state import fingerprint

# Python 3.12+ only (SetTracer is used only where it exists)
_MONITORING: Any = getattr(sys, "monitoring", None)  # noqa: B009
Trace = Callable[[types.FrameType, str, Any], Any]  # a `sys.settrace` function


def make_tracer(targets: dict[str, str], functions: Functions | None = None) -> Recorder:
    """The fastest available recorder for `targets` (realpath -> project-relative path). Call it in
    the child that runs the baseline: the probe recorder rewrites the live functions."""
    wanted = os.environ.get("ASSAY_MUTATION_TRACER", "")
    if wanted in ("", "probes"):
        probes = ProbeRecorder(targets)
        if probes.instrument(functions):
            return probes
        if wanted:
            raise RuntimeError("a live function of the targets cannot take probed code")
    if wanted in ("", "monitoring") and hasattr(sys, "monitoring"):
        return MonitorTracer(targets)
    if wanted in ("", "coverage"):
        try:
            return CoverageTracer(targets)
        except Exception:  # noqa: BLE001 - no coverage (or no C tracer) in the user's interpreter
            if wanted:
                raise
    return SetTracer(targets)


class _Files:
    def __init__(self, targets: dict[str, str]) -> None:
        self.targets = targets
        self.names: dict[str, str | None] = {}

    def rel(self, filename: str) -> str | None:
        if filename in self.names:
            return self.names[filename]
        rel = self.names[filename] = self.targets.get(os.path.realpath(filename))
        return rel


class SetTracer(_Files):
    """`sys.settrace`: a Python call per function call anywhere, per line in the
    targets (slowest)."""

    name = "settrace"

    def __init__(self, targets: dict[str, str]) -> None:
        super().__init__(targets)
        self.data: dict = {}
        self.lines: set = set()

    def _global(self, frame: types.FrameType, event: str, arg: Any) -> Trace | None:
        rel = self.rel(frame.f_code.co_filename)
        if rel is None:
            return None

        def local(frame: types.FrameType, event: str, arg: Any) -> Trace:
            if event == "line":
                self.lines.add((rel, frame.f_lineno))
            return local

        return local(frame, event, arg)

    def switch(self, key: object) -> None:
        self.lines = self.data.setdefault(key, set())

    def start(self) -> None:
        threading.settrace(self._global)
        sys.settrace(self._global)

    def stop(self) -> None:
        sys.settrace(None)
        threading.settrace(None)

    def collect(self) -> dict:
        return self.data


class MonitorTracer(_Files):
    """`_MONITORING` (3.12+): code outside the targets is disabled at its first start; a target line
    reports once, then is disabled until the next `switch` re-arms every event."""

    name = "monitoring"

    def __init__(self, targets: dict[str, str]) -> None:
        super().__init__(targets)
        mon = _MONITORING
        self.tool = next(i for i in range(6) if i != mon.COVERAGE_ID and mon.get_tool(i) is None)
        self.data: dict = {}
        self.lines: set = set()
        self.armed: set = set()

    def _start(self, code: types.CodeType, offset: int) -> Any:
        mon = _MONITORING
        rel = self.rel(code.co_filename)
        if rel is None:
            return mon.DISABLE
        if code not in self.armed:
            self.armed.add(code)
            mon.set_local_events(self.tool, code, mon.events.LINE)
        # its lines stay armed; starts of this code need no callback until re-armed
        return mon.DISABLE

    def _line(self, code: types.CodeType, line: int) -> Any:
        self.lines.add((self.names[code.co_filename], line))
        return _MONITORING.DISABLE

    def switch(self, key: object) -> None:
        self.lines = self.data.setdefault(key, set())
        _MONITORING.restart_events()

    def start(self) -> None:
        mon = _MONITORING
        mon.use_tool_id(self.tool, "assay-mutation")
        mon.register_callback(self.tool, mon.events.PY_START, self._start)
        mon.register_callback(self.tool, mon.events.PY_RESUME, self._start)
        mon.register_callback(self.tool, mon.events.LINE, self._line)
        mon.set_events(self.tool, mon.events.PY_START | mon.events.PY_RESUME)

    def stop(self) -> None:
        mon = _MONITORING
        mon.set_events(self.tool, 0)
        for code in self.armed:
            mon.set_local_events(self.tool, code, 0)
        mon.free_tool_id(self.tool)

    def collect(self) -> dict:
        return self.data


class CoverageTracer:
    """coverage.py's C tracer with one dynamic context per phase of each test."""

    name = "coverage"

    def __init__(self, targets: dict[str, str]) -> None:
        import coverage

        # only the C tracer is fast enough to be worth it
        from coverage.tracer import CTracer  # noqa: F401

        self.targets = targets
        self.cov = coverage.Coverage(
            data_file=None, include=list(targets), config_file=False, branch=False
        )
        self.keys: dict[str, object] = {}

    def switch(self, key: object) -> None:
        name = str(len(self.keys))
        self.keys[name] = key
        self.cov.switch_context(name)

    def start(self) -> None:
        self.cov.start()

    def stop(self) -> None:
        self.cov.stop()

    def collect(self) -> dict:
        data = self.cov.get_data()
        out: dict = {key: set() for key in self.keys.values()}
        for path in data.measured_files():
            rel = self.targets.get(os.path.realpath(path))
            if rel is None:
                continue
            for line, contexts in data.contexts_by_lineno(path).items():
                for context in contexts:
                    key = self.keys.get(context)
                    if key is not None:
                        out[key].add((rel, line))
        return out


class CollectTracer(_Files):
    """`sys.settrace` while pytest imports and collects: lines of the targets that run, and those
    run by a call that did not come from the target's own module body (a test module calling it
    at import): what those lines computed may sit anywhere, so re-running the module body cannot
    redo it.

    Its cost is a Python call per function call anywhere while collecting (pytest, importlib),
    so the frames it needs are told apart by one dict look-up per file, and pytest's assertion
    rewriting of test modules (its own AST walk, no code of the scratch copy runs) is left
    untraced: 43% of a fork's collection CPU on toolz' test_functoolz.py, with the same facts."""

    def __init__(self, targets: dict[str, str], scratch_root: str = "") -> None:
        super().__init__(targets)
        self.scratch = os.path.realpath(scratch_root) + os.sep if scratch_root else None
        # filename -> _INSIDE (in the scratch copy) | _TARGET, 0: neither
        self.kinds: dict[str, int] = {}
        # code objects of the project and its tests that ran while collecting
        self.codes: set = set()
        self.lines: set = set()
        self.foreign: set = set()
        # rel -> fingerprint of the module's globals when its body returned
        self.bodies: dict[str, dict] = {}
        # the same for the other modules of the scratch copy, by real path
        self.others: dict[str, dict] = {}
        # rel -> real paths of the modules whose import called it (None: unknown)
        self.callers: dict[str, set] = {}
        # real path -> its body as it ran (asserts rewritten)
        self.module_codes: dict[str, types.CodeType] = {}
        # (rel, line) of a function run by its module's own body -> the body's lines whose calls
        # ran it
        self.sites: dict[tuple[str, int], set[int]] = {}
        self._rewrite: tuple[Any, Any] | None = None  # (pytest's rewrite module, its function)

    def _kind(self, filename: str) -> int:
        inside = self.scratch is not None and os.path.realpath(filename).startswith(self.scratch)
        kind = self.kinds[filename] = (_INSIDE if inside else 0) | (
            _TARGET if self.rel(filename) is not None else 0
        )
        return kind

    def _caller(self, frame: types.FrameType) -> str | None:
        """The module whose body (being imported) made this call, or None (a hook, a fixture,
        a thread)."""
        f = frame.f_back
        while f is not None:
            if f.f_code.co_name == "<module>":
                return os.path.realpath(f.f_code.co_filename)
            f = f.f_back
        return None

    def _own(self, frame: types.FrameType, rel: str) -> types.FrameType | None:
        """The frame of `rel`'s own module body that this call came from, if any."""
        f: types.FrameType | None = frame
        while f is not None:
            if f.f_code.co_name == "<module>" and self.rel(f.f_code.co_filename) == rel:
                return f
            f = f.f_back
        return None

    def _global(self, frame: types.FrameType, event: str, arg: Any) -> Trace | None:
        code = frame.f_code
        filename = code.co_filename
        kind = self.kinds.get(filename)
        if kind is None:
            kind = self._kind(filename)
        if not kind:
            return None
        if kind & _INSIDE:
            self.codes.add(code)
        if not kind & _TARGET:
            if code.co_name != "<module>":
                return None
            frame.f_trace_lines = False  # only its return matters
            real = os.path.realpath(filename)
            self.module_codes[real] = code

            def returned(frame: types.FrameType, event: str, arg: Any) -> Trace:
                if event == "return":
                    self.others[real] = fingerprint(frame.f_globals)
                return returned

            return returned
        rel = self.names[filename]
        assert rel is not None
        body = code.co_name == "<module>"
        own = None if body else self._own(frame, rel)
        sink = self.lines if body or own is not None else self.foreign
        if sink is self.foreign:
            self.callers.setdefault(rel, set()).add(self._caller(frame))
        site = None if own is None else own.f_lineno  # the body's statement making this call

        def local(frame: types.FrameType, event: str, arg: Any) -> Trace:
            if event == "line":
                sink.add((rel, frame.f_lineno))
                if site is not None:
                    self.sites.setdefault((rel, frame.f_lineno), set()).add(site)
            elif event == "return" and body:
                self.bodies[rel] = fingerprint(frame.f_globals)
            return local

        return local(frame, event, arg)

    def start(self) -> None:
        self._spare_rewrite()
        threading.settrace(self._global)
        sys.settrace(self._global)

    def stop(self) -> None:
        sys.settrace(None)
        threading.settrace(None)
        if self._rewrite is not None:
            module, rewrite_test = self._rewrite
            module._rewrite_test = rewrite_test
            self._rewrite = None

    def _spare_rewrite(self) -> None:
        """pytest's rewrite of a test module runs untraced (on a pytest without it: traced)."""
        try:
            from _pytest.assertion import rewrite
        except ImportError:
            return
        rewrite_test = getattr(rewrite, "_rewrite_test", None)
        if rewrite_test is None:
            return
        tracer = self._global

        def untraced(*args: Any, **kwargs: Any) -> Any:
            if sys.gettrace() != tracer:  # another thread's, or after `stop`
                return rewrite_test(*args, **kwargs)
            sys.settrace(None)
            try:
                return rewrite_test(*args, **kwargs)
            finally:
                sys.settrace(tracer)

        self._rewrite = (rewrite, rewrite_test)
        rewrite._rewrite_test = untraced


_INSIDE, _TARGET = 1, 2  # kinds of file (bits)


Recorder = ProbeRecorder | MonitorTracer | CoverageTracer | SetTracer  # what `make_tracer` picks
