"""Edits of a test file's text by its syntax tree: take tests out, mark tests, measure how much
changed. Formatting and comments of what stays are kept as written."""

from __future__ import annotations

import ast
import difflib
import re
from typing import TypeGuard

_PARAMS = re.compile(r"\[.*\]$")


def test_key(nodeid: str) -> tuple[str, ...]:
    """`tests/t.py::TestA::test_b[1-2]` -> ("TestA", "test_b"); the file part and
    parameters dropped."""
    parts = _PARAMS.sub("", nodeid).split("::")
    return tuple(parts[1:]) if len(parts) > 1 else (parts[0],)


def _is_test(node: ast.stmt) -> TypeGuard[ast.FunctionDef | ast.AsyncFunctionDef]:
    return isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name.startswith("test")


def _is_test_class(node: ast.stmt) -> TypeGuard[ast.ClassDef]:
    return isinstance(node, ast.ClassDef) and node.name.startswith("Test")


def _span(node: ast.stmt) -> tuple[int, int]:
    start = min([d.lineno for d in getattr(node, "decorator_list", [])] + [node.lineno])
    return start, node.end_lineno or node.lineno


def remove_tests(source: str, nodeids: list[str]) -> str | None:
    """The file without the given tests and the comments right above them (a class left without
    tests goes too); None when no test is left or the file does not parse."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return None
    drop = {test_key(n) for n in nodeids}
    cut: list[tuple[int, int]] = []
    kept = 0
    for node in tree.body:
        if _is_test(node):
            if (node.name,) in drop:
                cut.append(_span(node))
            else:
                kept += 1
        elif _is_test_class(node):
            methods = [m for m in node.body if _is_test(m)]
            gone = [m for m in methods if (node.name, m.name) in drop]
            if methods and len(gone) == len(methods):
                cut.append(_span(node))
            else:
                cut += [_span(m) for m in gone]
                kept += len(methods) - len(gone)
    if not kept:
        return None
    lines = source.splitlines(keepends=True)
    for start, end in sorted(cut, reverse=True):
        # the comment lines right above a test are about it: they go with it (a reviewer shown
        # them would ask for the test they describe)
        indent = _indent(lines[start - 1])
        while start > 1 and lines[start - 2].lstrip().startswith("#"):
            if _indent(lines[start - 2]) != indent:
                break
            start -= 1
        del lines[start - 1 : end]
    text = "".join(lines)
    return re.sub(r"\n{4,}", "\n\n\n", text)


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def changed_share(old: str, new: str) -> float:
    """Share of lines that differ between two versions (0.0 same, 1.0 all new)."""
    a, b = old.splitlines(), new.splitlines()
    if not a and not b:
        return 0.0
    same = sum(
        block.size
        for block in difflib.SequenceMatcher(None, a, b, autojunk=False).get_matching_blocks()
    )
    return 1.0 - same / max(len(a), len(b))


def _ensure_pytest_import(source: str, tree: ast.Module) -> str:
    for node in tree.body:
        if isinstance(node, ast.Import) and any(
            a.name == "pytest" and not a.asname for a in node.names
        ):
            return source
    lines = source.splitlines(keepends=True)
    at = 0
    first = tree.body[0] if tree.body else None
    if (
        first is not None
        and isinstance(first, ast.Expr)
        and isinstance(first.value, ast.Constant)
        and isinstance(first.value.value, str)
    ):
        at = first.end_lineno or 0
    for node in tree.body:  # after `from __future__` imports
        if isinstance(node, ast.ImportFrom) and node.module == "__future__":
            at = node.end_lineno or at
    lines.insert(at, "import pytest\n")
    return "".join(lines)


def mark(source: str, marker: str, xfail: dict[str, str] | None = None) -> str:
    """Every test function and test class decorated with `marker` (e.g.
    `pytest.mark.assay_generated`); tests named in `xfail` (bare names) also with
    `pytest.mark.xfail(strict=True, reason=...)`."""
    source = _ensure_pytest_import(source, ast.parse(source))
    tree = ast.parse(source)
    lines = source.splitlines(keepends=True)
    inserts: list[tuple[int, str]] = []
    for node in tree.body:
        if _is_test(node) or _is_test_class(node):
            start, _ = _span(node)
            indent = " " * node.col_offset
            deco = [f"{indent}@{marker}\n"]
            if xfail and node.name in xfail:
                deco.append(
                    f"{indent}@pytest.mark.xfail(strict=True, reason={xfail[node.name]!r})\n"
                )
            inserts.append((start, "".join(deco)))
        if _is_test_class(node) and xfail:
            for m in node.body:
                if _is_test(m) and m.name in xfail:
                    start, _ = _span(m)
                    inserts.append(
                        (
                            start,
                            " " * m.col_offset
                            + f"@pytest.mark.xfail(strict=True, reason={xfail[m.name]!r})\n",
                        )
                    )
    for start, text in sorted(inserts, reverse=True):
        lines.insert(start - 1, text)
    return "".join(lines)
