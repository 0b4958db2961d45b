"""What a mutation run comes to: the numbers, the verdict against a threshold, the
writer's feedback."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from assay._assay_sandbox.mutation.protocol import REBUILT, UNAPPLIED
from assay.mutation.briefs import brief, closest_tests
from assay.mutation.model import RECEIVED, Mutant, MutantResult, MutationResult, Status


@dataclass
class MutateReport:
    """What `assay mutate` comes to: the run, the threshold it is held to and why, and
    the verdict."""

    run: MutationResult
    threshold: float
    code_class: str
    # `mutate --since`: what the change put in scope (`assay.diff.mutants.MutationScope.to_json`)
    diff_scope: dict[str, Any] | None = None
    # mutant id -> a call the original and the mutant disagree on (`writers.offline.witness`)
    witnesses: dict[str, dict[str, str]] = field(default_factory=dict)

    @property
    def passed(self) -> bool:
        return passes(self.run, self.threshold)

    @property
    def exit_code(self) -> int:
        return 0 if self.passed else 1

    def details(self, max_survivors: int = 10) -> dict[str, Any]:
        out = details(self.run, self.threshold, self.code_class, max_survivors)
        for b in out["briefs"]:  # a witness says exactly what to assert
            if found := self.witnesses.get(b["id"]):
                b["witness"], b["must_assert"] = found, found["assert"]
        return out


def survivor_json(m: Mutant) -> dict[str, Any]:
    return {
        "file": m.file,
        "line": m.line,
        "original": m.before,
        "mutated": m.after,
        "operator": m.operator,
    }


def seen(r: MutantResult) -> bool:
    """Whether gate 4's observer (StrykerJS) saw what a test received differently (a survivor)."""
    return r.reason.startswith(RECEIVED)


def details(
    run: MutationResult, threshold: float, code_class: str, max_survivors: int = 10
) -> dict[str, Any]:
    """The gate's / JSON report's numbers; `score` and `threshold` in percent."""
    c = run.counts
    score = run.score
    scope = {
        "functions": sorted(
            f"{rel}::{name}" for rel, names in (run.scope or {}).items() for name in names
        ),
        "mutants": len(run.results),
        "whole_targets": run.scope is None,
    }
    return {
        "score": None if score is None else round(score * 100, 1),
        "threshold": threshold,
        "code_class": code_class,
        "killed": c["Killed"],
        "survived": c["Survived"],
        "no_coverage": c["NoCoverage"],
        "timeout": c["Timeout"],
        "runtime_error": c["RuntimeError"],
        "compile_error": c["CompileError"],
        "ignored": c["Ignored"],
        "survivors": [
            {**survivor_json(m), **({"received": r.reason[len(RECEIVED) :]} if seen(r) else {})}
            for m, r in run.survivors()[:max_survivors]
        ],
        # what a test that kills each survivor must do (`briefs`)
        "briefs": [
            brief(m, r, run.per_test_coverage).to_json() for m, r in run.survivors()[:max_survivors]
        ],
        # gate 4: changed nothing the tests receive, not counted (`exercised`)
        "unexercised": c["Unexercised"],
        "unexercised_mutants": [
            {**survivor_json(m), "reason": r.reason} for m, r in run.unexercised()[:max_survivors]
        ],
        "scope": scope,
        **({"observer": asdict(run.observer)} if run.observer else {}),
        **(
            {"unobserved": {"tests": run.unobserved[0], "limit": run.unobserved[1]}}
            if run.unobserved
            else {}
        ),
    }


def passes(run: MutationResult, threshold: float) -> bool:
    """No scored mutant at all passes: there is nothing a test could be charged for."""
    return run.score is None or run.score * 100 + 1e-9 >= threshold


