"""Gate 3's reruns of plain tests without pytest's per-test protocol.

A rerun in a fork of the collected session costs pytest's protocol for every test: its hooks for
set-up, call and teardown through every plugin, three reports, capture switched per phase. For a
fast test that is ~0.5 ms against a call of a few microseconds, and a fast file is rerun up to 50
times. A *plain* test - a `pytest.Function` or a unittest case that carries no mark but
`parametrize`, asks for no fixture that needs the protocol's hooks (`NEEDS_PROTOCOL`: capture, log
capture, tmp_path), is no coroutine function nor `@given`, in a session whose hooks around a test's
run are pytest's own or known to leave such a test alone (`INERT`) - runs here inside the same
set-up state (`SetupState`: the nodes above it and its fixtures set up and torn down as the
protocol does), the same warning filters and the session's capture: a function called as
`pytest_pyfunc_call` calls it, a unittest case by its item's `runtest` (the item is its result
object: what failed is in the item), at ~0.08 ms a test.

Such a run only screens: a test that does not pass in it proves nothing (pytest's protocol may be
what it needs), so the caller runs that step again under the full protocol, and only that run's
outcomes count (`pytest_runner.Recorder.run_steps`). A test that passes here is a pass: the count
of reruns - what catches a test that fails one run in four - stays the same.

Standalone (stdlib + pytest): runs under the interpreter of the user's tests.
"""

from __future__ import annotations

import contextlib
import inspect
import os
import time
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from collections.abc import Iterator

# hooks that run around one test: a plugin or conftest implementing one may change its outcome
AROUND = (
    "pytest_runtest_protocol",
    "pytest_runtest_setup",
    "pytest_runtest_call",
    "pytest_runtest_teardown",
    "pytest_runtest_makereport",
    "pytest_pyfunc_call",
)
# fixtures that work only under the protocol's hooks (capture, log capture, tmp_path's report)
NEEDS_PROTOCOL = frozenset(
    {"capsys", "capsysbinary", "capfd", "capfdbinary", "capteesys", "caplog", "tmp_path", "tmpdir"}
)
# plugins whose hooks there leave a plain test alone (read in their sources): pytest-timeout arms
# a timer (a lean run that hangs ends the step, which then runs under the protocol), anyio runs
# only tests given its `anyio_backend` fixture, hypothesis only `@given` tests (never plain here),
# pytest-cov pauses or labels coverage
INERT = (
    "_pytest.",
    "pytest_timeout",
    "anyio.pytest_plugin",
    "_hypothesis_pytestplugin",
    "pytest_cov.",
)


