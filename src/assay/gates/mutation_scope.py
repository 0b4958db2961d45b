"""Which code a file's gate 4 is held to: facts about the candidate and its targets that choose
the run (its own imports, or the modules its tests reach) and what the tests get from fixtures."""

from __future__ import annotations

from assay._assay_sandbox.mutation.protocol import SET_ASIDE
from assay.gates.base import GateContext
from assay.gates.reach import fixture_fed, through_package
from assay.gates.set_up import set_up_fed
from assay.model import Candidate
from assay.mutation.model import MutationResult
from assay.mutation.mutants import function_spans, generate


def defines_functions(ctx: GateContext, targets: list[str]) -> bool:
    """Whether a target defines a function: the worker scopes a run by these spans (a test
    reaches a module by running one), so against none a run can reach nothing."""
    return any(
        function_spans(ctx.workspace.path(t).read_text(encoding="utf-8", errors="replace"))
        for t in targets
    )


def via_package(ctx: GateContext, candidate: Candidate) -> bool:
    """The file reads names of a package it imports whole whose module defines no function
    (`import rfc3986; rfc3986.iri_reference(...)`): it reaches the project through it."""
    bare = [t for t in candidate.targets if not defines_functions(ctx, [t])]
    return bool(bare) and through_package(ctx.project, candidate.source, bare) is not None


def unrun(run: MutationResult) -> bool:
    """Whether the worker set mutants aside unrun (`entering`)."""
    return any(r.reason == SET_ASIDE for r in run.results.values())


def fed(ctx: GateContext, candidate: Candidate) -> bool:
    """A conftest fixture or a TestCase's setUp hands the file's tests an object of the project:
    they call it."""
    found = fixture_fed(ctx.project, candidate.rel, candidate.source)
    return found is not None or set_up_feeds(ctx, candidate) is not None


def set_up_feeds(ctx: GateContext, candidate: Candidate) -> str | None:
    """How a TestCase's setUp hands the file's tests the project's objects, or None: code it
    runs is out of scope, so tests that only read what it built reach no function."""
    return next(iter(set_up_fed(ctx.project, candidate.rel, candidate.source).values()), None)


def changed_mutants(
    sources: dict[str, str], changed: dict[str, list[int]] | None
) -> set[str] | None:
    """Ids of the mutants that touch a changed line (`verify --since`); None: every mutant."""
    if changed is None:
        return None
    return {
        m.id
        for rel, text in sources.items()
        for m in generate(rel, text)
        if any(n in changed.get(rel, ()) for n in range(m.line, m.end_line + 1))
    }
