"""Forked children that report JSON lines over a pipe while they run, then one result.

A fork shares the parent's collected session and imported project: no child pays for imports or
collection. Children die with the worker and write nothing to its stdout/stderr. A child's body gets
a `report(dict)` callable: each call is one line the parent reads at once (e.g. "test X started"),
so the parent can hold a deadline per test and kill a child stuck anywhere, C code included. The
last line is `{"result": ...}` or `{"crash": traceback}`.
"""

from __future__ import annotations

import contextlib
import ctypes
import json
import math
import os
import select
import signal
import time
import traceback
from collections.abc import Callable
from typing import Any, Protocol

# a child that used less CPU than this share of a core is waiting (sleep, I/O), not working
IDLE_SHARE = 0.25
_TICK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
TICK_S = 1 / _TICK  # the resolution of `cpu_s`
# a child that timed out with nothing to blame runs once more with this much more time: a
RETRY_FACTOR = 4.0
# busy machine slows every child, a real hang still times out


def _die_with_parent() -> None:
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG


def _quiet() -> None:
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    os.dup2(devnull, 2)


def _write(fd: int, data: dict) -> None:
    view = memoryview(json.dumps(data).encode() + b"\n")
    while view:
        view = view[os.write(fd, view) :]


class Body(Protocol):
    """What a forked child runs: `body(report)`, its return value (JSON) the child's result. A
    protocol, not a `Callable`: callers pass lambdas that bind loop variables as defaults
    (`lambda report, m=m: ...`)."""

    def __call__(self, report: Callable[[dict], None], /) -> Any: ...


class Task(Protocol):
    """A body that reports nothing while it runs (`run_one`); a protocol for the same reason
    as `Body`."""

    def __call__(self) -> Any: ...


class Child:
    """A forked child as the parent sees it: its pid, its pipe, the lines read so far."""

    def __init__(self, pid: int, fd: int):
        self.pid = pid
        self.fd = fd
        self.started = time.monotonic()
        self.buffer = b""
        self.final: dict | None = None
        self.status = 0
        self.ended = 0.0

    def feed(self) -> tuple[list[dict], bool]:
        """Progress lines that arrived (the final line is kept apart), and whether the pipe is at
        its end."""
        chunk = os.read(self.fd, 1 << 16)
        self.buffer += chunk
        *lines, self.buffer = self.buffer.split(b"\n")
        out = []
        for line in lines:
            msg = json.loads(line)
            if "result" in msg or "crash" in msg:
                self.final = msg
            else:
                out.append(msg)
        return out, not chunk

    def reap(self) -> dict:
        """After the end of the pipe: wait for the child; its result, or a crash naming how
        it died."""
        os.close(self.fd)
        _, self.status = os.waitpid(self.pid, 0)
        self.ended = time.monotonic()
        if self.final is None:
            return {"crash": f"child died (status {self.status})"}
        return self.final

    def kill(self) -> None:
        with contextlib.suppress(ProcessLookupError):
            os.kill(self.pid, signal.SIGKILL)
        os.waitpid(self.pid, 0)
        os.close(self.fd)


def fork(body: Body) -> Child:
    """Fork a child that runs `body(report)`; its return value is the child's result."""
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        code = 0
        try:
            try:
                os.close(r)
                _die_with_parent()
                _quiet()
                result = {"result": body(lambda msg: _write(w, msg))}
            except BaseException:
                result, code = {"crash": traceback.format_exc()[-1500:]}, 3
            try:
                _write(w, result)
            except (TypeError, ValueError):
                _write(w, {"crash": traceback.format_exc()[-1500:]})
        except BaseException:  # noqa: BLE001 - the parent stopped reading (it dropped this child)
            code = code or 3
        finally:
            # never back into the parent's code: a child whose last write met a closed pipe
            # returned from `fork` and ran on as the worker (`assay mutate` failed at load 30)
            os._exit(code)
    os.close(w)
    return Child(pid, r)


def watch(
    children: list[Child],
    deadline_of: Callable[[Child], float],
    on_line: Callable[[Child, dict], None],
    first_only: bool = False,
    wake: Callable[[], float | None] = lambda: None,
    grace: Callable[[Child], bool] = lambda child: False,
) -> dict[int, tuple[str, dict]]:
    """Run children to their end (`first_only`: until one ends, or until `wake()`, monotonic seconds
    or None, has passed; asked again after each line, which may move it): `on_line(child, msg)` for
    each progress line; a child past `deadline_of(child)` is killed, unless `grace(child)` moved its
    deadline. Returns pid -> ("exited", result) | ("timeout", {}) for the children that ended."""
    out: dict[int, tuple[str, dict]] = {}
    running = {c.fd: c for c in children}
    while running:
        woken = wake() if first_only else None
        nearest = min(
            [deadline_of(c) for c in running.values()] + ([woken] if woken is not None else [])
        )
        wait = None if nearest == math.inf else max(0.0, nearest - time.monotonic())
        ready, _, _ = select.select(list(running), [], [], wait)
        for fd in ready:
            child = running[fd]
            lines, end = child.feed()
            for msg in lines:
                on_line(child, msg)
            if end:
                del running[fd]
                out[child.pid] = ("exited", child.reap())
        now = time.monotonic()
        for fd, child in list(running.items()):
            if now >= deadline_of(child) and not grace(child):
                del running[fd]
                child.kill()
                out[child.pid] = ("timeout", {})
        woken = wake() if first_only else None
        if first_only and (out or (woken is not None and now >= woken)):
            break
    return out


