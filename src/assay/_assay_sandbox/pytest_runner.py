"""Runs pytest inside the sandbox and writes structured results as JSON (never scraped from
the console).

Standalone (stdlib + pytest) because it runs under the interpreter of the user's tests.

Modes:
  collect  - collection only; reports collection errors and tests whose fixtures do not exist
  checked  - collect as `collect` does, then, if nothing is wrong, run the tests as `run` does
             (gates 1 and 2 in one process); given gate 3's settings, a fork of the collected
             session waits meanwhile and then runs gate 3's plan as `plan` does (`Reserve`)
  run      - run the tests (order: file, random with a seed, or reverse)
  isolate  - run each given test id alone, in a fork of the collected session
  plan     - several runs of one collected session, each in a fork (reruns, random order, each
             test alone): the state a fresh process has after collection, without paying for
             start-up and collection again; a step marked `last` ends it when a test failed
  batch    - `checked` for each of several files of one directory, each in a fork of one
             configured session (`batch.py`)

Progress (`<out>.progress`): one line per started test, so that when the run is killed (timeout,
memory) the caller can name the test that was running.
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import signal
import sys
import time
from typing import TYPE_CHECKING, Any

from . import boot
from .lean import Lean, not_passed
from .messages import MAX_MESSAGE, import_errors, short, subprocess_output
from .plugins import quieting_args
from .protocol import PytestJob
from .reserve import Reserve, ahead

if TYPE_CHECKING:
    import pytest

    from .tree_watch import TreeWatch


class Recorder:
    """pytest plugin that records collection and per-test outcomes."""

    def __init__(self, args: PytestJob, progress_path: str) -> None:
        self.args = args
        # lives as long as the run
        self.progress = open(progress_path, "a", buffering=1)  # noqa: SIM115
        self.collected: list[str] = []
        self.errors: list[dict] = []
        self.tests: dict[str, dict] = {}
        self.steps: list[dict] = []  # plan mode: one result per step
        self.reserve: Reserve | None = None  # checked mode: the session kept for gate 3's plan
        self.lean: Lean | None = None  # plan mode: plain tests rerun without pytest's protocol

    def pytest_configure(self, config: pytest.Config) -> None:
        # assay's own pytest plugin is kept out of the sandbox (-p no:assay); its marker is
        # registered here
        config.addinivalue_line(
            "markers", "assay_generated(task=None): test written by assay generate"
        )

    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        if report.failed:
            self.errors.append(
                {"nodeid": report.nodeid, "message": report.longreprtext[-MAX_MESSAGE:]}
            )

    def pytest_collection_modifyitems(
        self, session: pytest.Session, config: pytest.Config, items: list[pytest.Item]
    ) -> None:
        if self.args.order == "random":
            random.Random(self.args.seed).shuffle(items)
        elif self.args.order == "reverse":
            items.reverse()
        if self.args.mode in ("collect", "checked"):
            self._check_fixtures(items)

    def _check_fixtures(self, items: list[pytest.Item]) -> None:
        """A test asking for a fixture nobody defines fails only at setup; report it
        at collection."""
        for item in items:
            info = getattr(item, "_fixtureinfo", None)
            if info is None:
                continue
            missing = [
                n for n in info.names_closure if n != "request" and n not in info.name2fixturedefs
            ]
            if missing:
                self.errors.append(
                    {
                        "nodeid": item.nodeid,
                        "message": f"fixture '{missing[0]}' not found",
                        "fixture": True,
                    }
                )

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        self.collected = [item.nodeid for item in session.items]

    def pytest_runtestloop(self, session: pytest.Session) -> bool | None:
        """In isolate mode each wanted test runs in a fork of the freshly collected session: the
        state a new process has after importing the test module, without paying for interpreter
        start and collection."""
        if self.args.mode == "checked" and self.errors:  # gate 1 rejects: no run
            return True
        if self.args.mode == "checked" and self.args.stability:
            self.reserve = Reserve(self, list(session.items))
        if self.args.mode not in ("isolate", "plan") or session.config.option.collectonly:
            return None
        if self.args.mode == "plan":
            self.run_steps(list(session.items), self.args.steps, self.args.ids)
            return True
        wanted = set(self.args.ids)
        for item in session.items:
            if item.nodeid in wanted:
                self.tests[item.nodeid] = self._forked(item)
        return True

    def run_steps(self, items: list[pytest.Item], steps: list[dict], ids: list[str]) -> None:
        """A plan's steps, each in a fork of the collected session, into `steps`. A `lean` step
        runs plain tests without pytest's per-test protocol (`lean.py`); when a test does not pass
        in it, the step runs again under the protocol, which alone decides, and so do the steps
        after it (`screened`: what the lean run saw)."""
        full = False
        for i, step in enumerate(steps):
            lean = self._lean(items) if step.get("lean") and not full else None
            result = self._step(list(items), i, step, ids, lean)
            # an isolated step ran each screened test again itself (`_alone`)
            if (
                lean is not None
                and not step.get("isolate")
                and (result.get("lean") or "crash" in result)
            ):
                screened = not_passed(result, ids)
                if screened:
                    ran = result.get("lean", 0)
                    result = self._step(list(items), i, step, ids)
                    result.update(screened=screened, lean=ran)
                    full = True
            self.steps.append(result)
            # a step marked `last` in which a test of `ids` did not pass ends the plan: its
            # file is flaky already, the runs after it would only add to the count
            if step.get("last") and not_passed(result, ids):
                break

    def _lean(self, items: list[pytest.Item]) -> Lean | None:
        """The session's lean runner, its plain items found once (in this process, not a fork);
        None when none is plain: the step runs as any other."""
        if self.lean is None and items:
            self.lean = Lean(items[0].config)
            self.lean.found = any([self.lean.plain(item) for item in items])
        return self.lean if self.lean is not None and self.lean.found else None

    def _step(
        self,
        items: list[pytest.Item],
        index: int,
        step: dict,
        ids: list[str],
        lean: Lean | None = None,
    ) -> dict:
        """One run of a plan: every test (in the step's order) in one forked child, or each wanted
        test alone; `lean`: plain tests without pytest's per-test protocol."""
        if step.get("isolate"):
            # the step's own choice of tests (`runner.alone`), else every wanted one
            wanted = set(ids if step.get("ids") is None else step["ids"])
            return self._alone([i for i in items if i.nodeid in wanted], lean)
        if step.get("order") == "random":
            random.Random(step.get("seed", 0)).shuffle(items)
        elif step.get("order") == "reverse":
            items.reverse()
        part, progress = f"{self.args.out}.step{index}", f"{self.args.out}.step{index}.progress"
        pid = os.fork()
        if pid == 0:
            try:
                self.tests = {}
                _fresh_draws()
                # close the parent's handle, not drop it: a file freed by the GC warns
                # (ResourceWarning), which a project with `filterwarnings = error` sees as an error
                # in whichever test is running
                self.progress.close()
                # the child's own, until _exit
                self.progress = open(progress, "w", buffering=1)  # noqa: SIM115
                ran = 0
                for i, item in enumerate(items):
                    nextitem = items[i + 1] if i + 1 < len(items) else None
                    if lean is not None and lean.plain(item):
                        self.progress.write(item.nodeid + "\n")
                        self._lean_run(lean, item, nextitem)
                        ran += 1
                        continue
                    if lean is not None:
                        lean.full()
                    item.ihook.pytest_runtest_protocol(item=item, nextitem=nextitem)
                with open(part, "w") as fh:
                    json.dump({"tests": self.tests, "lean": ran}, fh)
            finally:
                os._exit(0)
        status = _wait(pid, self.args.test_timeout)
        try:
            with open(part) as fh:
                return dict(json.load(fh))
        except (OSError, ValueError):
            pass
        try:
            with open(progress) as fh:
                started = [line.strip() for line in fh if line.strip()]
        except OSError:
            started = []
        why = (
            f"timed out after {self.args.test_timeout:g} s"
            if status is None
            else f"the run ended abnormally (wait status {status})"
        )
        return {"tests": {}, "crash": why, "running": started[-1] if started else None}

    def _lean_run(self, lean: Lean, item: pytest.Item, nextitem: pytest.Item | None) -> None:
        """`item` run lean into `tests`; a failure reported meanwhile (a unittest subtest's
        report) stands."""
        done = lean.run(item, nextitem)  # type: ignore[arg-type]
        reported = self.tests.get(item.nodeid)
        if reported is not None and reported["outcome"] != "passed":
            done.update(outcome="failed", message=reported["message"])
        self.tests[item.nodeid] = done

    def _alone(self, items: list[pytest.Item], lean: Lean | None) -> dict:
        """Each of `items` in a fork of its own; `lean`: a plain test lean first, and again under
        pytest's protocol when it did not pass there (only that run counts)."""
        tests, screened, ran = {}, {}, 0
        for item in items:
            plain = lean is not None and lean.plain(item)
            tests[item.nodeid] = self._forked(item, lean if plain else None)
            ran += plain
            if plain and tests[item.nodeid]["outcome"] != "passed":
                screened[item.nodeid] = tests[item.nodeid]["message"]
                tests[item.nodeid] = self._forked(item)
        return {"tests": tests, "lean": ran, "screened": screened}

    def _forked(self, item: pytest.Item, lean: Lean | None = None) -> dict:
        part = f"{self.args.out}.part"
        pid = os.fork()
        if pid == 0:
            try:
                self.tests = {}
                _fresh_draws()
                if lean is not None:
                    self._lean_run(lean, item, None)
                else:
                    item.ihook.pytest_runtest_protocol(item=item, nextitem=None)
                with open(part, "w") as fh:
                    json.dump(self.tests.get(item.nodeid), fh)
            finally:
                os._exit(0)
        status = _wait(pid, self.args.test_timeout)
        if status is None:
            return {
                "outcome": "timeout",
                "duration": self.args.test_timeout,
                "message": f"timed out after {self.args.test_timeout:g} s when run alone",
            }
        try:
            with open(part) as fh:
                result = json.load(fh)
            os.unlink(part)
        except (OSError, ValueError):
            result = None
        return result or {
            "outcome": "error",
            "duration": 0.0,
            "message": f"crashed when run alone (wait status {status})",
        }

    def pytest_runtest_logstart(self, nodeid: str, location: tuple[str, int | None, str]) -> None:
        self.progress.write(nodeid + "\n")

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        entry = self.tests.setdefault(
            report.nodeid, {"outcome": "passed", "duration": 0.0, "message": ""}
        )
        entry["duration"] += report.duration
        if report.when == "call" and hasattr(report, "wasxfail"):
            entry["outcome"] = "xfailed" if report.skipped else "xpassed"
            entry["message"] = str(report.wasxfail)
        elif report.skipped and entry["outcome"] == "passed":
            entry["outcome"] = "skipped"
            entry["message"] = (
                str(report.longrepr[-1]) if isinstance(report.longrepr, tuple) else ""
            )
        elif report.failed:
            entry["outcome"] = "failed" if report.when == "call" else "error"
            entry["message"] = (
                f"error at {report.when}: " if report.when != "call" else ""
            ) + short(report)
            entry["import_errors"] = import_errors(
                [report.longreprtext, *(text for _, text in report.sections)]
            )

    def pytest_exception_interact(
        self, node: pytest.Item, call: pytest.CallInfo[Any], report: pytest.TestReport
    ) -> None:
        entry = self.tests.get(getattr(report, "nodeid", ""))
        if entry is not None and call.excinfo is not None:
            found = import_errors(subprocess_output(call.excinfo))
            entry["import_errors"] = list(dict.fromkeys([*entry.get("import_errors", []), *found]))

    def result(self, exitstatus: int) -> dict:
        return {
            "steps": self.steps,
            "exitstatus": int(exitstatus),
            "collected": self.collected,
            "errors": self.errors,
            "tests": self.tests,
            "leaked": boot.leaked_modules(self.args.user_root),
        }


def _fresh_draws() -> None:
    """In a forked run: numpy's global generator draws anew, as `random`'s does by itself after a
    fork (CPython reseeds it). Else every rerun repeats the draws of the first, and a test that
    hangs on unseeded numpy randomness passes or fails in all of them alike."""
    numpy = sys.modules.get("numpy")
    if numpy is not None:
        # a numpy without the legacy API: its state is left as it is
        with contextlib.suppress(Exception):
            numpy.random.seed(int.from_bytes(os.urandom(4), "little"))


def _wait(pid: int, timeout: float) -> int | None:
    """A forked child's wait status, or None when it outlived `timeout` (then it is killed)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return status
        time.sleep(0.002)
    os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)
    return None


def _pytest_args(args: PytestJob, extra: list[str]) -> list[str]:
    base = [
        "-p",
        "no:cacheprovider",
        "-p",
        "no:randomly",
        "-p",
        "no:assay",
        "-q",
        "--rootdir",
        args.scratch_root,
    ]
    if args.mode == "collect":
        base.append("--collect-only")
    return base + extra + quieting_args(extra)


def _run_once(args: PytestJob, extra: list[str], out: str) -> int:
    import pytest

    from .tree_watch import TreeWatch

    rec = Recorder(args, out + ".progress")
    # the green gate's run: which project files the tests wrote, apart from the session's own writes
    watch = TreeWatch(args.scratch_root) if args.mode in ("run", "checked") else None
    code = pytest.main(_pytest_args(args, extra), plugins=[rec, *([watch] if watch else [])])
    return finish(args, rec, watch, int(code))


def finish(args: PytestJob, rec: Recorder, watch: TreeWatch | None, code: int) -> int:
    """Write the run's result to `args.out`; in checked mode, hand gate 3's plan to the reserve."""
    with open(args.out, "w") as fh:
        json.dump({**rec.result(code), "writes": watch.writes if watch else None}, fh)
    if rec.reserve is not None:
        plan, ids = ahead(args, rec, code, watch.writes if watch else None)
        rec.reserve.run(plan, ids, args.out + ".plan")
    return code


def start(job_path: str) -> PytestJob:
    """The job, with imports from the scratch copy and the copy as the working directory."""
    job = PytestJob.read(job_path)
    boot.isolate_imports(job.user_root, job.scratch_root, job.source_roots)
    os.chdir(job.scratch_root)
    return job


def main(job: PytestJob) -> int:
    return _run_once(job, [*job.pytest_args, *job.paths], job.out)
