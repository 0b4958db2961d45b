"""Running jobs in forked children, `workers` at a time, and turning each child's end into
a verdict: the loop that starts them and reads their lines (`children`: forking one and its
deadlines; `verdicts`: a child's end, and a mutant's tests split across children).

Order of the tests of one mutant: it stops at its first failing test, so the expected cost is least
when tests run by duration / probability of killing (Smith's rule): a test that killed a mutant on
the same line is likely to kill again, one that killed in the same function less so, one whose name
holds the words of the mutated line may (`hint`), one that ran often and never killed is not; a slow
test runs last unless it is by far the likeliest killer. Tests that wrote module state in the
baseline run before the others, in collection order (see `plan`).
"""

from __future__ import annotations

import gc
import time
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

from ..fork import RETRY_FACTOR, watch
from ..protocol import PROVE_EACH_TEST, MutantSpec
from .blocked import BLOCKED_LOOK_S
from .children import FRESH_SESSION_S, pace
from .patch import Hunt, function_of
from .plan import Job, Settled
from .protocol import Cost, LongestMutant, Mode, MutantDone, Status, TestCost, Verdict
from .split import MAX_CHILDREN, MAX_SPLITS, Group, Running, split_after
from .verdicts import Verdicts

SAME_LINE_P = 0.9  # chance that a test that killed a mutant on this line kills the next one
# ... one that killed a mutant elsewhere in the same function (or module body)
SAME_FUNCTION_P = 0.6