def run_one(body: Task, timeout: float) -> tuple[str, dict, float]:
    """One child to its end: ("exited", result, seconds) or ("timeout", {}, seconds) once killed."""
    child = fork(lambda report: body())
    state, result = watch([child], lambda c: c.started + timeout, lambda c, m: None)[child.pid]
    return state, result, time.monotonic() - child.started


# pid -> this process's own /proc/self/schedstat, opened once (after a fork)
_SCHEDSTAT: dict[int, int] = {}


def waited() -> float:
    """Seconds this process's main thread has been ready to run but waiting for a core (the kernel's
    run queue): time a busy machine took from it, not time it spent. 0.0 where /proc can not say."""
    pid = os.getpid()
    try:
        fd = _SCHEDSTAT.get(pid)
        if fd is None:
            fd = _SCHEDSTAT[pid] = os.open("/proc/self/schedstat", os.O_RDONLY)
        if fd < 0:
            return 0.0
        return int(os.pread(fd, 64, 0).split()[1]) / 1e9
    except (OSError, IndexError, ValueError):
        _SCHEDSTAT[pid] = -1
        return 0.0


def clock() -> float:
    """`perf_counter` less `waited()`: a test's time as on an idle machine (sleeping and I/O still
    count), so that a baseline taken on a busy machine does not inflate deadlines, nor a busy
    machine fake a hang."""
    return time.perf_counter() - waited()


def stopwatch() -> tuple[float, float]:
    """The start of a `took` measure: `clock()` and this process's CPU time."""
    return clock(), time.process_time()


def took(start: tuple[float, float]) -> float:
    """Seconds since `stopwatch()` as on an idle machine: `clock()`'s, never less than the CPU time
    this process used meanwhile. The run-queue wait `clock()` takes out is read from the scheduler's
    own clock, which on a host under heavy load can run ahead of `perf_counter`: a parse test of
    0.17 s measured -0.17 s in a baseline at load 30-40, and its deadline under every mutant went
    negative (23 mutants Timeout that survive)."""
    wall, cpu = start
    return max(clock() - wall, time.process_time() - cpu, 0.0)


def waited_of(pid: int) -> float | None:
    """`waited()` of a child of this process, read from the parent; None where /proc can not say."""
    if cpu_ticks(pid) is None:  # not our child's /proc entry
        return None
    try:
        with open(f"/proc/{pid}/schedstat", "rb") as fh:
            return int(fh.read().split()[1]) / 1e9
    except (OSError, IndexError, ValueError):
        return None


def cpu_ticks(pid: int) -> int | None:
    """CPU time (user + system, clock ticks) a child of this process has used; None where /proc can
    not say (a pid namespace without its own /proc shows other processes under the child's pid: the
    parent differs)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            fields = fh.read().rsplit(b")", 1)[1].split()
        return int(fields[11]) + int(fields[12]) if int(fields[1]) == os.getpid() else None
    except (OSError, IndexError, ValueError):
        return None


def family_ticks(pid: int) -> int | None:
    """CPU ticks of a child of this process and of every process under it: its own, those of the
    children it reaped, those of its live descendants (a test waiting on a subprocess that
    computes is making progress). None where /proc can not say."""
    if cpu_ticks(pid) is None:
        return None
    return _ticks_below(pid, 0)


def _ticks_below(pid: int, depth: int) -> int:
    """utime + stime + cutime + cstime of `pid`, and the same of its live descendants."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            total = sum(int(f) for f in fh.read().rsplit(b")", 1)[1].split()[11:15])
        kids: list[int] = []
        for task in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{task}/children", "rb") as fh:
                kids += [int(k) for k in fh.read().split()]
    except (OSError, ValueError):
        return 0
    return total + (sum(_ticks_below(k, depth + 1) for k in kids) if depth < 8 else 0)


def cpu_s(pid: int) -> float | None:
    """`cpu_ticks` in seconds (of every thread of the child)."""
    ticks = cpu_ticks(pid)
    return None if ticks is None else ticks * TICK_S


def runnable(pid: int) -> bool:
    """Whether a child of this process is running or ready to run, waiting for a core (state R):
    a process that sleeps or blocks is not (S, D). False where /proc can not say."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            fields = fh.read().rsplit(b")", 1)[1].split()
        return fields[0] == b"R" and int(fields[1]) == os.getpid()
    except (OSError, IndexError, ValueError):
        return False


def idle(ticks: int | None, since_ticks: int | None, elapsed_s: float, pid: int = 0) -> bool:
    """Whether a process that used `since_ticks` of CPU `elapsed_s` ago, and `ticks` now, used under
    `IDLE_SHARE` of a core meanwhile (a tick is 10 ms: one may fall in a short window). Given the
    child's `pid`, one that is `runnable` now is not idle: on a busy machine a process that computes
    gets a fraction of a core, and its CPU against the wall clock looks like one that sleeps (the
    run-queue wait `waited_of` reads is counted only once the process runs again: a window's share
    of it is off by up to a scheduling round, more than the window at load 20)."""
    if ticks is None or since_ticks is None or elapsed_s <= 0:
        return False
    if pid and runnable(pid):
        return False
    return ticks - since_ticks <= max(1.0, IDLE_SHARE * elapsed_s * _TICK)
