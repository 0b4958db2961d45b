"""Forked children that hand back one JSON result over a pipe.

A fork shares the parent's collected session and imported project: no child pays for imports or
collection. Children die with the worker, write nothing to its stdout/stderr, and report any exception
as `{"crash": traceback}`.
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


def _die_with_parent() -> None:
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG


def _quiet() -> None:
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    os.dup2(devnull, 2)


def fork(body) -> tuple[int, int]:
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


def read_all(fd: int) -> bytes:
    """What an exited child wrote; closes the pipe."""
    chunks = []
    while True:
        chunk = os.read(fd, 1 << 16)
        if not chunk:
            break
        chunks.append(chunk)
    os.close(fd)
    return b"".join(chunks)


def wait(pid: int, r: int, timeout: float) -> tuple[str, dict, float]:
    """Read a child's (possibly large) result while it runs, so that a full pipe never blocks it.

    Returns ("exited", result, seconds) or, past the timeout (the child is killed), ("timeout", {}, seconds).
    """
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
