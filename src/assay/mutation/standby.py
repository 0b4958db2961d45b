"""The process behind a file's gate 4: a cold mutation worker of its own, or a fork of the worker
on standby in its scratch workspace (`_assay_sandbox.mutation.standby`), one per workspace for a
whole `verify` run.

A `verify DIR` leases J workspaces for its N files (J: files at once), so it starts J sandboxed
interpreters for gate 4 instead of N (or 2N: a file whose imports reach no function is measured
twice). A worker on standby is started under the environment of its first job and used only for
jobs with the same interpreter and environment; one whose job did not end cleanly (no progress,
cancelled, an error on assay's side) is killed, and the next job starts a new one.
"""

from __future__ import annotations

import contextlib
import errno
import os
import subprocess
import threading
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Protocol

from assay._assay_sandbox import launch
from assay._assay_sandbox.mutation.protocol import StandbyJob
from assay.errors import RunFailed
from assay.execution.workspace import Workspace
from assay.sandbox import Sandbox
from assay.sandbox.view import hand_over

SEND_WAIT_S = 0.005  # between looks for the reader of a job (a worker on standby still starting)


class WorkerRun(Protocol):
    """One gate-4 job's process as the engine watches it."""

    started: bool  # this job started a sandboxed interpreter (not a fork of one on standby)

    def poll(self) -> int | None:
        """The exit code once it ended, else None."""
        ...

    def end(self, clean: bool) -> None:
        """After the last event was read (`clean`) or on any failure: what is left is killed."""
        ...


def cold(
    sandbox: Sandbox, python: str, job: Path, ws: Workspace, env: dict[str, str], log: IO[bytes]
) -> WorkerRun:
    """A mutation worker of its own, ended (its process tree killed) after its job."""
    proc = sandbox.popen(
        launch.argv(python, "mutation", str(job)),
        cwd=ws.project,
        env=env,
        timeout=_cpu_timeout(sandbox),
        stdout=log,
        stderr=log,
    )
    return _Cold(sandbox, proc)


def _cpu_timeout(sandbox: Sandbox) -> float:
    """The wall limit a worker's CPU limit derives from: 10 times the idle limit (4 times the
    sandbox's timeout), as for every mutation worker."""
    return sandbox.config.timeout_s * 4 * 10


class _Cold:
    started = True

    def __init__(self, sandbox: Sandbox, proc: subprocess.Popen[bytes]) -> None:
        self.sandbox = sandbox
        self.proc = proc

    def poll(self) -> int | None:
        return self.proc.poll()

    def end(self, clean: bool) -> None:
        self.sandbox.reap(self.proc)


@dataclass
class _Standby:
    proc: subprocess.Popen[bytes]
    python: str
    env: dict[str, str]
    log: IO[bytes]
    fresh: bool = True  # no job taken yet: the first one counts as having started it


