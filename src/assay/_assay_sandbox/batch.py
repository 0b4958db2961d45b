"""Gates 1-3 of several test files of one directory in one pytest process (`batch` mode).

The session is configured once (interpreter start, pytest and its plugins, the directory's
conftests: what every file of that directory loads alike), then each file runs in a fork taken just
before collection: it collects only its own file and runs as `checked` mode does (gates 1-2, gate
3's plan ahead), into its own result. Each file starts from the state a fresh process of its own
has at that point, without paying for that start again.

What one file's tests leave behind must not reach the next file: after each file the parent looks
at the scratch tree, the scratch HOME and the private /tmp and /dev/shm. Files the tests added to
HOME (pytest's `tmp_path` lives there) are removed; any other trace ends the batch there, and that
file and the ones after it get no result: assay runs them one process each, as without a batch.
So does a file whose fork was killed or timed out. Standalone (stdlib + pytest).
"""

from __future__ import annotations

import atexit
import contextlib
import dataclasses
import json
import os
import shutil
import stat
import sys
import time

import pytest

from . import reserve
from .plan_steps import _fresh_draws, _wait
from .protocol import PytestJob
from .pytest_runner import Recorder, _pytest_args, finish
from .short_ids import ShortIds
from .tree_watch import TreeWatch

SHARED = ("/tmp", "/dev/shm")  # private to the sandbox's run, shared by the forks of one batch
Entries = dict[str, tuple[int, int, int]]


def entries(root: str) -> Entries:
    """Kind, size and mtime of every file, link and directory under `root` (`__pycache__` left
    out)."""
    found: Entries = {}
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if d != "__pycache__"]
        for name in [*dirnames, *filenames]:
            path = os.path.join(dirpath, name)
            with contextlib.suppress(OSError):
                st = os.lstat(path)
                kind = stat.S_IFMT(st.st_mode)
                dir_ = kind == stat.S_IFDIR
                found[path] = (kind, 0, 0) if dir_ else (kind, st.st_size, st.st_mtime_ns)
    return found


def _listing(path: str) -> set[str]:
    try:
        return set(os.listdir(path))
    except OSError:
        return set()


@dataclasses.dataclass
class Traces:
    """What a file's run could leave for the next one, as it was before the first fork."""

    tree: Entries
    home: Entries
    shared: dict[str, set[str]]

    @classmethod
    def take(cls, scratch_root: str, home: str) -> Traces:
        return cls(entries(scratch_root), entries(home), {p: _listing(p) for p in SHARED})

    def left(self, scratch_root: str, home: str) -> str | None:
        """Why the next file would not start from this state (None: it does); files added to HOME
        are removed first, as a fresh process would not see them."""
        if entries(scratch_root) != self.tree:
            return "the tests changed the project's files"
        now = entries(home)
        for path in sorted(set(now) - set(self.home), key=len):
            if os.path.lexists(path):
                if stat.S_ISDIR(now[path][0]):
                    shutil.rmtree(path, ignore_errors=True)
                else:
                    with contextlib.suppress(OSError):
                        os.unlink(path)
        if entries(home) != self.home:
            return "the tests changed files in HOME"
        for path, names in self.shared.items():
            if _listing(path) - names:
                return f"the tests left files in {path}"
        return None


class Batch:
    """pytest plugin of the batch's parent: at collection, one fork per file; the parent waits for
    each, writes `<out>.batch` (`clean`, `why`, `duration_s`) and ends when the files are done."""

    def __init__(self, job: PytestJob, rec: Recorder) -> None:
        self.job = job
        self.rec = rec
        self.child: PytestJob | None = None  # in a fork: the file's own job

    @pytest.hookimpl(tryfirst=True)
    def pytest_collection(self, session: pytest.Session) -> None:
        home = os.environ.get("HOME", "")
        traces = Traces.take(self.job.scratch_root, home)
        for path, out in zip(self.job.paths, self.job.outs, strict=True):
            sys.stdout.flush()
            sys.stderr.flush()
            start = time.monotonic()
            pid = os.fork()
            if pid == 0:
                self._become(session, path, out)
                return  # on to collecting this one file, in the fork
            status = _wait(pid, self.job.test_timeout)
            why = None
            if status is None:
                why = f"timed out after {self.job.test_timeout:g} s"
            elif not os.WIFEXITED(status) or not os.path.exists(out):
                why = f"the run ended abnormally (wait status {status})"
            why = why or traces.left(self.job.scratch_root, home)
            with open(out + ".batch", "w") as fh:
                mark = {"clean": why is None, "why": why, "duration_s": time.monotonic() - start}
                json.dump(mark, fh)
            if why is not None:
                break
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(0)

    def _become(self, session: pytest.Session, path: str, out: str) -> None:
        """This fork is now the `checked` run of `path` alone."""
        reserve.STARTED = time.monotonic()
        _fresh_draws()
        capture = session.config.pluginmanager.getplugin("capturemanager")
        _empty_captures(getattr(capture, "_global_capturing", None))
        self.child = dataclasses.replace(self.job, mode="checked", paths=[path], out=out, outs=[])
        rec = self.rec
        rec.progress.close()
        rec.progress = open(out + ".progress", "a", buffering=1)  # noqa: SIM115
        rec.args = self.child
        rec.collected, rec.errors, rec.tests, rec.steps, rec.reserve = [], [], {}, [], None
        session.config.args = [path]


def _empty_captures(capturing: object) -> None:
    """The session's capture files, emptied for this fork as a fresh process has them: the same
    objects, so what the project bound of `sys.stdout` while the conftests imported it (structlog's
    `from sys import stdout`) stays the stream in use. Restarting the capture closed it. The files
    are shared with the parent (fd capture), which only waits, and each fork empties them first."""
    for name in ("out", "err"):
        tmpfile = getattr(getattr(capturing, name, None), "tmpfile", None)
        if tmpfile is None or getattr(tmpfile, "closed", True):
            continue
        with contextlib.suppress(OSError, ValueError, AttributeError):
            tmpfile.seek(0)
            tmpfile.truncate()


def run(job: PytestJob) -> int:
    """The batch: returns only in the parent when pytest ended before collection (a usage error,
    a conftest that fails to load): no file ran, assay runs each on its own."""
    rec = Recorder(job, job.out + ".progress")
    watch = TreeWatch(job.scratch_root)
    rec.watch = watch
    batch = Batch(job, rec)
    code = int(
        pytest.main(
            _pytest_args(job, [*job.pytest_args, *job.paths]), [ShortIds(), batch, rec, watch]
        )
    )
    if batch.child is None:
        return code
    code = finish(batch.child, rec, watch, code)
    atexit._run_exitfuncs()  # a fresh process runs them at its end (nothing is written after)
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)
