"""Mutation operators: what each one swaps, the names reports give them, a constant's mutated
literal, and the lines marked never to mutate (`edits` finds where the operators apply).
"""

from __future__ import annotations

import ast
import re

from assay.config import names

ARITHMETIC = {
    ast.Add: ("+", "-"),
    ast.Sub: ("-", "+"),
    ast.Mult: ("*", "/"),
    ast.Div: ("/", "*"),
    ast.FloorDiv: ("//", "/"),
    ast.Mod: ("%", "/"),
    ast.Pow: ("**", "*"),
}
BOUNDARY = {ast.Lt: ("<", "<="), ast.LtE: ("<=", "<"), ast.Gt: (">", ">="), ast.GtE: (">=", ">")}
NEGATION = {
    ast.Eq: ("==", "!="),
    ast.NotEq: ("!=", "=="),
    ast.Is: (r"is\b", "is not"),
    ast.IsNot: (r"is\s+not\b", "is"),
    ast.In: (r"in\b", "not in"),
    ast.NotIn: (r"not\s+in\b", "in"),
}
AUGMENTED = {
    ast.Add: ("+=", "-="),
    ast.Sub: ("-=", "+="),
    ast.Mult: ("*=", "/="),
    ast.Div: ("/=", "*="),
    ast.FloorDiv: ("//=", "/="),
    ast.Mod: ("%=", "/="),
    ast.Pow: ("**=", "*="),
}
# the names in reports
OPERATORS = (
    "arithmetic",
    "comparison_boundary",
    "comparison_negation",
    "boolean_operator",
    "not_removal",
    "unary_minus_removal",
    "boolean_literal",
    "number",
    "string",
    "default_argument",
    "return_value",
    "yield_value",
    "call_removal",
    "augmented_assignment",
    "break_continue",
    "condition",
)
# what `[tool.assay.mutation] skip_operators` may name
names.register(names.OPERATOR, lambda: OPERATORS)
NO_MUTATE = re.compile(r"#\s*(pragma|assay):\s*no\s+mutate")


def constant_replacement(value: object) -> str | None:
    """The mutated literal for a constant, or None when it has none."""
    if isinstance(value, bool):
        return repr(not value)
    if isinstance(value, int):
        return "1" if value == 0 else "0" if value == 1 else repr(value + 1)
    if isinstance(value, float):
        return repr(value + 1.0)
    if isinstance(value, str):
        return repr(f"XX{value}XX") if value else repr("XX")
    if isinstance(value, bytes):
        return repr(b"XX" + value + b"XX") if value else repr(b"XX")
    return None


def skipped_lines(text: str) -> set[int]:
    """Lines marked `# pragma: no mutate` or `# assay: no mutate` (1-based)."""
    return {i for i, line in enumerate(text.splitlines(), 1) if NO_MUTATE.search(line)}