class Lean:
    """Which items of a session may run lean, and running them (in a forked child only)."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.capman: Any = config.pluginmanager.getplugin("capturemanager")
        self.captured = False  # the session's capture resumed for lean items
        self.warnings = config.pluginmanager.has_plugin("warnings")
        self._ok: dict[str, bool] = {}  # per test file: its conftests' hooks
        self._plain: dict[str, bool] = {}
        self.found = False  # some item of the session is plain
        try:
            from _pytest.runner import SetupState
            from _pytest.warnings import catch_warnings_for_item
        except ImportError:  # an older or newer pytest than this was written against: none lean
            self.usable = False
            return
        self.usable = hasattr(SetupState, "setup") and hasattr(SetupState, "teardown_exact")
        self._catch = catch_warnings_for_item

    def plain(self, item: pytest.Item) -> bool:
        """Whether `item` may run lean."""
        known = self._plain.get(item.nodeid)
        if known is None:
            try:
                known = self.usable and self._is_plain(item)
            except Exception:  # noqa: BLE001 - an item unlike pytest's own: it runs as before
                known = False
            self._plain[item.nodeid] = known
        return known

    def _is_plain(self, item: pytest.Item) -> bool:
        # doctests and plugins' items have their own runs; a unittest case runs as pytest's own
        # item runs it (`runtest`, the item its result object)
        if not isinstance(item, pytest.Function):
            return False
        if type(item) is not pytest.Function and not _unittest(item):
            return False
        if any(m.name != "parametrize" for m in item.iter_markers()):
            return False
        if NEEDS_PROTOCOL.intersection(item._fixtureinfo.names_closure):
            return False
        func = item.obj
        asynchronous = inspect.iscoroutinefunction(func) or inspect.isasyncgenfunction(func)
        if asynchronous and not _unittest(item):  # pytest fails it or a plugin runs it
            return False
        if hasattr(func, "hypothesis"):  # `@given`: its plugin's hooks report and check it
            return False
        return self._hooks_ok(item)

    def _hooks_ok(self, item: pytest.Item) -> bool:
        relay = item.ihook  # one per directory of conftests, made anew at each access
        ok = self._ok.get(str(item.path))
        if ok is None:
            ok = self._ok[str(item.path)] = all(
                getattr(impl.function, "__module__", "").startswith(INERT)
                for hook in AROUND
                for impl in getattr(relay, hook).get_hookimpls()
            )
        return ok

    def run(self, item: pytest.Function, nextitem: pytest.Item | None) -> dict:
        """`item` called as pytest would, its outcome as the recorder keeps one: `passed`, or
        `failed` for anything else (an exception, a skip or exit raised, a return value)."""
        if not self.captured and self.capman is not None:
            self.capman.resume_global_capture()
            self.captured = True
        state = item.session._setupstate
        start = time.perf_counter()
        message = ""
        if not item._request:  # run before in this process (as pytest's `runtestprotocol` does)
            item._initrequest()
        try:
            state.setup(item)  # the nodes above it, then its fixtures (`Function.setup`)
            with self._warnings(item), _current(item):
                if _unittest(item):
                    item.runtest()  # failures, errors and skips land in the item (its result)
                    result = None
                    caught = item.__dict__.get("_excinfo")
                    if caught:
                        message = f"{caught[0].typename}: {caught[0].value}"
                else:
                    given = item.funcargs
                    result = item.obj(**{a: given[a] for a in item._fixtureinfo.argnames})
            state.teardown_exact(nextitem)
            if result is not None:
                message = f"returned {type(result).__name__}"
        except BaseException as exc:  # noqa: BLE001 - a skip, exit or interrupt is not a pass
            message = f"{type(exc).__name__}: {exc}"[:500] or type(exc).__name__
            with contextlib.suppress(BaseException):
                state.teardown_exact(nextitem)
        item._request, item.funcargs = False, None  # type: ignore[assignment]
        outcome = "failed" if message else "passed"
        return {"outcome": outcome, "duration": time.perf_counter() - start, "message": message}

    def full(self) -> None:
        """Before an item that runs under pytest's protocol: the capture as the protocol expects."""
        if self.captured:
            self.capman.suspend_global_capture(in_=False)
            self.captured = False

    @contextlib.contextmanager
    def _warnings(self, item: pytest.Item) -> Iterator[None]:
        if not self.warnings:
            yield
            return
        with self._catch(self.config, ihook=item.ihook, when="runtest", item=item):
            yield


def _unittest(item: pytest.Item) -> bool:
    kind = type(item)
    return kind.__name__ == "TestCaseFunction" and kind.__module__ == "_pytest.unittest"


def not_passed(result: dict, ids: list[str]) -> dict[str, str]:
    """The tests of `ids` that did not pass in a step's result, with their messages (a crash: the
    test that was running)."""
    if result.get("crash"):
        return {result.get("running") or "": result["crash"]}
    tests = result["tests"]
    return {t: tests[t]["message"] for t in ids if t in tests and tests[t]["outcome"] != "passed"}


@contextlib.contextmanager
def _current(item: pytest.Item) -> Iterator[None]:
    """PYTEST_CURRENT_TEST, as pytest sets it while a test runs."""
    os.environ["PYTEST_CURRENT_TEST"] = f"{item.nodeid} (call)"
    try:
        yield
    finally:
        os.environ.pop("PYTEST_CURRENT_TEST", None)
