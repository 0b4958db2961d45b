"""Gate 3's plan run ahead by the pytest process of gates 1-2 (`checked` mode): a fork of the
collected session waits while the tests run, then runs the plan the stability gate will ask for.

Standalone (stdlib + pytest): runs under the interpreter of the user's tests.
"""

from __future__ import annotations

import contextlib
import json
import os
import time
from typing import TYPE_CHECKING

from . import stability_plan
from .tree_watch import snapshot

if TYPE_CHECKING:
    import pytest

    from .protocol import PytestJob
    from .pytest_runner import Recorder

STARTED = time.monotonic()  # about when this process started: the sandbox's timeout counts from it
SPARE_S = 2.0  # of that timeout, never planned into (interpreter start, writing results)
CLEAN = {"passed", "skipped", "xfailed", "xpassed"}  # outcomes gate 2 does not stop a file for


def ahead(
    args: PytestJob, rec: Recorder, code: int, writes: list[str] | None
) -> tuple[list[dict], list[str]]:
    """Gate 3's plan and the tests it watches, when the run leaves the file to gate 3 for sure and
    the plan fits well in what is left of this process's time (else none: the gate starts its own
    process, as it does when its plan turns out different)."""
    outcomes = [t["outcome"] for t in rec.tests.values()]
    passing = {k: t["duration"] for k, t in rec.tests.items() if t["outcome"] == "passed"}
    # gate 2 stops the file on a failure, a test that wrote into the tree, or no passing test
    if code != 0 or writes != [] or not passing or any(o not in CLEAN for o in outcomes):
        return [], []
    if len(args.paths) != 1 or set(rec.collected) != set(rec.tests):
        return [], []
    try:
        with open(args.paths[0], encoding="utf-8-sig") as fh:
            source = fh.read()
    except (OSError, UnicodeDecodeError):
        return [], []
    plan = stability_plan.ahead(args.stability, source, passing)
    left = args.test_timeout - (time.monotonic() - STARTED) - SPARE_S
    fits = 3 * stability_plan.cost_s(plan, passing) < left
    return (plan, list(passing)) if plan and fits else ([], [])


class Reserve:
    """A fork of the freshly collected session, waiting while the parent runs the tests (gate 2);
    given a plan, it runs it as plan mode does (each step in a fork of its own) and writes the
    result, else it ends. Gate 3 then costs no interpreter start and no collection of its own. It
    is forked before any test runs, so each step starts from the state plan mode's steps start from.

    The plan runs before the caller looks at what the green run did to the project's files: what
    the plan's runs wrote is in the result (`writes`), for gate 2 to leave out, as the later process
    of gate 3 never showed it."""

    def __init__(self, rec: Recorder, items: list[pytest.Item]) -> None:
        read, self._write = os.pipe()
        self.pid = os.fork()
        if self.pid == 0:
            os.close(self._write)
            try:
                self._serve(rec, items, read)
            finally:
                os._exit(0)
        os.close(read)

    @staticmethod
    def _serve(rec: Recorder, items: list[pytest.Item], read: int) -> None:
        data = b""
        while chunk := os.read(read, 65536):
            data += chunk
        if not data:
            return
        job = json.loads(data)
        rec.tests, rec.steps = {}, []
        # the sandbox ends this process at its timeout: a hang is cut before, and kept
        rec.deadline = STARTED + rec.args.test_timeout - SPARE_S
        before = snapshot(rec.args.scratch_root)
        rec.run_steps(items, job["plan"], job["ids"])
        after = snapshot(rec.args.scratch_root)
        writes = sorted(p for p in {*before, *after} if before.get(p) != after.get(p))
        with open(job["out"] + ".part", "w") as fh:
            json.dump(
                {"plan": job["plan"], "ids": job["ids"], "steps": rec.steps, "writes": writes}, fh
            )
        os.replace(job["out"] + ".part", job["out"])

    def run(self, plan: list[dict], ids: list[str], out: str) -> None:
        """Hand the plan over (none: the reserve ends) and wait for it."""
        if plan:
            data = json.dumps({"plan": plan, "ids": ids, "out": out}).encode()
            while data:
                data = data[os.write(self._write, data) :]
        os.close(self._write)
        # a test may have reaped every child of the process (os.wait()) and the reserve with them
        with contextlib.suppress(ChildProcessError):
            os.waitpid(self.pid, 0)
