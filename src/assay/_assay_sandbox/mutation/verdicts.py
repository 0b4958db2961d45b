"""How a child's end becomes its mutant's verdict, and how the tests after a hung or slow test go
on in new children.

The order of a mutant's tests (see `pool`) is learned while the run goes, so it differs between
runs; the verdict must not. A test that hangs does not end its mutant: a new child runs the tests
after it (those that passed before it are done), and so on past each hang, up to `MAX_SPLITS`.
Killed when any covering test fails, Timeout when one hangs and none fails, whichever comes first in
this run's order. Each hang costs its deadline; after a test that slept past its backstop, the tests
after it go to up to `HANG_FANOUT` children side by side (a mutant whose retry loop never ends makes
every test of the class sleep: tenacity's 37 hung one after another, 100 s), so a mutant whose tests
all hang pays a few of them in a row, not all.

A test far slower under a mutant than in the baseline (a retry loop now sleeping, see `split`) does
not hold the mutant up either: its child keeps running that test alone while a new child runs the
tests after it, with the same verdict rule.
"""

from __future__ import annotations

import time
from typing import Any

from ..fork import cpu_ticks, idle
from ..protocol import MutantSpec
from .children import WALL_EXTRA, Children, pace
from .patch import function_of
from .plan import Job
from .protocol import LongestMutant, MutantDone, Status, Verdict
from .shapes import Outcome
from .split import HANG_FANOUT, IDLE_WINDOW_S, MAX_CHILDREN, MAX_SPLITS, Group, Running


