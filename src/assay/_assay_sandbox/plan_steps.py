"""A plan's runs in forks of one collected session (`plan` mode, and gate 3's plan run ahead by
the process of gates 1-2): each step in a fork of its own, or each test alone in one; `lean` steps
run the tests pytest's own set-up suffices for without its per-test protocol (`lean.py`).

Standalone (stdlib + pytest): runs under the interpreter of the user's tests.
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

from .lean import Lean, not_passed

if TYPE_CHECKING:
    import pytest

    from .protocol import PytestJob


class PlanSteps:
    """The plan-running half of the recorder (`pytest_runner.Recorder`): it records what each
    run's tests did into `tests` through its pytest hooks; this runs the steps into `steps`."""

    args: PytestJob
    tests: dict[str, dict]
    steps: list[dict]
    progress: Any
    lean: Lean | None
    # the plan run ahead (`reserve.py`): when its process's time ends, no child may outlive it
    deadline: float | None = None
    out_of_time: bool = False
    waited: float = 0.0  # the limit of the last wait

    def run_steps(self, items: list[pytest.Item], steps: list[dict], ids: list[str]) -> None:
        """A plan's steps, each in a fork of the collected session, into `steps`. A `lean` step
        runs plain tests without pytest's per-test protocol (`lean.py`); when a test does not pass
        in it, the step runs again under the protocol, which decides, and so do the steps after it
        (`screened`: what the lean run saw) - unless the protocol's run passes and a lean run again
        passes too: the lean failure was then chance, and stands. Lean reruns in file order first
        run one after another in a single fork (`_together`); only when a test did not pass there
        does each get a fork of its own, as above."""
        full, tried, i = False, False, 0
        while i < len(steps):
            index, step = i, steps[i]
            i += 1
            lean = self._lean(items) if step.get("lean") and not full else None
            count = _reruns(steps, index) if lean is not None and not tried else 0
            if count > 1 and lean is not None:
                tried = True
                together = self._together(list(items), index, count, ids, lean)
                if isinstance(together, list):
                    self.steps += together
                    i = index + count
                    continue
                if together == "timeout" and self.out_of_time:
                    hung = self._hung_first(f"{self.args.out}.together{index}.progress")
                    self.steps += [hung] if hung else []
                    return  # no time left: a hang in a later round (state kept) proves nothing
                if together == "timeout":  # a test hangs: the protocol's run decides at once
                    lean = None
            result = self._step(list(items), index, step, ids, lean)
            # an isolated step ran each screened test again itself (`_alone`)
            if (
                lean is not None
                and not step.get("isolate")
                and (result.get("lean") or "crash" in result)
            ):
                screened = not_passed(result, ids)
                # under the protocol it passes: lean's doing when it fails lean again, else chance
                # (the lean failure stands: forgiving it gave a flaky test a second roll); a lean
                # run that timed out stands as it is: a second timeout would only cost its time
                if screened and not timed_out(result):
                    redo = self._step(list(items), index, step, ids)
                    if not_passed(redo, ids) or not_passed(
                        self._step(list(items), index, step, ids, lean), ids
                    ):
                        redo.update(screened=screened, lean=result.get("lean", 0))
                        result, full = redo, True
            self.steps.append(result)
            if self.out_of_time:  # the process's time is up: what ran is the plan's result
                break
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
                ran = self._run_items(items, lean)
                with open(part, "w") as fh:
                    json.dump({"tests": self.tests, "lean": ran}, fh)
            finally:
                os._exit(0)
        status, waited = self._wait(pid)
        try:
            with open(part) as fh:
                return dict(json.load(fh))
        except (OSError, ValueError):
            pass
        try:
            with open(progress) as fh:
                started = [line.strip() for line in fh if line.strip()]
            # the file is written as each test starts: the running one's start
            ran_s = time.time() - os.path.getmtime(progress)
        except OSError:
            started, ran_s = [], None
        running = started[-1] if started else None
        if status is None and len(started) > 1 and ran_s is not None and ran_s < waited / 2:
            # the tests before it spent the run's time (textdistance's 168 hypothesis tests on a
            # loaded machine): the run's length, not this test's hang
            why = (
                f"the run reached its {waited:g} s timeout after {len(started) - 1} tests, while "
                f"{running} had run {ran_s:.1f} s: the run's length, not a hang of that test; "
                "raise the timeout (--timeout, [tool.assay.sandbox] timeout_s)"
            )
            return {"tests": {}, "crash": why, "running": running, "out_of_time": True}
        why = (
            f"timed out after {waited:g} s"
            if status is None
            else f"the run ended abnormally (wait status {status})"
        )
        return {"tests": {}, "crash": why, "running": running}

    def _run_items(self, items: list[pytest.Item], lean: Lean | None) -> int:
        """One run of `items` in this (forked) process into `tests`: plain ones lean when `lean`
        is given; how many ran lean."""
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
        return ran

    def _together(
        self, items: list[pytest.Item], index: int, count: int, ids: list[str], lean: Lean
    ) -> list[dict] | str:
        """`count` reruns in file order in one fork, one after another, lean (each from where the
        one before left the process: a screen, never a verdict): their results when every test
        of `ids` passed in every one, else "failed" ("timeout": a test hung), and the caller runs
        them a fork each. A fork costs more than a fast file's tests (its pages copied as they are
        written, its exit)."""
        part = f"{self.args.out}.together{index}"
        pid = os.fork()
        if pid == 0:
            try:
                _fresh_draws()
                self.progress.close()
                self.progress = open(f"{part}.progress", "w", buffering=1)  # noqa: SIM115
                rounds: list[dict] = []
                for _ in range(count):
                    self.tests = {}
                    ran = self._run_items(items, lean)
                    rounds.append({"tests": self.tests, "lean": ran, "together": count})
                    if not_passed(rounds[-1], ids):
                        break
                else:
                    with open(part, "w") as fh:
                        json.dump(rounds, fh)
            finally:
                os._exit(0)
        if self._wait(pid)[0] is None:
            return "timeout"
        try:
            with open(part) as fh:
                found = json.load(fh)
        except (OSError, ValueError):
            return "failed"
        return list(found) if found else "failed"

    def _wait(self, pid: int) -> tuple[int | None, float]:
        """A child's wait status (None: killed at its limit) and that limit: the test timeout,
        or less when the process's own time ends first (`deadline`): then the plan stops there."""
        limit = self.args.test_timeout
        if self.deadline is not None and self.deadline - time.monotonic() < limit:
            limit = max(0.0, self.deadline - time.monotonic())
            status = _wait(pid, limit)
            self.out_of_time, self.waited = status is None, round(limit, 1)
            return status, self.waited
        self.waited = limit
        return _wait(pid, limit), limit

    def _hung_first(self, progress: str) -> dict | None:
        """The reruns run together hung in their first round (a fresh fork, as a lean step is):
        that rerun timed out, and stands as a lean step's timeout does. None when the hang came
        in a later round, after a round that passed in the same process."""
        try:
            with open(progress) as fh:
                started = [line.strip() for line in fh if line.strip()]
        except OSError:
            return None
        if not started or started.count(started[-1]) != 1:
            return None
        why = f"timed out after {self.waited:g} s"
        return {"tests": {}, "crash": why, "running": started[-1], "lean": 1}

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
        pytest's protocol when it did not pass there (that run counts, unless the test passes lean
        again: then its lean failure was chance, and stands)."""
        tests, screened, ran = {}, {}, 0
        for item in items:
            plain = lean is not None and lean.plain(item)
            tests[item.nodeid] = self._forked(item, lean if plain else None)
            ran += plain
            if self.out_of_time:  # the rest would be cut at once, not run
                break
            if plain and tests[item.nodeid]["outcome"] not in ("passed", "timeout"):
                redo = self._forked(item)  # as in `run_steps`: a lean pass again keeps the failure
                if redo["outcome"] != "passed" or self._forked(item, lean)["outcome"] != "passed":
                    screened[item.nodeid] = tests[item.nodeid]["message"]
                    tests[item.nodeid] = redo
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
        status, waited = self._wait(pid)
        if status is None:
            return {
                "outcome": "timeout",
                "duration": waited,
                "message": f"timed out after {waited:g} s when run alone",
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


def timed_out(result: dict) -> bool:
    """A step's run was killed at the test timeout (`_step`)."""
    return str(result.get("crash") or "").startswith("timed out")


def _reruns(steps: list[dict], start: int) -> int:
    """How many lean reruns of a fast file (`together`) follow one another from `start`."""
    count = 0
    for step in steps[start:]:
        if not step.get("together") or step.get("isolate") or step.get("order", "file") != "file":
            break
        count += 1
    return count


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
