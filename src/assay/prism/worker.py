"""One (task, member, suite) run, as executed on a worker: a local process or a Dask worker.

`run_job` takes a picklable `RunJob` (everything but `original/` travels with it, so a Dask worker
needs only the benchmark's tasks at the same path) and returns a JSON-able record. The member's
tree is `original/` copied into a scratch workspace with the member's overlays and the suite
written over it; the task directory is only read. A worker keeps one pristine copy of each task's
`original/` and `reset()`s it between members instead of copying the tree again (`reuse=False`
copies afresh every time).
"""

from __future__ import annotations

import atexit
import os
import socket
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from assay.config import SandboxConfig, Settings
from assay.errors import AssayError
from assay.execution.runner import Outcome, TestRun
from assay.execution.workspace import Workspace
from assay.languages import LANGUAGES
from assay.prism import pycov
from assay.prism.command import CommandPlan, read_junit, shell_command
from assay.prism.task import walk_files
from assay.project import Project
from assay.sandbox import Profile, Sandbox

MAX_MESSAGE = 240
KEEP_COPIES = 8  # pristine copies a worker keeps (least recently used go first)
NOT_RUN = {Outcome.SKIPPED.value}
GOOD = {Outcome.PASSED.value, Outcome.SKIPPED.value, Outcome.XFAILED.value}


@dataclass(frozen=True)
class RunJob:
    task_dir: str
    language: str
    member: str
    overlays: dict[str, bytes | None]
    suite: dict[str, bytes]
    suite_dest: str
    plan: CommandPlan
    timeout_s: float
    python: str
    sandbox: dict[str, Any] = field(default_factory=dict)  # SandboxConfig fields
    pytest_args: tuple[str, ...] = ()
    source_roots: tuple[str, ...] = (".",)
    coverage: tuple[str, ...] = ()  # files to measure (Python, runner plans only)
    reuse: bool = True


class WorkspacePool:
    """Pristine scratch copies of `original/` trees, one per job at a time, thread-safe
    (Dask threads)."""

    def __init__(self) -> None:
        self._free: OrderedDict[tuple, list[Workspace]] = OrderedDict()
        self._lock = threading.Lock()
        self._registered = False

    def acquire(self, root: Path, profile: Profile, reuse: bool) -> tuple[Workspace, str]:
        key = (str(root), profile.links, profile.keep)
        with self._lock:
            if not self._registered:
                self._register()
            free = self._free.get(key)
            if reuse and free:
                self._free.move_to_end(key)
                return free.pop(), "reset"
        return Workspace(root, links=profile.links, keep=profile.keep), "copy"

    def release(self, ws: Workspace, profile: Profile, reuse: bool) -> None:
        if not reuse:
            ws.close()
            return
        try:
            ws.reset()
        # a copy that cannot be reset is dropped, never reused dirty
        except Exception:  # noqa: BLE001
            ws.close()
            return
        key = (str(ws.root), profile.links, profile.keep)
        with self._lock:
            self._free.setdefault(key, []).append(ws)
            self._free.move_to_end(key)
            while len(self._free) > KEEP_COPIES:
                for old in self._free.popitem(last=False)[1]:
                    old.close()

    def close_all(self) -> None:
        with self._lock:
            for copies in self._free.values():
                for ws in copies:
                    ws.close()
            self._free.clear()

    def _register(self) -> None:
        """Copies go when the process ends: atexit for plain processes, multiprocessing's
        finalizers for pool workers (which skip atexit); a killed process's copies are swept by the
        next run (`sweep_stale`)."""
        from multiprocessing import util

        atexit.register(self.close_all)
        util.Finalize(None, self.close_all, exitpriority=10)
        self._registered = True


POOL = WorkspacePool()


def run_job(job: RunJob) -> dict[str, Any]:
    """Run one suite on one member; a record with `accepted`, `reason`, `tests`, ... or `error`."""
    start = time.monotonic()
    host = socket.gethostname()
    original = Path(job.task_dir) / "original"
    lang = LANGUAGES.get(job.language)
    if lang is None:
        return {"error": f"no runner for language '{job.language}' on {host}"}
    if not original.is_dir():
        return {"error": f"{original} is not readable on worker {host}"}
    ws, how = POOL.acquire(original, lang.profile, job.reuse)
    try:
        record = _run_in(ws, job)
    except AssayError as err:
        record = {"error": str(err)}
    finally:
        POOL.release(ws, lang.profile, job.reuse)
    record.update(
        duration_s=round(time.monotonic() - start, 3), workspace=how, host=host, pid=os.getpid()
    )
    return record


def _run_in(ws: Workspace, job: RunJob) -> dict[str, Any]:
    ws.apply(job.overlays)
    dest = ws.path(job.suite_dest)
    if dest.is_dir():
        ws.apply({f"{job.suite_dest}/{rel}": None for rel in walk_files(dest)})
    elif dest.exists():
        ws.apply({job.suite_dest: None})
    ws.apply({f"{job.suite_dest}/{rel}": data for rel, data in job.suite.items()})
    extra: list[str] = []
    data_file = ws.run_dir / "prism.coverage"
    measured = {rel: os.path.realpath(ws.path(rel)) for rel in job.coverage}
    if measured:
        ws.apply(
            {
                f"{pycov.PLUGIN_MODULE}.py": pycov.plugin_source(
                    str(data_file), sorted(measured.values())
                )
            }
        )
        extra = ["-p", pycov.PLUGIN_MODULE]
    config = SandboxConfig(**{**job.sandbox, "timeout_s": job.timeout_s})
    sandbox = Sandbox(config, protect=Path(job.task_dir))
    by_runner = job.plan.kind == "runner"
    record = (
        _by_runner(ws, job, sandbox, config, extra) if by_runner else _by_shell(ws, job, sandbox)
    )
    if measured:
        record["coverage"] = pycov.read_data(data_file, measured)
    return record


