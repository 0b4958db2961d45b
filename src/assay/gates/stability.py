"""Gate 3: the same tests, run again, alone and in another order, must give the same outcomes.

A test whose outcome changes is `flaky`. Flaky tests are reported, never repaired by reruns. Where
the runner can (`run_plan`), all runs share one collected session and each runs in a fork of it: the
state a fresh process has after collection, without paying for start-up and collection again.

Where reruns are forks, a file whose tests are fast is rerun more than `reruns` times: as many
times as fit in `budget_s` (at most `MAX_RERUNS`). A few reruns are a coin toss against a test that
fails one run in four (unseeded randomness, the clock): 6 runs miss it 18% of the time, 40 runs
almost never; and a fork of a fast file costs about 10 ms.
"""

from __future__ import annotations

import ast
import time

from assay.execution.runner import Order, RunStep, run_plan
from assay.feedback import compose, trim
from assay.gates.base import BaseGate, GateContext
from assay.model import Candidate, GateResult, GateStatus, TestOutcome, Verdict

HEADER = "REJECT: Gate 3 — FLAKY TESTS"
HINT = (
    "Flaky tests are dropped, not retried: remove the dependence on order, shared state, time, "
    "randomness or the environment."
)
RISKY_MODULES = {
    "socket",
    "requests",
    "httpx",
    "urllib",
    "aiohttp",
    "http",
    "subprocess",
    "multiprocessing",
    "shutil",
    "tempfile",
    "threading",
    "asyncio",
    "smtplib",
    "ftplib",
    "sqlite3",
}
RISKY_NAMES = {"open", "tmp_path", "tmpdir", "tmp_path_factory", "monkeypatch"}
MAX_RERUNS = 50
STEP_OVERHEAD_S = 0.01  # a forked rerun's own cost beside its tests (fork, results, wait)
# pytest's own cost per test beside the call the durations time (set-up, reports): 455 cases of
# inflection take 0.25 s a run where their durations add up to 0.02 s
PER_TEST_S = 0.0005
FORK_S = 0.01  # a test alone: a fork of the collected session


def rerun_count(configured: int, budget_s: float, durations: dict[str, float] | None) -> int:
    """`configured` reruns, or more when the file's tests are fast enough that more fit in
    `budget_s` (the green run's durations tell, plus pytest's own cost per test). A count, not a
    clock: the same file gets the same reruns on a busy machine. `configured` 0 turns reruns off."""
    if configured == 0 or durations is None:
        return configured
    per_run = sum(durations.values()) + PER_TEST_S * len(durations) + STEP_OVERHEAD_S
    return max(configured, min(MAX_RERUNS, int(budget_s / per_run)))


def alone_count(budget_s: float, durations: dict[str, float] | None) -> int | None:
    """How many tests the isolated step runs alone (None: all): as many forks as fit in
    `budget_s`, each test function at least once (`runner.alone`)."""
    if durations is None:
        return None
    return int(budget_s / (FORK_S + PER_TEST_S + sum(durations.values()) / max(1, len(durations))))


def risk_of(source: str) -> str | None:
    """Why a test file deserves more reruns (integration marker, network, filesystem,
    subprocesses)."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return None
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr == "integration":
            return "marked integration"
        if isinstance(node, ast.Import | ast.ImportFrom):
            for name in imported(node):
                if name.split(".")[0] in RISKY_MODULES:
                    return f"uses {name.split('.')[0]}"
        if isinstance(node, ast.Name) and node.id in RISKY_NAMES:
            return f"uses {node.id}"
        if isinstance(node, ast.arg) and node.arg in RISKY_NAMES:
            return f"uses {node.arg}"
    return None


class StabilityGate(BaseGate):
    name = "stability"
    needs = ("passing_tests",)

    def run(self, candidate: Candidate, ctx: GateContext) -> GateResult:
        start = time.monotonic()
        cfg = ctx.settings.stability
        passing = list(ctx.facts.passing_tests or [])
        observations: dict[str, list[tuple[str, str, str]]] = {t: [] for t in passing}
        risk = risk_of(candidate.source)
        reruns = cfg.reruns_risky if risk else cfg.reruns
        # cheap reruns when fast: forks of one session (not a JVM's class loaders, nor processes)
        planned = getattr(ctx.runner, "run_plan", None) is not None
        forked = planned and getattr(ctx.runner, "plan_forks", True)
        more = rerun_count(reruns, cfg.budget_s, ctx.facts.test_durations) if forked else reruns
        # each run the last once a test did not pass in it: the file is flaky already
        plan: list[tuple[str, RunStep]] = [
            (f"rerun {i + 1}", RunStep(last_if_failed=True)) for i in range(more)
        ]
        if cfg.random_order:
            step = RunStep(Order.RANDOM, cfg.seed, last_if_failed=True)
            plan.append((f"random order (seed {cfg.seed})", step))
        if cfg.isolation and passing:
            # a fork per test: each function's first case, its other cases as the budget allows
            limit = alone_count(cfg.budget_s, ctx.facts.test_durations) if forked else None
            plan.append(("alone", RunStep(isolate=True, last_if_failed=True, alone=limit)))
        runs = run_plan(
            ctx.runner, ctx.workspace, [candidate.rel], [step for _, step in plan], passing
        )
        # fewer runs than steps: the plan stopped at the first run a test did not pass
        for (label, _), run in zip(plan, runs, strict=False):
            for nodeid in passing:
                rec = run.tests.get(nodeid)
                if rec is not None:
                    observations[nodeid].append((label, rec.outcome.value, rec.message))
                elif run.crash and nodeid == run.running:
                    observations[nodeid].append((label, "crashed", run.crash))
        details = {
            "runs": 1 + len(runs),
            "risk": risk,
            "seed": cfg.seed,
            "plan": [p[0] for p in plan[: len(runs)]],
        }
        flaky: list[TestOutcome] = []
        body: list[str] = []
        for nodeid, obs in observations.items():
            bad = [o for o in obs if o[1] != "passed"]
            if not bad:
                continue
            total = len(obs) + 1  # + the green run, which passed
            first = trim(bad[0][2], 4)
            reason = f"passed {total - len(bad)} of {total} runs; {bad[0][1]} when {bad[0][0]}"
            flaky.append(TestOutcome(nodeid, Verdict.FLAKY, self.name, reason))
            shown = first.splitlines()[-1 if candidate.language == "python" else 0] if first else ""
            body.append(f"{nodeid}: {reason}" + (f"\n  {shown}" if shown else ""))
        elapsed = time.monotonic() - start
        if flaky:
            details["flaky"] = [t.id for t in flaky]
            return GateResult(
                self.name,
                GateStatus.REJECT,
                elapsed,
                compose(HEADER, body, HINT),
                verdict=Verdict.FLAKY,
                tests=flaky,
                details=details,
            )
        return GateResult(self.name, GateStatus.PASS, elapsed, details=details)


def imported(node: ast.Import | ast.ImportFrom) -> list[str]:
    """The modules an import statement names (`from a.b import c`: a.b)."""
    return [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""]