class Verdicts(Children):
    """How `Pool` ends a mutant, or hands the tests after a hung or slow one to new children."""

    def _split_slow(self, running: dict[int, Running]) -> None:
        """A child whose test runs far past its baseline time keeps that test alone; a new child
        runs the tests after it (writers first). Only when a core is free, or the slow test leaves
        its core idle."""
        now = time.monotonic()
        for state in list(running.values()):
            if state.check is None or state.check > now or state.group.over:
                continue
            state.check = None
            job, ordered, test = state.job, state.ordered, state.test
            index = ordered.index(test) if test in ordered else -1
            if test is None or index < job.first or index + 1 == len(ordered):
                continue
            ticks = cpu_ticks(state.child.pid)
            # /proc is read for slow tests only: first look
            if state.cpu is None and ticks is not None:
                state.cpu, state.check = (ticks, now), now + IDLE_WINDOW_S
                continue
            sleeping = state.cpu is not None and idle(
                ticks, state.cpu[0], now - state.cpu[1], state.child.pid
            )
            if len(running) >= MAX_CHILDREN * self.workers or (
                not sleeping and self._busy(running) >= self.workers
            ):
                # no core yet
                state.cpu, state.check = ((ticks, now) if ticks is not None else None, now + 0.25)
                continue
            state.solo, state.idle = test, sleeping
            rest = self._rest(state.group, test, ordered[index + 1 :])
            # a second test of this mutant sleeping: the tests after it go to two children, side
            # by side
            halves = (
                [rest[: len(rest) // 2], rest[len(rest) // 2 :]]
                if sleeping
                and state.group.splits
                and len(rest) > 1
                and len(running) + 2 <= MAX_CHILDREN * self.workers
                else [rest]
            )
            for half in halves:
                self._split(running, state.group, job, ordered[: job.first] + half)

    @staticmethod
    def _rest(group: Group, slow: str, rest: list[str]) -> list[str]:
        """The tests after a slow one, those of its class (or module) last: they share its set-up
        and its calls, so the mutant likely slows them too."""
        group.slow.add(slow.rpartition("::")[0])
        return sorted(rest, key=lambda nodeid: nodeid.rpartition("::")[0] in group.slow)

    def _split(
        self, running: dict[int, Running], group: Group, job: Job, ordered: list[str]
    ) -> Running:
        self.split_mutants += not group.splits
        group.splits += 1
        return self._start(running, job, ordered, group)

    def _after_hang(
        self, state: Running, rest: list[str], running: dict[int, Running]
    ) -> list[list[str]]:
        """The tests after a hung one, in the children that run them: after a test that slept past
        its backstop (its class's tests last, likely asleep too), up to `HANG_FANOUT` side by side,
        for a mutant applied in place (a child costs a fork, not an import); else one."""
        group = state.group
        free = MAX_CHILDREN * self.workers - len(running)
        parts = (
            min(HANG_FANOUT, free, len(rest), MAX_SPLITS - group.splits)
            if state.hung in ("wall", "blocked") and state.job.mode.in_place
            else 1
        )
        parts = max(1, parts)
        return [rest[k * len(rest) // parts : (k + 1) * len(rest) // parts] for k in range(parts)]

    def _group_verdict(
        self, state: Running, how: str, result: dict[str, Any], running: dict[int, Running]
    ) -> None:
        """One child of a split mutant ended: Killed (or a broken module) ends the mutant at once;
        else the verdict waits for the others: Timeout if a test hung (the tests after it go on in
        new children, `_after_hang`), else Survived."""
        group, job = state.group, state.job
        m, took = job.m, time.monotonic() - group.started
        verdict: Verdict | None = None
        if how == "timeout" and state.stopped:
            pass
        elif how == "timeout":
            hung = state.test
            reason = self._hang_reason(hung, state, job)
            if hung is not None:
                self.cost[hung] = self.cost.get(hung, 0.0) + time.monotonic() - state.since
                self.hangs_in_a_row = max(self.hangs_in_a_row, state.hangs + 1)
            if group.hang is None:
                group.hang = Verdict(
                    Status.TIMEOUT,
                    group.ordered,
                    [hung] if hung else [],
                    reason=reason,
                    budget_s=state.backstop if state.hung in ("wall", "blocked") else state.budget,
                )
            ordered = state.ordered
            index = ordered.index(hung) if hung in ordered else -1
            if (
                hung is not None
                and state.solo is None
                and group.splits < MAX_SPLITS
                and index >= job.first
                and index + 1 < len(ordered)
            ):
                rest = self._rest(group, hung, ordered[index + 1 :])
                for part in self._after_hang(state, rest, running):
                    child = self._split(running, group, job, ordered[: job.first] + part)
                    child.hangs = state.hangs + 1
        elif (outcome := Outcome.of(result)).crash is not None:
            verdict = Verdict(Status.RUNTIME_ERROR, state.ordered, reason=outcome.crash)
        elif outcome.import_error is not None:
            verdict = Verdict(
                Status.RUNTIME_ERROR,
                state.ordered,
                reason=f"the module body raises at import: {outcome.import_error}",
            )
        elif outcome.equivalent is not None:
            verdict = Verdict(Status.IGNORED, reason=outcome.equivalent)
        elif outcome.unapplied is not None:
            verdict = Verdict(Status.IGNORED, state.ordered, reason=outcome.unapplied)
        elif outcome.killed_by:
            self._learn(m, outcome.killed_by)
            verdict = Verdict(Status.KILLED, group.ordered, outcome.killed_by, group.done)
        if verdict is None and not group.live:
            verdict = (
                Verdict(
                    Status.TIMEOUT,
                    group.ordered,
                    group.hang.killed_by,
                    group.done,
                    group.hang.reason,
                    group.hang.budget_s,
                )
                if group.hang
                else Verdict(Status.SURVIVED, group.ordered, [], group.done)
            )
            if group.hang:
                self.proven.update(function_of(k) for k in group.hang.killed_by)
        if verdict is None:
            return
        group.over = True
        for pid in list(group.live):
            if pid in running:
                running.pop(pid).child.kill()
        if took > self.longest.seconds:
            self.longest = LongestMutant(m.id, took)
        self._done(job, verdict, took)

    def _hang_reason(self, hung: str | None, state: Running, job: Job) -> str:
        if hung is None:
            what = "the tests' setup" if job.mode.in_place else "the mutant's module body re-run"
            if state.hung == "cpu":
                used = (
                    f"{state.cpu_start:.1f}s of CPU" if state.cpu_start is not None else "its time"
                )
                rule = (
                    f" (budget {state.setup_cpu:.2f}s: {self.cfg.timeout_factor:g} x what a set-up"
                    f" like it used + {WALL_EXTRA:g} x {self.cfg.timeout_s:g}s)"
                    if state.setup_cpu is not None
                    else ""
                )
                return f"{what} computed for {used} without finishing{rule}; not retried"
            return f"{what} did not finish within {state.budget:.1f}s"
        now = pace(self.ratios)
        rule = (
            f"{self.cfg.timeout_factor:g} x {self.duration.get(hung, 0.0):.3f}s"
            f"{f' x {now:.2f} (pace)' if now != 1 else ''} + {self.cfg.timeout_s:g}s"
        )
        waiting = (
            f", and {state.granted:.1f}s it waited for a core" if state.granted >= 0.05 else ""
        )
        if state.hung == "blocked":
            return (
                f"{hung} waited with no time limit on a lock of its own process that nothing"
                f" could release (one thread, no timer): stopped before its {state.backstop:.1f}s"
                " backstop"
            )
        if state.hung == "wall":
            wall = (
                f"{self.cfg.timeout_factor:g} x {self.duration.get(hung, 0.0):.3f}s"
                f"{f' x {now:.2f} (pace)' if now != 1 else ''}"
                f" + {WALL_EXTRA:g} x {self.cfg.timeout_s:g}s"
            )
            return (
                f"{hung} did not finish within {state.backstop:.1f}s, sleeping or blocked "
                f"({wall}{waiting})"
            )
        return f"{hung} did not finish within {state.budget:.2f}s of CPU ({rule})"

    def _done(self, job: Job, verdict: Verdict, took: float) -> None:
        """Send a mutant's verdict; one that does not count (out of the sample, or not needed)
        ran only to prove tests: Ignored, with the tests that killed it. One that counts tells the
        early stop (`enough`)."""
        if job.proof:
            verdict = Verdict(
                Status.IGNORED, verdict.covered_by, verdict.killed_by, reason=job.proof
            )
        elif self.enough is not None:
            self.enough.count(job.m, verdict, self.quiet(job.m.id, verdict))
        self.events.send(MutantDone(job.m.id, verdict, took))

    def quiet(self, mutant_id: str, verdict: Verdict) -> bool:
        """Whether a survivor's tests received what the first run of the original gave (only an
        observing pool can tell)."""
        return False

    def _learn(self, m: MutantSpec, killed_by: list[str]) -> None:
        """What a kill teaches the ordering (its first killer) and which tests have killed."""
        self.proven.update(function_of(k) for k in killed_by)
        if not killed_by:
            return
        killer = killed_by[0]
        self.kills[killer] = self.kills.get(killer, 0) + 1
        self.line_killers.setdefault((m.file, m.line), set()).add(killer)
        self.function_killers.setdefault((m.file, m.function), set()).add(killer)

    def _verdict(self, state: Running, how: str, result: dict[str, Any]) -> None:
        job, child = state.job, state.child
        m, ordered = job.m, state.ordered
        took = time.monotonic() - child.started
        if took > self.longest.seconds:
            self.longest = LongestMutant(m.id, took)
        if how == "timeout":  # in its set-up, before any test: no test to blame
            # first try again, with more time; not a set-up that computed throughout (`_grace`)
            if m.id not in self.retried and state.hung != "cpu":
                self.retried.add(m.id)
                self.pending.append(job)
                return
            verdict = Verdict(
                Status.TIMEOUT,
                ordered,
                reason=self._hang_reason(None, state, job),
                budget_s=state.budget,
            )
        elif (outcome := Outcome.of(result)).crash is not None:
            verdict = Verdict(Status.RUNTIME_ERROR, ordered, reason=outcome.crash)
        elif outcome.import_error is not None:
            verdict = Verdict(
                Status.RUNTIME_ERROR,
                ordered,
                reason=f"the module body raises at import: {outcome.import_error}",
            )
        elif outcome.equivalent is not None:
            verdict = Verdict(Status.IGNORED, reason=outcome.equivalent)
        elif outcome.unapplied is not None:
            verdict = Verdict(Status.IGNORED, state.ordered, reason=outcome.unapplied)
        else:
            self._learn(m, outcome.killed_by)
            verdict = Verdict(
                Status.KILLED if outcome.killed_by else Status.SURVIVED,
                ordered if outcome.selected is None else outcome.selected,
                outcome.killed_by,
                outcome.tests_completed,
            )
        self._done(job, verdict, took)