class Pool(Verdicts):
    def run(self, steps: Iterator[Job | Settled], by_id: dict[str, Any]) -> None:
        """`steps`: the plan's, one at a time; the next job is drawn (compiled) while the children
        run, a settled mutant's verdict is sent as it is drawn."""
        # Everything alive now is shared with every child: keep the collector from walking (and so
        # copying) those pages in each child.
        gc.freeze()
        fresh = iter(steps)
        # drawn before a slot frees: its compile overlaps the children's runs
        ahead = self._draw(fresh)
        running: dict[int, Running] = {}
        position = {nodeid: i for i, nodeid in enumerate(by_id)}
        self.by_id = by_id
        self.known = set(by_id)
        while self.pending or running or ahead is not None:
            while (
                (self.pending or ahead is not None)
                and self._busy(running) < self.workers
                and len(running) < MAX_CHILDREN * self.workers
            ):
                if self.pending:
                    job = self.pending.pop()
                elif ahead is not None:
                    job, ahead = ahead, self._draw(fresh)
                    self.modes[job.mode] += 1
                    self.with_state += job.first > 0
                if job.proof and self.cfg.killers == PROVE_EACH_TEST:
                    proving = self._proving(job, position)
                    if proving is None:  # each test it was drawn to prove has killed since
                        self._done(job, Verdict(Status.IGNORED), 0.0)
                        continue
                    job = proving
                rest, hunt = self._hunt(job, position)
                ordered = job.ordered[: job.first] + rest
                group = Group(ordered, time.monotonic(), hunt=hunt)
                self._start(running, job, ordered, group)
            self._step(running)

    def _hunt(self, job: Job, position: dict[str, int]) -> tuple[list[str], Hunt]:
        """The tests after the state writers, in the order to run them, and what to look for.
        Looking for every killer (which test kills what, gate 4): file order, so that the same
        killers are found in every run. Proving each test: those that have not killed yet first, in
        file order, all of them; then the cheapest expected kill. Else the cheapest first."""
        rest = job.ordered[job.first :]
        if self.cfg.killers == PROVE_EACH_TEST or job.proof:
            must = [t for t in rest if function_of(t) not in self.proven]
            # the writers run first, whatever the hunt; one still to kill must not be cut short
            # by an earlier writer's kill (glom's `test_pipe`: low value, though it kills)
            first = [t for t in job.ordered[: job.first] if function_of(t) not in self.proven]
            if job.proof:  # out of the sample: only to prove those
                return sorted(must, key=position.__getitem__), Hunt(1, frozenset(must + first))
            proven = self.order(job.m, [t for t in rest if function_of(t) in self.proven])
            hunt = Hunt(1, frozenset(must + first))
            return sorted(must, key=position.__getitem__) + proven, hunt
        if self.cfg.killers != 1:
            return sorted(rest, key=position.__getitem__), Hunt(self.cfg.killers)
        return self.order(job.m, rest), Hunt(1)

    def _proving(self, job: Job, position: dict[str, int]) -> Job | None:
        """A job that runs only to prove tests, cut to the tests that can still tell: None when each
        test it was drawn for has killed since (another child's kill came in first), else without
        the state writers that come after the last test left to prove. Such a writer ran after those
        tests in the baseline, so nothing it wrote reached them there, and it has killed already:
        a kill of its own proves nothing new. jmespath's `test_thread_safety_of_cache` (a writer of
        the parser's cache, 0.1 s, the file's slowest test by 6x) ran on each proving mutant of its
        file, for tests collected before it."""
        left = [t for t in job.ordered if function_of(t) not in self.proven]
        if not left:
            return None
        last = max(position[t] for t in left)
        writers = [t for t in job.ordered[: job.first] if position[t] <= last]
        if len(writers) == job.first:
            return job
        return replace(job, ordered=writers + job.ordered[job.first :], first=len(writers))

    def _draw(self, steps: Iterator[Job | Settled]) -> Job | None:
        """The next job; the settled mutants before it get their verdicts now."""
        for step in steps:
            if isinstance(step, Job):
                return step
            self.events.send(MutantDone(step.m.id, step.verdict))
        return None

    def order(self, m: MutantSpec, ordered: list[str]) -> list[str]:
        """Cheapest expected cost first: duration / chance of killing (learned, or hinted by the
        test's name)."""
        same_line = self.line_killers.get((m.file, m.line), ())
        same_function = self.function_killers.get((m.file, m.function), ())
        hinted = self.hints.chances(m, ordered)

        def key(nodeid: str) -> tuple[float, str]:
            p = (
                SAME_LINE_P
                if nodeid in same_line
                else max(
                    SAME_FUNCTION_P if nodeid in same_function else 0.0,
                    hinted.get(nodeid, 0.0),
                    (self.kills.get(nodeid, 0) + 0.5) / (self.runs.get(nodeid, 0) + 1),
                )
            )
            return (self.duration.get(nodeid, 0.0) + 1e-4) / p, nodeid

        return sorted(ordered, key=key)

    def _on_line(self, state: Running, msg: dict[str, Any]) -> None:
        if state.stopped:
            return
        now = time.monotonic()
        self._heartbeat()  # tests are finishing, slow as they may be
        if "next" in msg:
            self.begin_test(state, msg["next"])
            if not state.begun:
                state.begun = True
                self.setup_s[state.job.mode] = now - state.child.started
                if state.cpu_start is not None:  # its CPU when its first test began: the set-up's
                    key = (state.job.mode, state.job.m.file)
                    self.setup_cpu[key] = max(self.setup_cpu.get(key, 0.0), state.cpu_start)
            alone = state.group.hunt == Hunt(1)  # looking for one killer, no test that must run
            if state.solo is None and alone and state.group.splits < MAX_SPLITS:
                state.check = now + split_after(
                    self.duration.get(msg["next"], 0.0) * pace(self.ratios),
                    self.setup_s.get(state.job.mode, 0.0),
                    state.group.splits,
                )
                state.cpu = None
        else:
            nodeid = msg["done"]
            # a failing test may stop early: only passing ones (of 5 ms or more) tell the pace
            if self.duration.get(nodeid, 0.0) >= 0.005 and not msg.get("failed"):
                self.ratios.append(msg["s"] / self.duration[nodeid])
            self.cost[nodeid] = self.cost.get(nodeid, 0.0) + msg["s"]
            self.runs[nodeid] = self.runs.get(nodeid, 0) + 1
            state.test = None
            # between tests, or after the last: a fresh pytest session (re-import) also reports and
            # tears down
            fresh = state.job.mode not in (Mode.PATCH, Mode.DEFAULTS, Mode.RECOLLECT)
            state.budget = self.step_s + (FRESH_SESSION_S if fresh else 0.0)
            state.budget *= RETRY_FACTOR if state.job.m.id in self.retried else 1.0
            state.check = None
            state.group.done += 1
        state.since = now
        state.deadline = now + state.budget
        if "next" in msg:  # a test blocked for good is told apart sooner than its budget
            state.deadline = now + min(state.budget, BLOCKED_LOOK_S)
        state.waited, state.granted = msg.get("w"), 0.0
        if "done" in msg and state.solo == msg["done"] and not msg.get("failed"):
            state.stopped = True  # its one test passed: the tests after it are another child's
            state.deadline = now

    def _step(self, running: dict[int, Running]) -> None:
        """Wait until at least one child ends or passes its deadline (freed slots fill at
        once); verdicts."""

        # a test that started meanwhile may be due for a look before the others
        def wake() -> float | None:
            return min((s.check for s in running.values() if s.check is not None), default=None)

        ended = watch(
            [s.child for s in running.values()],
            lambda c: running[c.pid].deadline,
            lambda c, msg: self._on_line(running[c.pid], msg),
            first_only=True,
            wake=wake,
            grace=lambda c: self._grace(running[c.pid]),
        )
        states = {pid: running.pop(pid) for pid in ended}
        for pid, (how, result) in ended.items():
            group = states[pid].group
            group.live.discard(pid)
            if group.over:
                continue
            # a test that hung goes the group's way (the tests after it run on); a hang in set-up
            # is retried
            if group.splits or (how == "timeout" and states[pid].test is not None):
                self._group_verdict(states[pid], how, result, running)
            else:
                self._verdict(states[pid], how, result)
        self._split_slow(running)

    def summary(self, total_s: float) -> Cost:
        """The `cost` event: the five tests that cost the most over all mutants, and the
        longest mutant."""
        spent = sum(self.cost.values()) or 1.0
        top = sorted(self.cost.items(), key=lambda kv: -kv[1])[:5]
        return Cost(
            tests_s=round(sum(self.cost.values()), 3),
            mutants_s=round(total_s, 3),
            slowest=[
                TestCost(
                    nodeid,
                    round(self.duration.get(nodeid, 0.0), 4),
                    self.runs.get(nodeid, 0),
                    round(s, 3),
                    round(s / spent, 4),
                )
                for nodeid, s in top
            ],
            longest_mutant=LongestMutant(self.longest.id, round(self.longest.seconds, 3)),
            split_mutants=self.split_mutants,
            hangs_in_a_row=self.hangs_in_a_row,
        )
