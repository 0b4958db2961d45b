"""Gate 3's plan in forks of one collected session: each run of the file, and each test alone, in a
fork of its own (the state a fresh process has after collection).

Where the tests mostly wait (sleeps, retries with back-off) and nothing of the test file or its
conftests reaches outside its process (files, sockets, subprocesses: `shares_nothing`), several
forks run at once, as many as fit on one core (a fork that was on the CPU, or ready and waiting for
one, a third of its wall time: 3; at most `WIDTH`; forks quicker than `MIN_WAIT_S`: one at a
time). The waits overlap instead of adding up, and the runs are the same runs: each fork starts
from the same session, results are read in plan order, and the plan still ends at the first step a
test did not pass in (forks started after it are killed, their results dropped). Each overlapping
fork gets capture files of its own, as a fresh process has.

Standalone (stdlib + pytest): runs under the interpreter of the user's tests.
"""

from __future__ import annotations

import ast
import contextlib
import json
import os
import random
import signal
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .stability_plan import RISKY_MODULES, imported

if TYPE_CHECKING:
    import pytest

    from .pytest_runner import Recorder

WIDTH = 4
MIN_WAIT_S = 0.05  # forks quicker than this run one at a time, whatever they waited for
# what lets one process's tests see another's: files, the network, other processes (threads,
# asyncio and monkeypatch stay inside the fork)
OUTSIDE_MODULES = (RISKY_MODULES - {"threading", "asyncio"}) | {
    "os",
    "pathlib",
    "io",
    "glob",
    "shelve",
    "dbm",
    "fcntl",
    "mmap",
}
OUTSIDE_NAMES = {"open", "tmp_path", "tmpdir", "tmp_path_factory", "Path", "FileHandler"}


def fresh_draws() -> None:
    """In a forked run: numpy's global generator draws anew, as `random`'s does by itself after a
    fork (CPython reseeds it). Else every rerun repeats the draws of the first, and a test that
    hangs on unseeded numpy randomness passes or fails in all of them alike."""
    numpy = sys.modules.get("numpy")
    if numpy is not None:
        # a numpy without the legacy API: its state is left as it is
        with contextlib.suppress(Exception):
            numpy.random.seed(int.from_bytes(os.urandom(4), "little"))


def _reaches_outside(source: str) -> bool:
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return True
    for node in ast.walk(tree):
        if isinstance(node, ast.Import | ast.ImportFrom):
            if any(n.split(".")[0] in OUTSIDE_MODULES for n in imported(node)):
                return True
        elif {getattr(node, "id", None), getattr(node, "arg", None)} & OUTSIDE_NAMES:
            return True
    return False


def shares_nothing(paths: list[str], scratch_root: str) -> bool:
    """No test file of `paths` nor a conftest between it and `scratch_root` imports a module or
    names a fixture that reaches files, sockets or processes: concurrent forks cannot meet."""
    root = os.path.abspath(scratch_root)
    sources = []
    for path in paths:
        path = os.path.abspath(os.path.join(root, path.split("::", 1)[0]))
        sources.append(path)
        folder = os.path.dirname(path)
        while folder.startswith(root):
            sources.append(os.path.join(folder, "conftest.py"))
            if folder == root:
                break
            folder = os.path.dirname(folder)
    for source in sources:
        try:
            with open(source, encoding="utf-8-sig") as fh:
                text = fh.read()
        except FileNotFoundError:
            continue
        except (OSError, UnicodeDecodeError):
            return False
        if _reaches_outside(text):
            return False
    return True


@dataclass
class Fork:
    """A forked run in flight; `reap` fills in how it ended."""

    pid: int
    started: float
    status: int | None = None  # None: outlived its time and was killed
    cpu_s: float = 0.0
    wall_s: float = 0.0
    queued_s: float = 0.0  # ready to run, waiting for a CPU (a busy machine): no wait of its own


def fork(body: Callable[[], None]) -> Fork:
    pid = os.fork()
    if pid == 0:
        try:
            body()
        finally:
            os._exit(0)
    return Fork(pid, time.monotonic())


