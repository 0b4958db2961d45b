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

import json
import os
import random
from typing import TYPE_CHECKING, Any

from . import boot
from .messages import (
    MAX_MESSAGE,
    import_errors,
    missing_programs,
    project_frame,
    short,
    subprocess_output,
)
from .plan_steps import PlanSteps
from .plugins import cache_args, quieting_args
from .protocol import GREEN_SUFFIX, PytestJob
from .reserve import Reserve, ahead
from .short_ids import ShortIds

if TYPE_CHECKING:
    import pytest

    from .lean import Lean
    from .tree_watch import TreeWatch


class Recorder(PlanSteps):
    """pytest plugin that records collection and per-test outcomes."""

    def __init__(self, args: PytestJob, progress_path: str) -> None:
        self.args = args
        # lives as long as the run
        self.progress = open(progress_path, "a", buffering=1)  # noqa: SIM115
        self.collected: list[str] = []
        self.errors: list[dict] = []
        self.module_skip: str | None = None
        self.deselected = 0  # tests the run's own `-m`/`-k` (the project's addopts) left out
        self.selection = ""
        self.tests: dict[str, dict] = {}
        self.steps: list[dict] = []  # plan mode: one result per step
        self.reserve: Reserve | None = None  # checked mode: the session kept for gate 3's plan
        self.lean: Lean | None = None  # plan mode: plain tests rerun without pytest's protocol
        self.watch: TreeWatch | None = None  # run and checked modes: the tree's writes

    def pytest_configure(self, config: pytest.Config) -> None:
        # assay's own pytest plugin is kept out of the sandbox (-p no:assay); its marker is
        # registered here
        config.addinivalue_line(
            "markers", "assay_generated(task=None): test written by assay generate"
        )
        given = [("-m", config.option.markexpr), ("-k", config.option.keyword)]
        self.selection = " ".join(f"{flag} {expr!r}" for flag, expr in given if expr)

    def pytest_deselected(self, items: list[pytest.Item]) -> None:
        self.deselected += len(items)

    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        # a module skipped whole at collection (`pytest.importorskip` in a class body)
        if report.skipped and self.module_skip is None:
            told = report.longrepr
            self.module_skip = str(told[2] if isinstance(told, tuple) else told).removeprefix(
                "Skipped: "
            )[:MAX_MESSAGE]
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
            found = import_errors(subprocess_output(call.excinfo)) + missing_programs(call.excinfo)
            entry["import_errors"] = list(dict.fromkeys([*entry.get("import_errors", []), *found]))
            files = [
                os.path.join(self.args.scratch_root, p.split("::")[0]) for p in self.args.paths
            ]
            if node.get_closest_marker("flaky") is not None:  # its author expects it may fail
                entry["marked_flaky"] = True
            where = project_frame(call.excinfo, self.args.scratch_root, files)
            if where and "raised_at" not in entry:
                entry["raised_at"] = where

    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        """The tests' results, written before pytest's last steps: a plugin that crashes after
        them (pytest-xprocess at `pytest_unconfigure`, cachelib) leaves them, marked `ended`
        False (`finish` writes them again when pytest ends well)."""
        if self.args.mode != "batch":  # a batch's parent: each file's fork writes its own
            writes = self.watch.writes if self.watch else None
            data = {**self.result(int(exitstatus)), "writes": writes, "ended": False}
            with open(self.args.out, "w") as fh:
                json.dump(data, fh)
            if self.reserve is not None:  # gate 3's plan follows: gate 2's outcomes, told now
                with open(self.args.out + GREEN_SUFFIX + ".part", "w") as fh:
                    json.dump(data, fh)
                os.replace(self.args.out + GREEN_SUFFIX + ".part", self.args.out + GREEN_SUFFIX)

    def result(self, exitstatus: int) -> dict:
        return {
            "steps": self.steps,
            "exitstatus": int(exitstatus),
            "collected": self.collected,
            "errors": self.errors,
            "module_skip": self.module_skip,
            "deselected_by": (self.selection or "--deselect") if self.deselected else None,
            "tests": self.tests,
            "leaked": boot.leaked_modules(self.args.user_root),
        }


def _pytest_args(args: PytestJob, extra: list[str]) -> list[str]:
    base = [
        *cache_args(),
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
    rec.watch = watch
    code = pytest.main(
        _pytest_args(args, extra), plugins=[ShortIds(), rec, *([watch] if watch else [])]
    )
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
