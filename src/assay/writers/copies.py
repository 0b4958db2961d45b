"""A small model often pastes the code under test above its tests. Those tests then run the copy,
not the project (gate 4 rejects them: they reach none of the target's code). Taking the copied
definitions out and importing the names from the module instead keeps the tests: salvage, not
loss."""

from __future__ import annotations

import ast

TEST_PREFIXES = ("test", "Test")


def strip_copies(code: str, defined: set[str], dotted: str) -> tuple[str, list[str]]:
    """`code` without its top-level definitions (functions, classes, assignments) of names the
    target's module defines (`defined`), with an import from `dotted` of those the rest uses; and
    the names taken out. Unchanged when it does not parse, defines no such name, or would keep
    no test."""
    if not dotted or not defined:
        return code, []
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError):
        return code, []
    spans: list[tuple[int, int]] = []
    removed: list[str] = []
    for node in tree.body:
        names = _defines(node)
        if names and names <= defined and not any(n.startswith(TEST_PREFIXES) for n in names):
            start = min([d.lineno for d in getattr(node, "decorator_list", [])] + [node.lineno])
            spans.append((start, node.end_lineno or node.lineno))
            removed += sorted(names)
    if not removed:
        return code, []
    lines = code.splitlines()
    kept = [ln for n, ln in enumerate(lines, 1) if not any(a <= n <= b for a, b in spans)]
    try:
        rest = ast.parse("\n".join(kept))
    except (SyntaxError, ValueError):
        return code, []
    if not any(
        isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
        and n.name.startswith(TEST_PREFIXES)
        for n in rest.body
    ):
        return code, []
    used = {n.id for n in ast.walk(rest) if isinstance(n, ast.Name)}
    imported = {
        a.asname or a.name for n in rest.body if isinstance(n, ast.ImportFrom) for a in n.names
    }
    needed = sorted((set(removed) & used) - imported)
    if needed:
        at = max((n.end_lineno or n.lineno for n in rest.body if _is_import(n)), default=0)
        kept.insert(at, f"from {dotted} import {', '.join(needed)}")
    return "\n".join(kept).strip("\n") + "\n", removed


def _defines(node: ast.stmt) -> set[str]:
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        return {node.name}
    if isinstance(node, ast.Assign):
        return {t.id for t in node.targets if isinstance(t, ast.Name)}
    if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
        return {node.target.id}
    return set()


def _is_import(node: ast.stmt) -> bool:
    return isinstance(node, ast.Import | ast.ImportFrom)


def strip_labels(code: str, summary: str) -> str:
    """`code` without the comment lines it copied from the existing-tests summary of the prompt
    (`# helpers the sample uses:`, `# tests: ...`, a file's path): labels of the prompt, not
    comments of the answer's tests."""
    labels = {ln.strip() for ln in summary.splitlines() if ln.startswith("# ")}
    if not labels:
        return code
    kept = [ln for ln in code.splitlines(keepends=True) if ln.strip() not in labels]
    return "".join(kept)