def feedback(
    run: MutationResult,
    threshold: float,
    max_survivors: int = 10,
    modules: list[dict[str, Any]] | None = None,
) -> str:
    """DESIGN.md's Gate 4 feedback: the surviving mutants on the most-executed lines first, each
    with the tests closest to it (they run its line): the tests to extend. With `modules`, the
    failing modules' own scores."""
    failing = [m for m in modules or [] if not m["passed"]]
    if len(failing) == 1 and len(modules or []) == 1 or not failing:
        pct = round((run.score or 0) * 100)
        lines = [f"REJECT: Gate 4 — LOW MUTATION SCORE ({pct}% < {threshold:g}%)"]
    else:
        scores = ", ".join(
            f"{m['file']} {m['score']:g}% < {m['threshold']:g}% ({m['code_class']})"
            if "pooled" not in m
            else f"{m['file']} {m['score']:g}% of {m['mutants']}, with the other modules "
            f"{m['pooled']:g}% < {m['threshold']:g}% ({m['code_class']})"
            for m in failing
        )
        lines = [f"REJECT: Gate 4 — LOW MUTATION SCORE ({scores})"]
    # a pooled module fails with the others' survivors (intervaltree's interval.py, 3 of 4 killed,
    # failed for intervaltree.py's 14): all of them are what to kill
    pooled = any("pooled" in m for m in failing)
    shown = None if pooled else {m["file"] for m in failing} or None
    survivors = [(m, r) for m, r in run.survivors() if shown is None or m.file in shown]
    for i, (m, r) in enumerate(survivors[:max_survivors], 1):
        note = " (no test runs this line)" if r.status is Status.NO_COVERAGE else ""
        lines.append(f"{i}. File: {m.file}, line {m.line}{note}")
        lines.append(f"   Mutation: `{m.before}` → `{m.after}` ({m.operator})")
        if near := closest_tests(r, run.per_test_coverage)[:2]:
            lines.append(f"   Closest tests: {', '.join(near)}")
        b = brief(m, r, run.per_test_coverage)
        lines.append(f"   A killing test asserts {b.must_assert} (e.g. {b.suggested_test})")
    lines.append("Add test cases that fail under these mutations.")
    lines += unexercised_note(run)
    if run.unsampled:
        lines.append(
            f"Scored on a sample: {run.unsampled} more mutants of the same code were not counted "
            "(mutation.sample; 0 counts them all)."
        )
    return "\n".join(lines)


def unexercised_note(run: MutationResult) -> list[str]:
    """The mutants the file is not charged for, in one line: they changed nothing its tests
    receive from the project (its inputs never make that code matter)."""
    n = len(run.unexercised())
    if not n:
        return []
    # what the observer left out of a test (`exercised.settle`: a value no two runs agree on)
    left = sorted(
        {
            r.reason.split("; left out: ", 1)[1]
            for _, r in run.unexercised()
            if "; left out: " in r.reason
        }
    )
    return [
        f"Not counted: {n} mutant{'s' if n != 1 else ''} in the functions these tests call changed"
        " nothing they receive (code their inputs never reach)."
        + "".join(f" Left out: {text}." for text in left[:3])
    ]


def unapplied_note(run: MutationResult) -> str | None:
    """Mutants that never ran because the code that runs is not theirs (a decorator rebuilt the
    function from the file on disk): not judged, not counted, and said so."""
    reasons = run.unapplied
    if not reasons:
        return None
    n = sum(reasons.values())
    names = sorted(r[len(UNAPPLIED) + 2 : -len(REBUILT) - 4] for r in reasons)
    are = "are" if len(names) > 1 else "is"
    return f"{n} mutant{'s' if n != 1 else ''} {UNAPPLIED}: {', '.join(names)} {are} {REBUILT}"


def unobserved_note(run: MutationResult) -> str | None:
    """The tests gate 4's observer could not watch (it slowed them past its limit): a survivor
    they cover counts as survived, where watched it might have changed nothing they receive; the
    verdict may then depend on the machine's load, and says so."""
    if not run.unobserved:
        return None
    tests, limit = run.unobserved
    gone = set(tests)
    counted = sum(1 for _, r in run.survivors() if gone & set(r.covered_by))
    # the name within the file, class too: a mixin's test runs under several classes
    names = ", ".join(t.split("::", 1)[-1] for t in tests[:5])
    more = f" and {len(tests) - 5} more" if len(tests) > 5 else ""
    plural = "s" if len(tests) != 1 else ""
    return (
        f"{len(tests)} test{plural} ran unobserved ({limit}): {names}{more};"
        f" {counted} survivor{'s' if counted != 1 else ''} they cover counted as survived without"
        " telling whether they change what the tests receive"
    )