@dataclass
class StandbyWorkers:
    """The workers on standby of one `verify` run, one per scratch workspace; `close()` ends
    them."""

    sandbox: Sandbox
    _by_ws: dict[Path, _Standby] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def run(
        self, python: str, job: Path, ws: Workspace, env: dict[str, str], log: Path
    ) -> WorkerRun:
        """Hand `job` to the workspace's worker on standby, started first when there is none
        for this interpreter and environment (or the one there died before it took the job)."""
        done = job.with_suffix(".exit")
        for _ in range(2):
            with self._lock:
                standby = self._by_ws.get(ws.base)
                if standby is not None and (
                    standby.python != python
                    or standby.env != env
                    or standby.proc.poll() is not None
                ):
                    self._drop(ws.base)
                    standby = None
                if standby is None:
                    standby = self._start(python, ws, env)
                    self._by_ws[ws.base] = standby
                started, standby.fresh = standby.fresh, False
            if self.sandbox.use_unshare:
                _hand_over(ws)
            order = StandbyJob(str(job), str(log), str(done), str(ws.project))
            wait = self.sandbox.config.timeout_s
            if _send(_request_path(ws), order.to_json().encode(), standby.proc, wait):
                return _Forked(self, ws.base, standby, done, started)
            self.drop(ws.base, standby)
        raise RunFailed(f"the mutation worker on standby died twice before it took a job: {job}")

    def running(self, ws: Workspace) -> bool:
        """Whether the workspace has a live worker on standby."""
        with self._lock:
            standby = self._by_ws.get(ws.base)
            return standby is not None and standby.proc.poll() is None

    def prestart(self, python: str, ws: Workspace, env: dict[str, str]) -> None:
        """Start the workspace's worker on standby now, while the gates before gate 4 run on the
        other core: its interpreter start and imports (~0.2 s) are then off a file's critical
        path. A job under another interpreter or environment replaces it, as in `run`."""
        with self._lock:
            if ws.base not in self._by_ws:
                self._by_ws[ws.base] = self._start(python, ws, env)

    def _start(self, python: str, ws: Workspace, env: dict[str, str]) -> _Standby:
        request = _request_path(ws)
        with contextlib.suppress(FileNotFoundError):
            request.unlink()  # a FIFO of an earlier worker (killed as it read)
        os.mkfifo(request, 0o644)  # written by assay, read by the tests' uid
        log = open(ws.base / f"standby-{uuid.uuid4().hex[:8]}.log", "wb")  # noqa: SIM115
        proc = self.sandbox.popen(
            launch.argv(python, "mutation-standby", str(_request_path(ws))),
            cwd=ws.project,
            env=env,
            timeout=_cpu_timeout(self.sandbox),
            stdout=log,
            stderr=log,
        )
        return _Standby(proc, python, dict(env), log)

    def drop(self, base: Path, standby: _Standby) -> None:
        """Kill the workspace's worker on standby (if it is still this one)."""
        with self._lock:
            if self._by_ws.get(base) is standby:
                self._drop(base)

    def _drop(self, base: Path) -> None:
        standby = self._by_ws.pop(base)
        self.sandbox.reap(standby.proc)
        standby.log.close()

    def close(self) -> None:
        with self._lock:
            for base in list(self._by_ws):
                self._drop(base)


class _Forked:
    def __init__(
        self, owner: StandbyWorkers, base: Path, standby: _Standby, done: Path, started: bool
    ) -> None:
        self.owner = owner
        self.base = base
        self.standby = standby
        self.done = done
        self.started = started

    def poll(self) -> int | None:
        try:
            return int(self.done.read_text(encoding="utf-8"))
        except (FileNotFoundError, ValueError):
            pass
        code = self.standby.proc.poll()
        return code  # not None: the worker on standby died, and the job with it

    def end(self, clean: bool) -> None:
        if not clean or not self.done.exists():
            self.owner.drop(self.base, self.standby)


def _request_path(ws: Workspace) -> Path:
    """The FIFO the worker on standby reads its next job from: in the workspace, outside `run/`
    (which a reset empties)."""
    return ws.base / "standby.request"


def _send(fifo: Path, data: bytes, reader: subprocess.Popen[bytes], wait: float) -> bool:
    """Write `data` into `fifo` once its reader has it open (it may still be starting); False
    when the reader died first or did not open it within `wait` seconds."""
    until = time.monotonic() + wait
    while True:
        try:
            fd = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
        except OSError as err:  # ENXIO: nobody reads yet
            if err.errno != errno.ENXIO or reader.poll() is not None or time.monotonic() > until:
                return False
            time.sleep(SEND_WAIT_S)
            continue
        try:
            view = memoryview(data)
            while view:
                try:
                    view = view[os.write(fd, view) :]
                except BlockingIOError:
                    time.sleep(SEND_WAIT_S)
                except BrokenPipeError:
                    return False
            return True
        finally:
            os.close(fd)


def _hand_over(ws: Workspace) -> None:
    """What the sandbox does before each process it starts: the workspace's run and cache
    directories and what assay made in them writable by the tests' uid (`Sandbox.popen`)."""
    tops = [ws.run_dir, ws.cache_dir]
    made = [c for t in tops if t.is_dir() for c in t.iterdir() if not c.is_symlink()]
    way = [p for p in (ws.project, *ws.project.parents) if ws.base in p.parents]
    hand_over(ws.base, *tops, *made, *way)
