"""Salvage of a file that failed gate 2 in part: the failing assertion (or `pytest.raises` /
`pytest.warns` block) is cut out of a test that keeps other checks, a test left with none goes, and
the rest goes on through the gates instead of the whole file being rewritten. What was cut is
named, for the report and for the writer's next prompt."""

from __future__ import annotations

import ast
from dataclasses import dataclass

from assay.writers.edit import remove_tests, test_key

CHECKS = ("raises", "warns", "approx")


@dataclass
class Cut:
    """One failing check taken out of a test (`statement` None: the whole test went)."""

    test: str  # node id
    statement: str | None
    why: str = "its failure is not in an assertion"  # the whole test went: why not a cut

    def describe(self) -> str:
        name = test_key(self.test)[-1]
        if self.statement is None:
            return f"{name} (the whole test: {self.why})"
        first = self.statement.strip().splitlines()[0]
        return f"{name}: `{first}`"


def _is_check(node: ast.stmt) -> bool:
    if isinstance(node, ast.Assert):
        return True
    if isinstance(node, ast.With):
        return any(
            isinstance(item.context_expr, ast.Call)
            and isinstance(item.context_expr.func, ast.Attribute)
            and item.context_expr.func.attr in CHECKS
            for item in node.items
        )
    return False


def _checks(node: ast.AST) -> int:
    return sum(_is_check(n) for n in ast.walk(node) if isinstance(n, ast.stmt))


def _find(tree: ast.Module, key: tuple[str, ...]) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    scope: list[ast.stmt] = tree.body
    for part in key[:-1]:
        cls = next((n for n in scope if isinstance(n, ast.ClassDef) and n.name == part), None)
        if cls is None:
            return None
        scope = cls.body
    return next(
        (
            n
            for n in scope
            if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef) and n.name == key[-1]
        ),
        None,
    )


def _failing_check(
    func: ast.FunctionDef | ast.AsyncFunctionDef, line: int
) -> tuple[list[ast.stmt], ast.stmt] | None:
    """The check statement holding `line`, with the statement list it sits in; None when the
    line is not in a check, or cutting it would leave an empty block."""
    body: list[ast.stmt] = func.body
    while True:
        node = next(
            (n for n in body if n.lineno <= line <= (n.end_lineno or n.lineno)),
            None,
        )
        if node is None:
            return None
        if _is_check(node):
            return (body, node) if len(body) > 1 else None
        inner = [
            b
            for field in ("body", "orelse", "finalbody")
            if isinstance(b := getattr(node, field, None), list)
        ]
        body = next(
            (b for b in inner if any(n.lineno <= line <= (n.end_lineno or n.lineno) for n in b)),
            [],
        )


def _at_check(func: ast.FunctionDef | ast.AsyncFunctionDef, line: int | None) -> bool:
    """`line` is in a check of `func` (which `_failing_check` declines to cut: its block would be
    left empty)."""
    return line is not None and any(
        _is_check(n) and n.lineno <= line <= (n.end_lineno or n.lineno)
        for n in ast.walk(func)
        if isinstance(n, ast.stmt)
    )


def cut_failures(
    source: str, failed_at: dict[str, int], failing: list[str]
) -> tuple[str, list[Cut]] | None:
    """`source` without its failing checks (`failed_at`: node id -> line) and without the failing
    tests that keep no check; None when no test would be left or nothing could be cut."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return None
    lines = source.splitlines(keepends=True)
    spans: list[tuple[int, int]] = []
    cuts: list[Cut] = []
    whole: list[str] = []
    for nodeid in failing:
        func = _find(tree, test_key(nodeid))
        line = failed_at.get(nodeid)
        found = _failing_check(func, line) if func is not None and line is not None else None
        if func is None or found is None or _checks(func) - _checks(found[1]) < 1:
            whole.append(nodeid)
            only = found is not None or (
                func is not None and _checks(func) == 1 and _at_check(func, line)
            )
            cuts.append(Cut(nodeid, None, "its only check failed") if only else Cut(nodeid, None))
            continue
        stmt = found[1]
        start, end = stmt.lineno, stmt.end_lineno or stmt.lineno
        spans.append((start, end))
        cuts.append(Cut(nodeid, "".join(lines[start - 1 : end])))
    for start, end in sorted(set(spans), reverse=True):
        del lines[start - 1 : end]
    text = "".join(lines)
    if whole:
        rest = remove_tests(text, whole)
        if rest is None:
            return None
        text = rest
    if text == source:
        return None
    return text, cuts


def told(cuts: list[Cut]) -> str:
    """What the writer's next prompt says about the cuts."""
    if not cuts:
        return ""
    return "\n".join(
        [
            "Cut from your file because they failed on the current code (do not add them back "
            "unchanged; check the expected values against the contract):",
            *(f"- {c.describe()}" for c in cuts),
        ]
    )
