"""A mutation worker on standby: one sandboxed process per scratch workspace for a whole `verify`
run, that forks a fresh mutation worker for each file's gate 4.

Before, every file's gate 4 started its own sandboxed interpreter and imported pytest and the
worker's modules (about half a second of a cold worker's 1.2 s before it has collected, more
under load); a file that reaches no function is measured twice and paid it twice. The process on
standby pays it once; each job is a fork of it taken exactly where a cold worker's `main(job)`
begins, so a file sees what it saw before: the project is never imported here and no test runs
here (the fork imports, collects and runs the baseline on its own), the random module is reseeded
as a new interpreter's would be, and whatever a file's tests wrote into module state dies with its
fork. A fork that crashes or hangs takes only its own job: assay kills this process then and the
next file gets a new one.

Protocol (the sandbox passes no pipe): assay writes a `StandbyJob` into `request`, a FIFO in the
workspace; this process reads it, forks, waits, kills the fork's process group (what the job left
running), and writes the exit code to the job's `exit` file.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import signal
import sys
import traceback

from .protocol import StandbyJob


def main(request: str) -> int:
    # what a cold worker imports before its job starts: pytest and the worker's own modules
    from .realpaths import remember_loaded
    from .worker import main as work

    remember_loaded()  # inherited by every fork

    while True:
        job = _next(request)
        pid = os.fork()
        if pid == 0:
            _serve(job, work)  # never returns
        _, status = os.waitpid(pid, 0)
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(pid, signal.SIGKILL)
        _write_exit(job.exit, os.waitstatus_to_exitcode(status))


def _next(request: str) -> StandbyJob:
    """The next job: `request` is a FIFO; opening it waits, without waking, until assay writes."""
    while True:
        with open(request, encoding="utf-8") as fh:
            text = fh.read()
        if text:
            return StandbyJob.from_json(text)


def _serve(job: StandbyJob, work: object) -> None:
    """In the fork: become what a cold worker process is at the start of its job, run it, exit
    as the interpreter would."""
    code = 1
    try:
        os.setpgid(0, 0)  # its own group: what it starts is killed with it, never this process
        with contextlib.suppress(OSError, AttributeError):
            import ctypes

            ctypes.CDLL(None).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG: dies with this one
        fd = os.open(job.log, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
        os.dup2(fd, 1)
        os.dup2(fd, 2)
        os.close(fd)
        os.chdir(job.cwd)
        sys.argv = [sys.argv[0], sys.argv[1], "mutation", job.job]
        if "random" in sys.modules:  # a new interpreter seeds it from the OS: so does a fork
            sys.modules["random"].seed()
        code = work(job.job)  # type: ignore[operator]
    except SystemExit as stop:
        code = stop.code if isinstance(stop.code, int) else 1
    except BaseException:
        traceback.print_exc()
        code = 1
    finally:
        with contextlib.suppress(BaseException):
            atexit._run_exitfuncs()
            sys.stdout.flush()
            sys.stderr.flush()
        os._exit(code)


def _write_exit(path: str, code: int) -> None:
    with contextlib.suppress(OSError):  # the run dir was reset: assay gave up on this job
        with open(path + ".tmp", "w", encoding="utf-8") as fh:
            fh.write(str(code))
        os.replace(path + ".tmp", path)
