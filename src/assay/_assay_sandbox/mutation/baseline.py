"""The baseline: every test run once under the line tracer, before any mutant.

It tells which tests cover each line (only those run for a mutant there), how long each takes (fastest
first; the timeout), and which functions the tests execute in their call phase (the verify gate's scope).
"""

from __future__ import annotations

import time


def traced_run(tracer, items) -> list[dict]:
    """Run every test (in a forked child) and record its outcome, duration and lines."""
    from _pytest.runner import runtestprotocol

    out = []
    tracer.start()
    for i, item in enumerate(items):
        nxt = items[i + 1] if i + 1 < len(items) else None
        start = time.perf_counter()
        reports = runtestprotocol(item, nextitem=nxt, log=False)
        elapsed = time.perf_counter() - start
        lines, call = tracer.take()
        if any(r.failed for r in reports):
            outcome = "failed"
        elif any(r.skipped for r in reports):
            outcome = "skipped"
        else:
            outcome = "passed"
        out.append({"id": item.nodeid, "outcome": outcome, "duration": elapsed,
                    "lines": sorted(lines), "call": sorted(call)})
    tracer.stop()
    return out


class Baseline:
    """The passing tests of a traced run, fastest first, and the lines each covers."""

    def __init__(self, results: list[dict], functions: dict | None):
        self.results = results
        self.tests = sorted((t for t in results if t["outcome"] == "passed"), key=lambda t: t["duration"])
        self.duration = {t["id"]: t["duration"] for t in self.tests}
        self.covering: dict[tuple[str, int], list[str]] = {}  # (rel, line) -> ids, fastest first
        for t in self.tests:
            for rel, line in t["lines"]:
                self.covering.setdefault((rel, line), []).append(t["id"])
        self.scope = _scope(self.tests, functions) if functions is not None else None

    def event(self, took: float) -> dict:
        """The `baseline` event: outcomes and durations, covering tests per line, scope."""
        line_tests: dict[str, dict[int, int]] = {}
        for (rel, line), ids in self.covering.items():
            line_tests.setdefault(rel, {})[line] = len(ids)
        return {
            "event": "baseline",
            "duration_s": round(took, 3),
            "tests": [{"id": t["id"], "outcome": t["outcome"], "duration": round(t["duration"], 5)}
                      for t in self.results],
            "line_tests": line_tests,
            "scope": {rel: sorted(names) for rel, names in self.scope.items()} if self.scope is not None else None,
        }


def _scope(tests, spans: dict) -> dict[str, set[str]]:
    """Functions the tests execute in their call phase: the innermost def around each line."""
    scope: dict[str, set[str]] = {}
    for t in tests:
        for rel, line in t["call"]:
            best = None
            for name, first, last in spans.get(rel, ()):
                if first <= line <= last and (best is None or first >= best[1]):
                    best = (name, first)
            if best:
                scope.setdefault(rel, set()).add(best[0])
    return scope
