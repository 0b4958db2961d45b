"""Survivor briefs (issue 29 point 6): for each surviving mutant, what a writer needs to kill it,
the line, the change, the tests that reach it, what a killing test must assert and a name for it.

What to assert is read from the mutation operator and the two texts (static); the value the
original returns that the mutant does not, found by running both on the covering tests' inputs, is
not computed yet."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from assay.mutation.model import Mutant, MutantResult, Status

ASSERT = {
    "arithmetic": "the exact result of `{before}` for inputs where it differs from `{after}`",
    "augmented_assignment": "the exact value after `{before}` (not the one `{after}` leaves)",
    "comparison_boundary": "the result for an input exactly on the boundary of `{before}`, "
    "where `{after}` decides the other way",
    "comparison_negation": "the result on both sides of `{before}`",
    "condition": "the outcome of an input for which `{before}` is true and one for which it is "
    "false",
    "boolean_operator": "the result for inputs where only one operand of `{before}` holds",
    "not_removal": "the outcome when `{before}` is false, and when it is true",
    "unary_minus_removal": "the sign of the result of `{before}`",
    "boolean_literal": "the behaviour `{before}` selects (it differs under `{after}`)",
    "number": "a value that depends on the constant in `{before}`",
    "string": "the exact text produced from `{before}`",
    "default_argument": "the result of a call that leaves that argument out",
    "return_value": "the value returned, `{before}` (the mutant returns `{after}`)",
    "call_removal": "the effect of `{before}` (state, output or raised error)",
    "break_continue": "the result of a loop that reaches `{before}` and goes on after it",
}
SLUG = {
    "comparison_boundary": "at_boundary",
    "comparison_negation": "both_sides",
    "condition": "both_branches",
    "return_value": "returns_value",
    "call_removal": "has_effect",
    "default_argument": "default",
    "number": "constant",
    "string": "text",
}


@dataclass(frozen=True)
class SurvivorBrief:
    id: str
    file: str
    line: int
    function: str
    operator: str
    original: str
    mutated: str
    tests: list[str]  # tests that run the line (empty: none does)
    must_assert: str
    suggested_test: str

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "file": self.file,
            "line": self.line,
            "function": self.function,
            "operator": self.operator,
            "original": self.original,
            "mutated": self.mutated,
            "tests": self.tests,
            "must_assert": self.must_assert,
            "suggested_test": self.suggested_test,
        }


def brief(m: Mutant, r: MutantResult) -> SurvivorBrief:
    before, after = _expression(m.before), _expression(m.after)
    template = ASSERT.get(m.operator, "a result that differs between `{before}` and `{after}`")
    what = template.format(before=_short(before), after=_short(after))
    if r.status is Status.NO_COVERAGE:
        what += f"; no test runs line {m.line} yet"
    # the innermost name: `Class.method`, Rust's `<impl Iterator for Hex>::next`
    name = (
        re.split(r"::|\.", m.function.split(".<locals>.")[0])[-1]
        if m.function != "<module>"
        else ""
    )
    stem = re.sub(r"\W+", "_", name.strip("_")).lower() or "module"
    suggested = killing_test_name(m.file, stem, SLUG.get(m.operator, m.operator))
    return SurvivorBrief(
        m.id,
        m.file,
        m.line,
        m.function,
        m.operator,
        m.before,
        m.after,
        list(dict.fromkeys(r.covered_by)),
        what,
        suggested,
    )


def killing_test_name(file: str, stem: str, what: str) -> str:
    """A name for the killing test as the code's language spells one: `TestLessAtBoundary` in
    Go (whose runner finds nothing else), `lessAtBoundary` in Java and C#, `test_less_at_boundary`
    elsewhere."""
    words = [w for w in re.split(r"[\W_]+", f"{stem}_{what}".lower()) if w]
    if file.endswith(".go"):
        return "Test" + "".join(w.capitalize() for w in words)
    if file.endswith((".java", ".cs")):
        return words[0] + "".join(w.capitalize() for w in words[1:])
    return "test_" + "_".join(words)


def _expression(text: str) -> str:
    """The expression a statement's text holds (`return x + 1` -> `x + 1`, `if a:` -> `a`)."""
    text = text.strip()
    for keyword in ("return ", "if ", "elif ", "while ", "assert "):
        if text.startswith(keyword):
            return text[len(keyword) :].rstrip(":").strip()
    return text


def _short(text: str, limit: int = 60) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"
