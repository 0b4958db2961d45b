"""The baseline: every test once under the tracer (coverage per test, globals each test writes) and
once untraced (durations: tracing inflates them, and timeouts and ordering need the real ones), in
two forked children at the same time.

It tells which tests cover each line (only those run for a mutant there), how long each takes
(cheapest first; the per-test timeout), which module state each test leaves behind (who may read
what a covered line computed), and which functions the tests execute in their call phase (the verify
gate's scope). A test that hangs stops the run with its name: no mutant can be judged against it.

A test that waits (sleeps, retries, times out) leaves its child's core idle. Then new children take
the tests after it, in shares, each from the same state the first started in, and the first stops
once its test is done - if no test before that point wrote module state. If one did, the others saw
a state the sequential run would not have: the first child runs on and they are dropped. A run still
going after a quarter second hands the second half of its tests on at once: waits late in the suite
then overlap the work early in it. Once the traced run reports a write, the untraced children after
it pause (SIGSTOP): they hold no core while they are likely moot, and go on if the untraced run's
own check says otherwise.
"""

from __future__ import annotations

import contextlib
import math
import mmap
import os
import signal
import struct
import time
from typing import Any

import pytest

from ..fork import Child, cpu_ticks, fork, idle, watch
from ..protocol import MutationJob
from .baseline_child import run_tests
from .events import Events
from .protocol import BaselineProgress
from .shapes import Functions

# a test running this long is looked at: does its child wait rather than compute?
SHARD_IDLE_S = 0.05
SHARD_CHECK_S = 0.25  # then again this often, while the test runs on
# a run still going after this long hands the second half of its tests on, once
SHARD_AHEAD_S = 0.25
SHARD_MIN_LEFT = 4  # tests left to a child before a second one is worth its start
SHARD_MAX = 6  # children per run at once (those that wait hold no core)


class BaselineFailed(Exception):
    pass


def run_baseline(
    cfg: MutationJob,
    items: list[pytest.Item],
    events: Events,
    durations: dict[str, float] | None,
    functions: Functions | None = None,
) -> tuple[dict, dict[str, float]]:
    """The traced run and, unless `durations` came with the job, the untraced one beside it (two
    children: on two cores the wall time is the traced run's alone; with one worker they run one
    after the other, so as not to skew the durations). Returns ({run: result}, {run: seconds});
    raises BaselineFailed naming the test that hung, or the crash."""
    names = ["traced"] if durations is not None else ["traced", "untraced"]
    batches = [names] if cfg.workers >= 2 else [[name] for name in names]
    results: dict[str, dict] = {}
    seconds: dict[str, float] = {}
    for batch in batches:
        runs = [_Run(name, items, cfg, functions) for name in batch]
        _finish(runs, items, events, cfg.baseline_timeout)
        for run in runs:
            results[run.name], seconds[run.name] = run.merged()
    return results, seconds


class _Segment:
    """A child running the tests from `start` on, until the next segment's start if it wrote no
    module state."""

    def __init__(self, run: _Run, start: int, end: int = -1) -> None:
        self.start = start
        # shared with the child: where the next segment starts (-1 while none), and the test the
        # child is at
        self.stop = mmap.mmap(-1, 16)
        struct.pack_into("qq", self.stop, 0, end, start)
        traced = run.name == "traced"
        self.child = fork(
            lambda report: run_tests(
                run.items, report, traced, run.cfg, run.functions, start, self.stop
            )
        )
        self.at: int | None = None  # the test it runs now
        self.since = self.child.started
        self.done = 0
        self.wrote = False
        self.result: dict | None = None
        self.paused = False
        self.look_from(self.since, SHARD_CHECK_S)

    def deadline(self, per_test: float) -> float:
        """A dropped child's is past (`watch` kills it); a paused one has none."""
        return (
            self.since
            if self.since == -math.inf
            else math.inf
            if self.paused
            else self.since + per_test
        )

    def pause(self) -> None:
        """Stopped (SIGSTOP) while the child before it likely runs on into its tests: it holds
        no core."""
        with contextlib.suppress(ProcessLookupError):  # it ended meanwhile
            os.kill(self.child.pid, signal.SIGSTOP)
        self.paused, self.check_at = True, math.inf

    def resume(self, now: float) -> None:
        """Needed after all: the test it was in counts the pause in its duration (looser
        deadline only)."""
        with contextlib.suppress(ProcessLookupError):
            os.kill(self.child.pid, signal.SIGCONT)
        self.paused, self.since = False, now
        self.look_from(now, SHARD_CHECK_S)

    def look_from(self, now: float, after: float) -> None:
        """Measure the child's CPU from `now` on, and look at it `after` seconds later."""
        self.ticks, self.ticks_at, self.check_at = cpu_ticks(self.child.pid), now, now + after


