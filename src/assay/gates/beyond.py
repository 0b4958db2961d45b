"""Tests that kill no mutant of the modules their file imports, tried on those they hand work to.

Gate 4 scores a file on the project modules it imports. A test's subject is often further down:
cron-descriptor's `with pytest.raises(MissingFieldError): ExpressionDescriptor("")` checks
`ExpressionParser.parse`, which the test file never imports, and was `low_value` "kills none of
the 4 mutants of the code it runs" (the constructor's option handling, which it does not check).
Before a test is called so, it runs on the mutants of the project modules its file's imports
import in turn (in the functions it executes, at most `mutation.prove` of them, as any test left
to prove): a kill there is a note, not a verdict. The file's score stays its imports' own.
"""

from __future__ import annotations

from collections.abc import Callable

from assay.errors import RunFailed
from assay.gates.base import GateContext
from assay.mutation.attribution import attribute, function_of
from assay.mutation.model import COUNTED, MutationResult
from assay.project import Project


def downstream(project: Project, targets: list[str]) -> list[str]:
    """The project modules the targets import, and those import, less the targets: where the
    targets hand work on to."""
    return [m for m in project.closure(targets) if m not in targets]


def unproven(run: MutationResult, passing: list[str], left_out: set[str]) -> list[str]:
    """The test functions `judge` would call `low_value` for killing nothing, less `left_out`
    (short names another rule answers: a process it starts)."""
    if not any(r.status in COUNTED for _, r in run.scored):
        return []
    low = attribute(run, passing, exact=False).low_value
    functions = dict.fromkeys(function_of(t) for t in low)
    return [f for f in functions if f.split("::", 1)[-1] not in left_out]


Measure = Callable[[list[str], list[str]], MutationResult]


def proved_beyond(
    run: MutationResult, ctx: GateContext, targets: list[str], left_out: set[str], measure: Measure
) -> dict[str, str]:
    """Test function -> its note, for the tests of `run` that kill nothing there but kill a
    mutant of the modules `targets` hand work on to (`measure(targets, tests)` runs them there)."""
    low = unproven(run, list(ctx.facts.passing_tests or []), left_out)
    if not low:
        return {}
    try:
        return beyond(low, downstream(ctx.project, targets), measure)
    except RunFailed:  # no evidence: the tests stay as the file's own run left them
        return {}


def beyond(functions: list[str], modules: list[str], measure: Measure) -> dict[str, str]:
    """Test function -> its note, for those of `functions` that kill a mutant of `modules`
    (`measure(targets, tests)` runs them there)."""
    if not functions or not modules:
        return {}
    run = measure(modules, functions)
    where: dict[str, set[str]] = {}
    for m, r in run.scored:
        for f in {function_of(t) for t in r.killed_by}:
            where.setdefault(f, set()).add(m.file)
    return {
        f: (
            "kills no mutant of the modules its file imports, but kills one of "
            f"{', '.join(sorted(files))}, which they hand"
            " work on to (out of the file's scope: not in its score)"
        )
        for f, files in where.items()
        if f in functions
    }
