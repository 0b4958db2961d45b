"""Survivor briefs (issue 29 point 6): for each surviving mutant, what a writer needs to kill it,
the line, the change, the tests that reach it, what a killing test must assert and a name for it.

What to assert is read from the mutation operator and the two texts (static); the value the
original returns that the mutant does not, found by running both on the covering tests' inputs, is
not computed yet."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import PurePosixPath
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
    "yield_value": "the values the generator yields, `{before}` (the mutant yields `{after}`)",
    "call_removal": "the effect of `{before}` (state, output or raised error)",
    "break_continue": "the result of a loop that reaches `{before}` and goes on after it",
    "body_removal": "what `{function}` returns or does (the mutant's body is empty)",
}
# the operators of the other languages' tools (PIT, StrykerJS, cargo-mutants, assay's Go engine)
# by the category of assay's own they belong to, first match: the advice and the suggested name
# are the category's ("a result that differs between `export function f(…) …` and `export
# function f(…) …`", "test_module_blockstatement" for a JavaScript file)
FOREIGN = tuple(
    (re.compile(pattern, re.I), category)
    for pattern, category in (
        (r"boundary", "comparison_boundary"),
        (r"negat\w*cond|cond\w*negat|EqualityOperator", "comparison_negation"),
        (r"ConditionalExpression|RemoveConditional|invert_condition", "condition"),
        (r"LogicalOperator|invert_logical", "boolean_operator"),
        (r"arithmetic|^math", "arithmetic"),
        (r"AssignmentOperator|UpdateOperator|increment", "augmented_assignment"),
        (r"UnaryOperator|InvertNeg|invert_negatives", "unary_minus_removal"),
        (r"Boolean_?Literal", "boolean_literal"),
        (r"StringLiteral", "string"),
        (r"BlockStatement", "body_removal"),
        (r"Return|FnValue|ArrowFunction", "return_value"),
        (r"MethodCall|VoidMethod|call_removal", "call_removal"),
    )
)
# the function a JavaScript or TypeScript text declares (`export function f(`, `async f(`)
_DECLARED = re.compile(
    r"(?:export\s+)?(?:default\s+)?(?:async\s+)?function\s*\*?\s*(\w+)|(?:async\s+)?(\w+)\s*\("
)
_KEYWORDS = {"if", "for", "while", "switch", "catch", "return", "function", "typeof"}
JS_FILES = (".js", ".mjs", ".cjs", ".jsx", ".ts", ".mts", ".cts", ".tsx")
SLUG = {
    "comparison_boundary": "at_boundary",
    "comparison_negation": "both_sides",
    "condition": "both_branches",
    "return_value": "returns_value",
    "yield_value": "yields_values",
    "call_removal": "has_effect",
    "default_argument": "default",
    "number": "constant",
    "string": "text",
    "body_removal": "has_effect",
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
    tests: list[str]  # tests that run the line (empty: none does, or the tool cannot tell)
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


# an operator swapped for another (cargo-mutants' one genre for `&&`, `==` and `>` alike:
# `BinaryOperator`), by the pair of operators: the category whose advice fits the change
_BOUNDARY = {frozenset(p) for p in (("<", "<="), (">", ">="))}
_COMPARISON = {"<", "<=", ">", ">=", "==", "!="}
_ARITHMETIC = {"+", "-", "*", "/", "%", "&", "|", "^", "<<", ">>"}


def by_operands(original: str, replacement: str) -> str | None:
    """The category of one binary operator replaced by another, or None."""
    pair = frozenset((original.strip(), replacement.strip()))
    if pair == {"&&", "||"}:
        return "boolean_operator"
    if pair in _BOUNDARY:
        return "comparison_boundary"
    if pair <= _COMPARISON:  # `==` for `>`, `<` for `>`: each side of the comparison decides
        return "comparison_negation"
    if pair <= _ARITHMETIC:
        return "arithmetic"
    if all(o.endswith("=") and o[:-1] in _ARITHMETIC for o in pair):
        return "augmented_assignment"
    return None


def category(operator: str, original: str = "", replacement: str = "") -> str:
    """assay's operator category of a mutation operator, whichever tool named it (`original`,
    `replacement`: the mutant's two texts, for a tool's one genre of every binary operator)."""
    if operator in ASSERT:
        return operator
    found = next((c for pattern, c in FOREIGN if pattern.search(operator)), None)
    if found is None and re.search(r"BinaryOperator", operator, re.I):
        found = by_operands(original, replacement)
    return found or operator


def closest_tests(r: MutantResult, per_test: bool = True) -> list[str]:
    """The tests that run a survivor's line, where the tool tells them apart: with no per-test
    coverage (cargo-mutants, Stryker's command runner) every test of the file "covers" every
    mutant, and naming them under each survivor would point nowhere, unless the file has one."""
    tests = list(dict.fromkeys(r.covered_by))
    return tests if per_test or len(tests) == 1 else []


def brief(m: Mutant, r: MutantResult, per_test: bool = True) -> SurvivorBrief:
    before, after = _expression(m.before), _expression(m.after)
    kind = category(m.operator, m.original, m.replacement)
    if kind == "condition" and m.replacement in ("true", "false") and m.original.strip() in before:
        # one operand of `a || b` made false (PIT): what to assert is an input where only `a` holds
        before = m.original.strip() or before
    template = ASSERT.get(kind, "a result that differs between `{before}` and `{after}`")
    # the innermost name: `Class.method`, Rust's `<impl Iterator for Hex>::next`
    name = (
        re.split(r"::|\.", m.function.split(".<locals>.")[0])[-1]
        if m.function != "<module>"
        else ""
    )
    if not name and (declared := _DECLARED.match(m.before.strip())):  # StrykerJS names none
        found = declared.group(1) or declared.group(2) or ""
        name = "" if found in _KEYWORDS else found
    what = template.format(
        before=_short(before), after=_short(after), function=name or "the function"
    )
    if r.status is Status.NO_COVERAGE:
        what += f"; no test runs line {m.line} yet"
    if m.file.endswith(JS_FILES):  # a title keeps the code's own spelling (`customAlphabet`)
        stem = name.strip("_") or PurePosixPath(m.file).stem
    else:
        stem = re.sub(r"\W+", "_", name.strip("_")) or "module"
    suggested = killing_test_name(m.file, stem, SLUG.get(kind, kind))
    return SurvivorBrief(
        m.id,
        m.file,
        m.line,
        m.function,
        m.operator,
        m.before,
        m.after,
        closest_tests(r, per_test),
        what,
        suggested,
    )


def killing_test_name(file: str, stem: str, what: str) -> str:
    """A name for the killing test as the code's language spells one: `TestLessAtBoundary` in
    Go (whose runner finds nothing else), `lessAtBoundary` in Java and C#, a title in
    JavaScript and TypeScript (`test("less at boundary")`: vitest, jest and node:test name tests
    so), `test_less_at_boundary` elsewhere."""
    if file.endswith(JS_FILES):
        words = [w for w in re.split(r"[\W_]+", what.lower()) if w]
        return f'test("{" ".join([stem, *words])}")'
    # a camelCase name keeps its words: go-version's `newVersion` gave `TestNewversionAtBoundary`
    spaced = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", f"{stem}_{what}")
    words = [w for w in re.split(r"[\W_]+", spaced.lower()) if w]
    if file.endswith(".go"):
        return "Test" + "".join(w.capitalize() for w in words)
    if file.endswith((".java", ".cs")):
        return words[0] + "".join(w.capitalize() for w in words[1:])
    return "test_" + "_".join(words)


def _expression(text: str) -> str:
    """The expression a statement's text holds (`return x + 1` -> `x + 1`, `if a:` -> `a`,
    `if (a) {` -> `a`, Go's `} else if a {` -> `a`)."""
    text = text.strip().removeprefix("}").strip()
    text = text.removeprefix("else ").strip() if text.startswith("else if") else text
    for keyword in ("return ", "if ", "elif ", "while ", "assert "):
        if text.startswith(keyword):
            text = text[len(keyword) :].rstrip(":").strip().removesuffix("{").strip()
            if text.startswith("(") and text.endswith(")") and _closes_last(text):
                text = text[1:-1].strip()
            return text.removesuffix(";")
    return text


def _closes_last(text: str) -> bool:
    """Whether the parenthesis that opens `text` is the one that closes it (`(a) && (b)` no)."""
    depth = 0
    for i, c in enumerate(text):
        depth += {"(": 1, ")": -1}.get(c, 0)
        if depth == 0:
            return i == len(text) - 1
    return False


def _short(text: str, limit: int = 60) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"
