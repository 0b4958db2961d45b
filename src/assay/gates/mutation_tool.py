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
from assay.gates.compiled import compiled_modules, compiled_note
from assay.gates.raises_only import hint
from assay.gates.spawning import afresh
from assay.languages import LANGUAGES
from assay.model import Candidate, GateResult, GateStatus, TestOutcome, Verdict
from assay.mutation.attribution import (
    REACHES_NONE,
    attribute,
    function_of,
    module_limits,
    module_scores,
)
from assay.mutation.budgeted import budget_note, too_few, undecided
from assay.mutation.codeclass import threshold_for
from assay.mutation.model import COUNTED, MutationResult
from assay.mutation.summary import details, feedback
from assay.mutation.tools import REGISTRY, ToolRequest

# a test that kills nothing in the worker but starts a process, where the project may run
UNSEEN = "gate 4 cannot judge it: it runs code in another process"
# `runpy`, a module imported again: the project's code run again from its source, not the
# functions gate 4 mutates
AFRESH = "gate 4 cannot judge it: it runs the project's code afresh from its source"
WARN_HEADER = "WARN: Gate 4 — TESTS THAT CATCH NOTHING"
WARN_HINT = (
    "Each of these passes on every mutant of the code it runs: "
    "assert on what that code returns or does, or drop it."
)
GAP_HEADER = "UNVALIDATED: Gate 4 — SCORE NOT JUDGED"
NO_MUTANT_THERE = (
    "gate 4 cannot judge it: the project code it runs has no mutant (the tool's operators change "
    "nothing there)"
)
# gate 4 passed a file without one mutant to run: said, never a silent ✔ (emoji's test_dict.py)
MEASURED_NOTHING = (
    "measured nothing: no mutant in scope (the tests run no function of the project gate 4 "
    "mutates in their own calls; what they check is data or code it does not see)"
)
REJECTED = "REJECT: Gate 4 — LOW MUTATION SCORE"  # `summary.feedback`'s header


def key(test: str) -> str:
    """A node id's test function as the file's static readers name it (`Class::test_x`)."""
    return function_of(test).split("::", 1)[-1]