class _Run:
    """One baseline run: its first child, and the children that took over the tail of a child
    that waited."""

    def __init__(
        self, name: str, items: list[pytest.Item], cfg: MutationJob, functions: Functions | None
    ) -> None:
        self.name, self.items, self.cfg, self.functions = name, items, cfg, functions
        self.segments = [_Segment(self, 0)]
        self.ahead_at = self.segments[0].since + SHARD_AHEAD_S
        # the first test its children reported writing module state (traced only)
        self.written = math.inf
        self.resumed = 0  # children paused, then needed after all

    def live(self) -> list[_Segment]:
        return [s for s in self.segments if s.result is None]

    def end_of(self, segment: _Segment) -> int:
        later = self.segments.index(segment) + 1
        return self.segments[later].start if later < len(self.segments) else len(self.items)

    def passed(self, segment: _Segment, index: int) -> list[_Segment]:
        """`segment` starts test `index`: if that is past its end (it wrote module state and runs
        on), the segments after it are dropped; returned, to be killed."""
        if segment not in self.segments:  # dropped already, its last lines still coming
            return []
        later = self.segments.index(segment) + 1
        if later == len(self.segments) or index < self.segments[later].start:
            return []
        dropped, self.segments = self.segments[later:], self.segments[:later]
        return dropped

    def resume(self, now: float) -> None:
        """A paused child whose predecessor stopped at its start is needed after all (one that ran
        on into it has dropped it). One paused as it ended (its last line was on its way) is done:
        it was reaped, and its pid may be gone or another process's."""
        for before, segment in zip(self.segments, self.segments[1:], strict=False):
            if segment.paused and segment.result is None and before.result is not None:
                segment.resume(now)
                self.resumed += 1

    def next_check(self) -> float:
        return min([self.ahead_at, *(s.check_at for s in self.live())])

    def split(self, now: float, written: float) -> None:
        """Each child that used under a quarter of a core since its test began (looked at
        `SHARD_IDLE_S` into the test, then every `SHARD_CHECK_S`), wrote no module state and has
        `SHARD_MIN_LEFT` tests left after the one it waits in hands them to new children (up to
        `SHARD_MAX`), in equal shares, and stops once that test is done. Once, `SHARD_AHEAD_S` into
        the run, the first child hands on the second half of its tests without waiting: a wait late
        in the run then overlaps the work early in it. A child whose tests include `written`, a test
        known to write module state, hands nothing on (the new children would be dropped)."""
        ahead, self.ahead_at = (
            now >= self.ahead_at,
            self.ahead_at if now < self.ahead_at else math.inf,
        )
        for segment in list(self.segments):
            if segment.result is not None or segment.paused or segment.wrote:
                continue
            # one test on from where the child is (read now, not from its pipe): it may start that
            # one meanwhile
            position = struct.unpack_from("q", segment.stop, 8)[0] + 1
            end = self.end_of(segment)
            left = end - position
            # a test it would hand on comes after a known writer: the new child would be moot
            if written < end:
                continue
            if ahead and left >= 2 * SHARD_MIN_LEFT:
                ahead = False
                self._hand_on(segment, [position + left // 2], end)
                continue
            if now < segment.check_at:
                continue
            ticks, elapsed = segment.ticks, now - segment.ticks_at
            segment.look_from(now, SHARD_CHECK_S)
            if (
                left >= SHARD_MIN_LEFT
                and len(self.live()) < SHARD_MAX
                and idle(segment.ticks, ticks, elapsed, segment.child.pid)
            ):
                parts = min(SHARD_MAX - len(self.live()), left // (SHARD_MIN_LEFT // 2))
                self._hand_on(segment, [position + left * k // parts for k in range(parts)], end)

    def _hand_on(self, segment: _Segment, starts: list[int], end: int) -> None:
        """`segment` stops at `starts[0]`; new children run from each start to the next (the last
        to `end`)."""
        struct.pack_into("q", segment.stop, 0, starts[0])
        ends = [*starts[1:], end if end < len(self.items) else -1]
        at = self.segments.index(segment) + 1
        self.segments[at:at] = [_Segment(self, a, b) for a, b in zip(starts, ends, strict=True)]

    def merged(self) -> tuple[dict, float]:
        """The segments' results end to end (a segment that ran on to the end is the last one)."""
        first = self.segments[0]
        out: dict = {}
        for segment in self.segments:
            result = segment.result or {}
            if not out:
                out = {**result, "children": 1, "resumed": self.resumed}
            else:
                out["children"] += 1
                out["tests"] = out["tests"] + result["tests"]
                out["patterns"] = out["patterns"] + result["patterns"]
                out["overhead"] = {
                    k: round(out["overhead"][k] + result["overhead"][k], 3) for k in out["overhead"]
                }
            if result["stopped"] is None:
                break
        return out, max(s.child.ended for s in self.segments) - first.child.started


def _finish(runs: list[_Run], items: list[pytest.Item], events: Events, per_test: float) -> None:
    owner: dict[int, tuple[_Run, _Segment]] = {}
    last_event = [0.0]

    def on_line(child: Child, msg: dict[str, Any]) -> None:
        now = time.monotonic()
        run, segment = owner[child.pid]
        if "next" in msg:
            segment.at, segment.since = msg["next"], now
            segment.look_from(now, SHARD_IDLE_S)
            for dropped in run.passed(segment, msg["next"]):
                dropped.since = -math.inf  # past its deadline: `watch` kills it
        else:
            segment.at, segment.since = None, now
            segment.done += 1
            # the traced child runs on to the end: the children after it are moot
            if msg.get("wrote"):
                segment.wrote = True
                run.written = min(run.written, msg["done"])
                for dropped in run.passed(segment, len(items)):
                    dropped.since = -math.inf
                # the untraced run's children after this test likely are too (its own check decides)
                for other in runs:
                    for later in other.live():
                        if other is not run and later.start > msg["done"] and not later.paused:
                            later.pause()
        if now - last_event[0] > 0.5:
            last_event[0] = now
            events.send(
                BaselineProgress(
                    total=len(items), done=min(sum(s.done for s in r.segments) for r in runs)
                )
            )

    while any(run.live() for run in runs):
        for run in runs:
            for segment in run.live():
                owner[segment.child.pid] = (run, segment)
        live = [s.child for run in runs for s in run.live()]
        ended = watch(
            live,
            lambda c: owner[c.pid][1].deadline(per_test),
            on_line,
            first_only=True,
            wake=lambda: min(run.next_check() for run in runs),
        )
        for pid, (state, result) in ended.items():
            run, segment = owner[pid]
            if segment.since == -math.inf:
                segment.result = {"dropped": True}
                continue
            if state == "timeout":
                which = (
                    items[segment.at].nodeid
                    if segment.at is not None
                    else "a test's teardown or the next setup"
                )
                raise BaselineFailed(
                    f"{which} did not finish within {per_test:.0f}s in the {run.name} baseline run"
                )
            if "crash" in result:
                raise BaselineFailed(f"the {run.name} baseline run crashed: {result['crash']}")
            segment.result = result["result"]
        now = time.monotonic()
        written = min(run.written for run in runs)
        for run in runs:
            run.resume(now)
            run.split(now, written)
