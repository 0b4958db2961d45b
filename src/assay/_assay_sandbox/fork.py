"""Forked children that report JSON lines over a pipe while they run, then one result.

A fork shares the parent's collected session and imported project: no child pays for imports or
collection. Children die with the worker and write nothing to its stdout/stderr. A child's body gets a
`report(dict)` callable: each call is one line the parent reads at once (e.g. "test X started"), so the
parent can hold a deadline per test and kill a child stuck anywhere, C code included. The last line is
`{"result": ...}` or `{"crash": traceback}`.
"""

from __future__ import annotations

import contextlib
import ctypes
import json
import os
import select
import signal
import time
import traceback

RETRY_FACTOR = 4.0  # a child that timed out with nothing to blame runs once more with this much more time: a
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
        view = view[os.write(fd, view):]


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
        """Progress lines that arrived (the final line is kept apart), and whether the pipe is at its end."""
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
        """After the end of the pipe: wait for the child; its result, or a crash naming how it died."""
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


def fork(body) -> Child:
    """Fork a child that runs `body(report)`; its return value is the child's result."""
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        code = 0
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
        os._exit(code)
    os.close(w)
    return Child(pid, r)


def watch(children: list[Child], deadline_of, on_line, first_only: bool = False) -> dict[int, tuple[str, dict]]:
    """Run children to their end (`first_only`: until one ends): `on_line(child, msg)` for each progress
    line; a child past `deadline_of(child)` (monotonic seconds) is killed.
    Returns pid -> ("exited", result) | ("timeout", {}) for the children that ended."""
    out: dict[int, tuple[str, dict]] = {}
    running = {c.fd: c for c in children}
    while running and not (first_only and out):
        nearest = min(deadline_of(c) for c in running.values())
        ready, _, _ = select.select(list(running), [], [], max(0.0, nearest - time.monotonic()))
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
            if now >= deadline_of(child):
                del running[fd]
                child.kill()
                out[child.pid] = ("timeout", {})
    return out


def run_one(body, timeout: float) -> tuple[str, dict, float]:
    """One child to its end: ("exited", result, seconds) or ("timeout", {}, seconds) once killed."""
    child = fork(lambda report: body())
    state, result = watch([child], lambda c: c.started + timeout, lambda c, m: None)[child.pid]
    return state, result, time.monotonic() - child.started