def left_unjudged(ctx: GateContext) -> dict[str, list[str]]:
    """What the environment kept from running, by earlier gates' `environment` details (missing
    thing -> tests): a score below the threshold without those tests says nothing of the file."""
    out: dict[str, list[str]] = {}
    for result in ctx.earlier().values():
        env = result.details.get("environment")
        if isinstance(env, dict):
            for missing, tests in (env.get("missing") or {}).items():
                if tests:
                    out.setdefault(missing, []).extend(tests)
    return out


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
    if problem is None and run.unmutated and not any(r.status in COUNTED for _, r in run.scored):
        # the targets it could mutate gave nothing to count: the file is judged on none of its code
        rest = [t for t in targets if t not in run.unmutated]
        problem = next(iter(run.unmutated.values())) + (
            f"; {', '.join(rest)} {'has' if len(rest) == 1 else 'have'} no mutant to count"
            if rest
            else ""
        )
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
    if run.unmutated:
        info["not_mutated"] = run.unmutated
    limits = module_limits(run.sources, conf, ctx.project.packages)
    return judge(
        gate,
        run,
        threshold,
        limits,
        ctx,
        info,
        start,
        exact=tool.per_test_kills and run.per_test_kills and run.complete_kills,
        spawning=LANGUAGES[candidate.language].spawning_tests(candidate.source),
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
    spawning: dict[str, str] | None = None,
    constants: dict[str, str] | None = None,
    fed: dict[str, str] | None = None,
    beyond: dict[str, str] | None = None,
    raising: dict[str, str] | None = None,
) -> GateResult:
    """The verdict of a measured run: each module against its threshold, the tests that kill
    nothing (`low_value`), the redundant ones (a note; `exact`: the run has whole kill sets).
    `diff`: only the changed lines were mutated, and no test is of low value for them.
    `spawning`: test function (`Class::test_x`) -> how it starts a process: killing nothing here,
    it may test the project there, out of sight; a note says so, not `low_value`.
    `constants`: test function -> why it is `low_value` when no mutant counts (it reads only
    module-level values of the project, `gates.constants`).
    `fed`: test function -> the conftest fixture that hands it the project's object: reaching no
    mutant, it ran the project's code out of gate 4's scope; a note says so, not `low_value`.
    `beyond`: test function -> the note of one that kills a mutant only in modules its file's
    imports hand work on to (`gates.beyond`), not `low_value`.
    `raising`: test function -> the exception it only checks is raised (`gates.raises_only`):
    killing nothing, its reason says why."""
    conf = ctx.settings.mutation
    # answered from the cache, not run (none with --no-cache, nor after the interpreter's
    # installed set changed)
    info["cached_mutants"] = sum(r.cached for r in run.results.values())
    if run.unsampled:  # the score is over a sample
        info["not_sampled"] = run.unsampled
    if run.early_stopped:  # the pass was sure before the whole sample ran
        info["early_stop"] = run.early_stopped
    cut = run.budget_cut
    if cut is not None:  # the time budget shrank the sample: said, in the JSON and the notes
        info["budget"] = {
            "kept": cut.kept,
            "planned": cut.planned,
            "estimate_s": cut.estimate_s,
            "budget_s": cut.budget_s,
        }
        info["notes"] = [*info.get("notes", []), budget_note(cut)]
    modules = module_scores(run, limits)
    if len(modules) > 1:
        info["modules"] = modules
    judged = attribute(run, list(ctx.facts.passing_tests or []), exact)
    # no mutant in scope: nothing a test could have killed, so no test is of low value for it
    counted = any(r.status in COUNTED for _, r in run.scored) and not diff
    low_value = judged.low_value if counted else {}
    if not counted and not diff and constants:
        for t in ctx.facts.passing_tests or []:
            why = constants.get(function_of(t).split("::", 1)[-1])
            if why:
                low_value[t] = why
    notes = {**judged.redundant, **judged.unjudged}
    if not run.scored and not diff:  # the code they run has no mutant at all (a Go `switch`)
        notes.update({t: NO_MUTANT_THERE for t in run.ran_targets if t not in low_value})
    for t in [t for t, why in low_value.items() if why == REACHES_NONE and t in run.ran_targets]:
        # it ran the project's code, where the tool has nothing to change (semver's `isX`, a
        # switch returning booleans, has no mutant under the Go engine's operators)
        del low_value[t]
        notes[t] = NO_MUTANT_THERE
    reaching_none = [t for t, why in low_value.items() if why == REACHES_NONE]
    if reaching_none and (found := compiled_modules(ctx.project.root, list(limits))):
        for t in reaching_none:  # wrapt's C `FunctionWrapper`
            del low_value[t]
            notes[t] = compiled_note(found)
    for t in [t for t, why in low_value.items() if why == REACHES_NONE]:
        how = (fed or {}).get(function_of(t).split("::", 1)[-1])
        if how:
            del low_value[t]
            notes[t] = (
                f"gate 4 cannot judge it: it {how}, and none of the code it runs in gate 4's scope"
                f" ({', '.join(sorted(limits))}) has a mutant"
            )
    for t in list(low_value):
        how = (spawning or {}).get(function_of(t).split("::", 1)[-1])
        if how:
            del low_value[t]
            notes[t] = (
                f"{AFRESH} ({how}): its mutants there are not measured"
                if afresh(how)
                else f"{UNSEEN} ({how}): its mutants there are not measured"
            )
    for t in list(low_value):
        if why := (beyond or {}).get(function_of(t)):
            del low_value[t]
            notes[t] = why
    for t, why in low_value.items():
        if why.startswith("kills none") and (exc := (raising or {}).get(key(t))):
            low_value[t] = why + hint(exc)
    outcomes = [TestOutcome(t, Verdict.LOW_VALUE, gate, why) for t, why in low_value.items()]
    if low_value:
        info["low_value_tests"] = len(low_value)
    if judged.redundant:
        info["redundant_tests"] = len(judged.redundant)
    if all(m["passed"] for m in modules):
        if not low_value and not run.scored and not diff:
            said = MEASURED_NOTHING
            if spawning:  # num2words' test_cli.py: `import num2words`, the CLI run by delegator
                test, how = next(iter(spawning.items()))
                said += (
                    f"; {len(spawning)} of its tests run code in a process they start ({test} "
                    f"{how}), out of gate 4's sight"
                )
            info["notes"] = [*info.get("notes", []), said]
        if not low_value:
            return GateResult(
                gate,
                GateStatus.PASS,
                time.monotonic() - start,
                details=info,
                notes=notes,
            )
        body = [f"{t}: {why}" for t, why in low_value.items()]
        # every test reads values and none runs code: the file checks no behaviour of the project
        worthless = not counted and set(low_value) >= set(ctx.facts.passing_tests or [])
        return GateResult(
            gate,
            GateStatus.WARN,
            time.monotonic() - start,
            compose(WARN_HEADER, body, WARN_HINT),
            verdict=Verdict.LOW_VALUE if worthless else None,
            tests=outcomes,
            details=info,
            notes=notes,
        )
    said = feedback(run, threshold, conf.max_survivors, modules)
    if cut is not None and (unsure := undecided(modules)):
        # the budget, not the tests, left too few mutants to tell a fail
        line = too_few(cut, unsure)
        return GateResult(
            gate,
            GateStatus.SKIP,
            time.monotonic() - start,
            f"{GAP_HEADER}\n{line}\n{said.partition(chr(10))[2]}",
            verdict=Verdict.UNVALIDATED,
            tests=outcomes,
            details={**info, "reason": line},
            notes=notes,
        )
    if gaps := left_unjudged(ctx):
        # the survivors may be the unrun tests' to kill: the environment's fault, not the file's
        n = sum(len(t) for t in gaps.values())
        head, _, rest = said.partition("\n")
        line = (
            f"{n} of the file's tests did not run ({'; '.join(gaps)}): the survivors below may be"
            " theirs to kill. Run again where they can run (gate 2 says what is missing)."
        )
        return GateResult(
            gate,
            GateStatus.SKIP,
            time.monotonic() - start,
            f"{head.replace(REJECTED, GAP_HEADER)}\n{line}\n{rest}",
            verdict=Verdict.UNVALIDATED,
            tests=outcomes,
            details={**info, "reason": line},
            notes=notes,
        )
    return GateResult(
        gate,
        GateStatus.REJECT,
        time.monotonic() - start,
        said,
        tests=outcomes,
        details=info,
        notes=notes,
    )
