"""What the baseline established, per test: outcome, duration, covered lines, module
state written."""

from __future__ import annotations

import bisect
from typing import TYPE_CHECKING

from .protocol import BaselineDone, BaselineSummary, BaselineTest

if TYPE_CHECKING:
    import pytest


class Baseline:
    """The passing tests and what each covers, reads and writes.

    A test counts as passing when it passed in the traced run and in the untraced one (a test whose
    outcome depends on tracing is left out and listed). Durations are untraced: the job's own (the
    green gate's run) when given, else the untraced run's; the traced duration where neither has
    the test or where it is shorter (the untraced run was then on a busier machine).
    """

    def __init__(
        self,
        items: list[pytest.Item],
        runs: dict[str, dict],
        durations: dict[str, float] | None,
        functions: dict[str, list[list]] | None,
    ) -> None:
        traced = runs["traced"]["tests"]
        untraced = runs["untraced"]["tests"] if "untraced" in runs else None
        self.tracer = runs["traced"]["tracer"]
        self.ids = [item.nodeid for item in items]
        self.position = {nodeid: i for i, nodeid in enumerate(self.ids)}
        self.outcome = {nodeid: t["outcome"] for nodeid, t in zip(self.ids, traced, strict=True)}
        self.unstable: list[str] = []
        if untraced is not None:
            for nodeid, t in zip(self.ids, untraced, strict=True):
                if t["outcome"] != self.outcome[nodeid]:
                    self.unstable.append(nodeid)
                    self.outcome[nodeid] = f"{self.outcome[nodeid]} traced, {t['outcome']} untraced"
        given = durations or {}
        self.traced_duration = {
            nodeid: t["duration"] for nodeid, t in zip(self.ids, traced, strict=True)
        }
        # the traced child's own costs beside its tests: probing the targets, fingerprinting
        # module state
        self.overhead = runs["traced"].get("overhead", {})
        # children each run took: more than one where a child waited and others took over its tail
        self.children = {name: run.get("children", 1) for name, run in runs.items()}
        # children paused, then needed
        self.resumed = {name: run.get("resumed", 0) for name, run in runs.items()}
        self.tests_s = {
            "traced": sum(t["duration"] for t in traced),
            "untraced": None if untraced is None else sum(t["duration"] for t in untraced),
        }
        self.duration = {}
        for i, nodeid in enumerate(self.ids):
            if nodeid in given:
                self.duration[nodeid] = float(given[nodeid])
            elif untraced is not None:
                self.duration[nodeid] = untraced[i]["duration"]
            else:
                self.duration[nodeid] = traced[i]["duration"]
            # never more than the traced run's: tracing only adds to a test's time, so a longer
            # untraced one was taken on a busier machine (croniter's `test_not_long_time`: 26 s
            # in gate 2 beside gate 3, 4 s traced), and a deadline of twice that on CPU let
            # each mutant that slowed it run until the test's own 80 s limit failed it: 100-170 s
            self.duration[nodeid] = min(self.duration[nodeid], traced[i]["duration"])
        passing = [i for i, nodeid in enumerate(self.ids) if self.outcome[nodeid] == "passed"]
        self.tests = sorted(
            (self.ids[i] for i in passing), key=lambda nodeid: self.duration[nodeid]
        )
        self.covering: dict[tuple[str, int], list[str]] = {}  # (rel, line) -> ids, fastest first
        self.call_lines: dict[str, list] = {}
        self.writes: dict[str, set[tuple[str, str]]] = {}  # id -> (module key, name) it changed
        # (module key, name) -> positions of the passing tests whose setup reset it to its value
        # from before the first test (`ProjectState.resets`), in collection order
        self.resets: dict[tuple[str, str], list[int]] = {}
        # target lines each resetting test ran before its own code (fixtures, setUp)
        self.setup_lines: dict[str, set[tuple[str, int]]] = {}
        for nodeid in self.tests:
            t = traced[self.position[nodeid]]
            for rel, line in t["lines"]:
                self.covering.setdefault((rel, line), []).append(nodeid)
            self.call_lines[nodeid] = t["call"]
            if t["writes"]:
                self.writes[nodeid] = {(key, name) for key, name in t["writes"]}
            for key, name in t.get("resets", ()):
                self.resets.setdefault((key, name), []).append(self.position[nodeid])
            if t.get("resets"):
                self.setup_lines[nodeid] = {(rel, line) for rel, line in t.get("setup", ())}
        for positions in self.resets.values():
            positions.sort()
        self.scope = _scope(self.call_lines, functions) if functions is not None else None

    def reset_after(
        self, writer: str, global_: tuple[str, str], mutated: set[tuple[str, int]]
    ) -> int:
        """The position of the first test after `writer` whose setup reset `global_` - the last
        test a write of it by `writer` can reach - or past the last test (no reset). A test whose
        setup ran a `mutated` line (rel, line) may not reset under the mutant (the mutant may be
        the reset itself): its reset is not trusted."""
        positions = self.resets.get(global_, ())
        at = self.position[writer]
        for q in positions[bisect.bisect_right(positions, at) :]:
            if not self.setup_lines.get(self.ids[q], set()) & mutated:
                return q
        return len(self.ids)

    def event(self, seconds: dict[str, float]) -> BaselineDone:
        """The `baseline` event: outcomes and durations, covering tests per line, scope,
        run times."""
        line_tests: dict[str, dict[int, int]] = {}
        for (rel, line), ids in self.covering.items():
            line_tests.setdefault(rel, {})[line] = len(ids)
        traced_s, untraced_s = seconds.get("traced", 0.0), seconds.get("untraced")
        untraced_tests_s = self.tests_s["untraced"]
        summary = BaselineSummary(
            tracer=self.tracer,
            traced_s=round(traced_s, 3),
            untraced_s=None if untraced_s is None else round(untraced_s, 3),
            tests_traced_s=round(self.tests_s["traced"], 3),
            tests_untraced_s=None if untraced_tests_s is None else round(untraced_tests_s, 3),
            overhead=self.overhead,
            children=self.children,
            resumed=self.resumed,
            unstable=self.unstable,
            state_writers=sorted(self.writes),
        )
        return BaselineDone(
            duration_s=round(max(seconds.values()), 3),
            summary=summary,
            tests=[
                BaselineTest(nodeid, self.outcome[nodeid], round(self.duration[nodeid], 5))
                for nodeid in self.ids
            ],
            state_names=sorted(
                {f"{key}:{name}" for names in self.writes.values() for key, name in names}
            ),
            line_tests=line_tests,
            scope={rel: sorted(names) for rel, names in self.scope.items()}
            if self.scope is not None
            else None,
        )


def _scope(call_lines: dict[str, list], spans: dict) -> dict[str, set[str]]:
    """Functions the tests execute in their call phase: the innermost def around each line."""
    scope: dict[str, set[str]] = {}
    for lines in call_lines.values():
        for rel, line in lines:
            best = None
            for name, first, last in spans.get(rel, ()):
                if first <= line <= last and (best is None or first >= best[1]):
                    best = (name, first)
            if best:
                scope.setdefault(rel, set()).add(best[0])
    return scope