def reap(child: Fork, timeout: float) -> Fork:
    """Wait for `child` (killed when it outlives `timeout` from its start), with its CPU time."""
    deadline = child.started + timeout
    while True:
        if os.waitid(os.P_PID, child.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None:
            child.queued_s = _queued_s(child.pid)  # read before the child is reaped
            _, status, usage = os.wait4(child.pid, 0)
            child.status, child.cpu_s = status, usage.ru_utime + usage.ru_stime
            child.wall_s = time.monotonic() - child.started
            return child
        if time.monotonic() >= deadline:
            kill(child)
            return child
        time.sleep(0.002)


def _queued_s(pid: int) -> float:
    """Seconds the process spent ready to run, waiting for a CPU (0.0 where Linux does not say)."""
    try:
        with open(f"/proc/{pid}/schedstat") as fh:
            return int(fh.read().split()[1]) / 1e9
    except (OSError, ValueError, IndexError):
        return 0.0


def kill(child: Fork) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.kill(child.pid, signal.SIGKILL)
    with contextlib.suppress(ChildProcessError):
        os.waitpid(child.pid, 0)


class Steps:
    """A plan's steps for the recorder `rec` of a collected session, into `rec.steps`."""

    def __init__(self, rec: Recorder, items: list[pytest.Item], ids: list[str]) -> None:
        self.rec, self.items, self.ids = rec, items, ids
        self.width = 1  # forks at once: more once the first ones mostly waited
        self.may_overlap = shares_nothing(rec.args.paths, rec.args.scratch_root)
        self._parts = 0

    def run(self, steps: list[dict]) -> None:
        pending: list[tuple[int, dict, Fork]] = []  # runs of the whole file in flight, in order
        i = 0
        while i < len(steps) or pending:
            while i < len(steps) and not steps[i].get("isolate") and len(pending) < self.width:
                pending.append((i, steps[i], self._start(i, steps[i])))
                i += 1
            if pending:
                index, step, child = pending.pop(0)
                result = self._finish(index, self._reaped(child))
            else:
                step, result = steps[i], self.alone(steps[i])
                i += 1
            self.rec.steps.append(result)
            # a step marked `last` in which a test of `ids` did not pass ends the plan: its file
            # is flaky already, the runs after it would only add to the count
            tests = result["tests"]
            if step.get("last") and (
                result.get("crash")
                or any(tests[t]["outcome"] != "passed" for t in self.ids if t in tests)
            ):
                for *_, later in pending:
                    kill(later)
                return

    def _reaped(self, child: Fork) -> Fork:
        reap(child, self.rec.args.test_timeout)
        if not self.may_overlap or child.status is None:
            return child
        if child.wall_s < MIN_WAIT_S:  # a fork's own cost: nothing worth overlapping
            self.width = 1
        else:  # as many at once as fit on one core: their CPU adds up to at most the time it
            # waited of its own (sleeps, timeouts), not for a CPU of a busy machine
            busy = child.cpu_s + child.queued_s
            self.width = max(1, int(child.wall_s / max(busy, child.wall_s / WIDTH)))
        return child

    def _own_capture(self) -> None:
        """An overlapping fork writes its captured output to files of its own."""
        if self.width > 1 and self.items:
            capture = self.items[0].config.pluginmanager.getplugin("capturemanager")
            if capture is not None:
                capture.stop_global_capturing()
                capture.start_global_capturing()
                capture.suspend_global_capture()

    def _start(self, index: int, step: dict) -> Fork:
        """One run of the file (in the step's order) in a fork."""
        items = list(self.items)
        if step.get("order") == "random":
            random.Random(step.get("seed", 0)).shuffle(items)
        elif step.get("order") == "reverse":
            items.reverse()
        rec, out = self.rec, self.rec.args.out

        def body() -> None:
            rec.tests = {}
            fresh_draws()
            self._own_capture()
            # close the parent's handle, not drop it: a file freed by the GC warns
            # (ResourceWarning), which a project with `filterwarnings = error` sees as an error
            # in whichever test is running
            rec.progress.close()
            rec.progress = open(f"{out}.step{index}.progress", "w", buffering=1)  # noqa: SIM115
            for i, item in enumerate(items):
                nextitem = items[i + 1] if i + 1 < len(items) else None
                item.ihook.pytest_runtest_protocol(item=item, nextitem=nextitem)
            with open(f"{out}.step{index}", "w") as fh:
                json.dump(rec.tests, fh)

        return fork(body)

    def _finish(self, index: int, child: Fork) -> dict:
        out = self.rec.args.out
        with contextlib.suppress(OSError, ValueError), open(f"{out}.step{index}") as fh:
            return {"tests": json.load(fh)}
        try:
            with open(f"{out}.step{index}.progress") as fh:
                started = [line.strip() for line in fh if line.strip()]
        except OSError:
            started = []
        why = (
            f"timed out after {self.rec.args.test_timeout:g} s"
            if child.status is None
            else f"the run ended abnormally (wait status {child.status})"
        )
        return {"tests": {}, "crash": why, "running": started[-1] if started else None}

    def alone(self, step: dict) -> dict:
        """Each wanted test (the step's own choice, else every one of `ids`) in a fork of its own,
        as many at once as the runs so far allow."""
        wanted = set(self.ids if step.get("ids") is None else step["ids"])
        items = [item for item in self.items if item.nodeid in wanted]
        results: dict[str, dict] = {}
        pending: list[tuple[pytest.Item, str, Fork]] = []
        for n, item in enumerate(items):
            pending.append((item, *self._start_alone(item)))
            while pending and (len(pending) >= self.width or n == len(items) - 1):
                done, part, child = pending.pop(0)
                results[done.nodeid] = self._finish_alone(part, self._reaped(child))
        return {"tests": results}

    def _start_alone(self, item: pytest.Item) -> tuple[str, Fork]:
        self._parts += 1
        part, rec = f"{self.rec.args.out}.part{self._parts}", self.rec

        def body() -> None:
            rec.tests = {}
            fresh_draws()
            self._own_capture()
            item.ihook.pytest_runtest_protocol(item=item, nextitem=None)
            with open(part, "w") as fh:
                json.dump(rec.tests.get(item.nodeid), fh)

        return part, fork(body)

    def _finish_alone(self, part: str, child: Fork) -> dict:
        timeout = self.rec.args.test_timeout
        if child.status is None:
            return {
                "outcome": "timeout",
                "duration": timeout,
                "message": f"timed out after {timeout:g} s when run alone",
            }
        result = None
        with contextlib.suppress(OSError, ValueError):
            with open(part) as fh:
                result = json.load(fh)
            os.unlink(part)
        return result or {
            "outcome": "error",
            "duration": 0.0,
            "message": f"crashed when run alone (wait status {child.status})",
        }