def _short(test_id: str, dest: str) -> str:
    return test_id[len(dest) + 1 :] if test_id.startswith(dest + "/") else test_id


def _first_line(text: str) -> str:
    line = next((s.strip() for s in text.splitlines() if s.strip()), "")
    return line if len(line) <= MAX_MESSAGE else line[: MAX_MESSAGE - 1] + "…"


def _by_runner(
    ws: Workspace, job: RunJob, sandbox: Sandbox, config: SandboxConfig, extra: list[str]
) -> dict:
    lang = LANGUAGES[job.language]
    settings = Settings.model_validate({"cache": False})
    settings.sandbox = config
    settings.python.interpreter = job.python
    settings.python.pytest_args = [*job.pytest_args, *job.plan.pytest_args, *extra]
    project = Project(root=ws.root, source_roots=list(job.source_roots))
    if job.plan.files == "suite":
        files = [job.suite_dest]
    else:
        files = [f"{job.suite_dest}/{rel}" for rel in sorted(job.suite) if lang.is_test_file(rel)]
        if not files:
            return {
                "accepted": False,
                "reason": "the suite has no test files",
                "tests": {},
                "ran": 0,
            }
    run = lang.runner(sandbox, project, settings).run(ws, files)
    return _record(run, job.suite_dest)


def _record(run: TestRun, dest: str) -> dict[str, Any]:
    tests = {_short(k, dest): r.outcome.value for k, r in run.tests.items()}
    messages = {
        _short(k, dest): _first_line(r.message)
        for k, r in run.tests.items()
        if r.outcome.value not in GOOD and r.message
    }
    ran = sum(1 for v in tests.values() if v not in NOT_RUN)
    bad = [k for k, v in tests.items() if v not in GOOD]
    if run.crash is not None:
        reason = _first_line(run.crash) + (
            f" (in {_short(run.running, dest)})" if run.running else ""
        )
    elif run.errors:
        e = run.errors[0]
        reason = f"collection error in {_short(e.where, dest)}: {_first_line(e.message)}"
    elif bad:
        reason = f"{len(bad)} of {len(tests)} tests failed: {', '.join(bad[:3])}" + (
            " …" if len(bad) > 3 else ""
        )
    elif ran == 0:
        reason = "no tests ran"
    elif run.exit_status != 0:
        reason = f"exit status {run.exit_status}"
    else:
        reason = ""
    accepted = run.crash is None and not run.errors and run.exit_status == 0 and ran > 0
    return {
        "accepted": accepted,
        "reason": reason,
        "tests": tests,
        "messages": messages,
        "ran": ran,
        "exit_status": run.exit_status,
    }


def _by_shell(ws: Workspace, job: RunJob, sandbox: Sandbox) -> dict[str, Any]:
    lang = LANGUAGES[job.language]
    junit = ws.run_dir / "prism-junit.xml"
    env = sandbox.env_for(ws.run_dir / "home", profile=lang.profile, cache=ws.cache_dir)
    env["PATH"] = os.path.dirname(job.python) + os.pathsep + env.get("PATH", "")
    if job.language == "python":
        env["PYTHONPATH"] = os.pathsep.join(str(ws.project / r) for r in job.source_roots)
    result = sandbox.run(
        ["sh", "-c", shell_command(job.plan, job.suite_dest, junit)],
        cwd=ws.project,
        env=env,
        timeout=job.timeout_s,
        profile=lang.profile,
    )
    found = read_junit(junit)
    tests = {_short(k, job.suite_dest): v for k, v in (found.tests if found else {}).items()}
    messages = {
        _short(k, job.suite_dest): _first_line(v)
        for k, v in (found.messages if found else {}).items()
    }
    ran = None if found is None else sum(1 for v in tests.values() if v not in NOT_RUN)
    bad = [k for k, v in tests.items() if v not in GOOD]
    if result.timed_out:
        reason = f"timed out after {job.timeout_s:g} s"
    elif result.limit_hit:
        reason = result.limit_hit
    elif bad:
        reason = f"{len(bad)} of {len(tests)} tests failed: {', '.join(bad[:3])}" + (
            " …" if len(bad) > 3 else ""
        )
    elif result.returncode != 0:
        tail = _first_line("\n".join((result.stderr or result.stdout).strip().splitlines()[-1:]))
        reason = f"exit status {result.returncode}" + (f": {tail}" if tail else "")
    elif ran == 0:
        reason = "no tests ran"
    else:
        reason = ""
    accepted = not result.timed_out and result.returncode == 0 and (ran is None or ran > 0)
    return {
        "accepted": accepted,
        "reason": reason,
        "tests": tests,
        "messages": messages,
        "ran": ran,
        "exit_status": result.returncode,
    }
