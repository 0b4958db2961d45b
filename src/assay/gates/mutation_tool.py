"""Gate 4 outside Python: the language's own mutation tool (`assay.mutation.tools`) on the scratch
copy, scoped to the candidate's test file and the source files it imports; and the verdict both
paths share (thresholds by code class, low-value tests, survivors in feedback).

A missing tool or toolchain, or a tool run that gives no result, makes the file `unvalidated` with
one line naming it, never rejected.
"""

from __future__ import annotations

import time
from typing import Any

from assay.config.mutation import CodeClass
from assay.errors import RunFailed
from assay.feedback import compose
from assay.gates.base import GateContext
from assay.model import Candidate, GateResult, GateStatus, TestOutcome, Verdict
from assay.mutation.attribution import attribute, module_limits, module_scores
from assay.mutation.codeclass import threshold_for
from assay.mutation.model import COUNTED, MutationResult
from assay.mutation.summary import details, feedback
from assay.mutation.tools import REGISTRY, ToolRequest

WARN_HEADER = "WARN: Gate 4 — TESTS THAT CATCH NOTHING"
WARN_HINT = (
    "Each of these passes on every mutant of the code it runs: "
    "assert on what that code returns or does, or drop it."
)


def run_tool(gate: str, candidate: Candidate, ctx: GateContext) -> GateResult:
    start = time.monotonic()
    tool = REGISTRY[candidate.language]
    targets = [t for t in candidate.targets if ctx.workspace.path(t).is_file()]
    if not targets:
        reason = "no target: the file imports no source file of the project"
        return GateResult(gate, GateStatus.SKIP, 0.0, details={"reason": reason})
    request = ToolRequest(
        root=ctx.workspace.project,
        project=ctx.project,
        settings=ctx.settings,
        sandbox=ctx.sandbox,
        tests=(candidate.rel,),
        targets=tuple(targets),
        timeout_s=max(ctx.settings.sandbox.timeout_s, 600),
        workspace=ctx.workspace,
        passing=tuple(ctx.facts.passing_tests or ()),
        executed_only=True,
    )
    why = tool.unavailable(request)
    if why is not None:  # as for a language with no tool: no verdict
        reason = f"not available for this {candidate.language} project yet: {why}"
        return GateResult(gate, GateStatus.SKIP, 0.0, details={"reason": reason})
    problem = tool.problem(request)
    try:
        if problem is None:
            run = tool.run(request)
    except RunFailed as err:
        problem = f"{tool.name}: {str(err)[:500]}"
    if problem is not None:
        return GateResult(
            gate,
            GateStatus.SKIP,
            time.monotonic() - start,
            f"SKIP: Gate 4 — MUTATION NOT MEASURED\n{problem}",
            verdict=Verdict.UNVALIDATED,
            details={"reason": problem},
        )
    conf = ctx.settings.mutation
    code_class, threshold = threshold_for(run.sources, conf, ctx.project.packages)
    info = details(run, threshold, code_class, conf.max_survivors)
    info["tool"] = tool.name
    limits = module_limits(run.sources, conf, ctx.project.packages)
    return judge(
        gate,
        run,
        threshold,
        limits,
        ctx,
        info,
        start,
        exact=tool.per_test_kills and run.per_test_kills,
    )


def judge(
    gate: str,
    run: MutationResult,
    threshold: float,
    limits: dict[str, tuple[CodeClass, float]],
    ctx: GateContext,
    info: dict[str, Any],
    start: float,
    exact: bool = True,
    diff: bool = False,
) -> GateResult:
    """The verdict of a measured run: each module against its threshold, the tests that kill
    nothing (`low_value`), the redundant ones (a note; `exact`: the run has whole kill sets).
    `diff`: only the changed lines were mutated, and no test is of low value for them."""
    conf = ctx.settings.mutation
    # answered from the cache, not run (none with --no-cache, nor after the interpreter's
    # installed set changed)
    info["cached_mutants"] = sum(r.cached for r in run.results.values())
    if run.unsampled:  # the score is over a sample
        info["not_sampled"] = run.unsampled
    if run.early_stopped:  # the pass was certain before the whole sample ran
        info["early_stop"] = run.early_stopped
    modules = module_scores(run, limits)
    if len(modules) > 1:
        info["modules"] = modules
    judged = attribute(run, list(ctx.facts.passing_tests or []), exact)
    # no mutant in scope: nothing a test could have killed, so no test is of low value for it
    counted = any(r.status in COUNTED for _, r in run.scored) and not diff
    low_value = judged.low_value if counted else {}
    outcomes = [TestOutcome(t, Verdict.LOW_VALUE, gate, why) for t, why in low_value.items()]
    if low_value:
        info["low_value_tests"] = len(low_value)
    if judged.redundant:
        info["redundant_tests"] = len(judged.redundant)
    if all(m["passed"] for m in modules):
        if not low_value:
            return GateResult(
                gate,
                GateStatus.PASS,
                time.monotonic() - start,
                details=info,
                notes=judged.redundant,
            )
        body = [f"{t}: {why}" for t, why in low_value.items()]
        return GateResult(
            gate,
            GateStatus.WARN,
            time.monotonic() - start,
            compose(WARN_HEADER, body, WARN_HINT),
            tests=outcomes,
            details=info,
            notes=judged.redundant,
        )
    return GateResult(
        gate,
        GateStatus.REJECT,
        time.monotonic() - start,
        feedback(run, threshold, conf.max_survivors, modules),
        tests=outcomes,
        details=info,
        notes=judged.redundant,
    )
