"""Context quality: a docstring (of a target function, or its module's) that is older than the code
it describes by more than a threshold, by git history (`git blame`), is likely to describe code that
is gone. The writer is not given it (the copy the writer sees has it blanked, lines kept), and the
task's report lists it as documentation debt."""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

from assay.sprint.git import git

DAY = 86400


@dataclass(frozen=True)
class DocsDebt:
    path: str
    symbol: str  # the function, or "<module>"
    doc_lines: tuple[int, int]  # first, last line of the docstring
    doc_time: int  # newest change to the docstring (unix time)
    code_time: int  # newest change to the code it describes

    @property
    def days(self) -> int:
        return (self.code_time - self.doc_time) // DAY

    def describe(self) -> str:
        return f"{self.path}::{self.symbol} docstring is {self.days} days older than its code"

    def to_json(self) -> dict[str, object]:
        return {
            "path": self.path,
            "symbol": self.symbol,
            "days_older": self.days,
            "lines": list(self.doc_lines),
        }


def line_times(root: Path, rev: str, rel: str) -> dict[int, int]:
    """Line number -> committer time of the commit that last changed the line."""
    out = git(root, "blame", "--line-porcelain", rev, "--", rel, check=False)
    times: dict[int, int] = {}
    line = 0
    for row in out.splitlines():
        parts = row.split()
        if len(parts) >= 3 and len(parts[0]) == 40 and parts[1].isdigit():
            line = int(parts[2])
        elif row.startswith("committer-time "):
            times[line] = int(row.split()[1])
    return times


def _docstring(body: list[ast.stmt]) -> ast.Expr | None:
    first = body[0] if body else None
    if (
        isinstance(first, ast.Expr)
        and isinstance(first.value, ast.Constant)
        and isinstance(first.value.value, str)
    ):
        return first
    return None


def _newest(times: dict[int, int], lines: range) -> int:
    return max((times[n] for n in lines if n in times), default=0)


def stale_docs(
    root: Path, rev: str, rel: str, functions: list[str], threshold_days: int
) -> list[DocsDebt]:
    """The docstrings of `functions` (qualified names) in `rel`, and of the module, that are
    older than their code by more than `threshold_days`."""
    try:
        tree = ast.parse((root / rel).read_text(encoding="utf-8"))
    except (OSError, SyntaxError, UnicodeDecodeError, ValueError):
        return []
    times = line_times(root, rev, rel)
    if not times:
        return []
    found = []
    spans: list[tuple[str, list[ast.stmt], range]] = []
    last = max(times)
    spans.append(("<module>", tree.body, range(1, last + 1)))

    def visit(body: list[ast.stmt], prefix: str) -> None:
        for node in body:
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                if prefix + node.name in functions:
                    spans.append(
                        (
                            prefix + node.name,
                            node.body,
                            range(node.lineno, (node.end_lineno or 0) + 1),
                        )
                    )
            elif isinstance(node, ast.ClassDef):
                visit(node.body, f"{prefix}{node.name}.")

    visit(tree.body, "")
    for symbol, body, span in spans:
        doc = _docstring(body)
        if doc is None:
            continue
        doc_span = range(doc.lineno, (doc.end_lineno or doc.lineno) + 1)
        doc_time = _newest(times, doc_span)
        code_lines = [n for n in span if n not in doc_span]
        code_time = max((times[n] for n in code_lines if n in times), default=0)
        if code_time - doc_time > threshold_days * DAY:
            found.append(
                DocsDebt(rel, symbol, (doc_span.start, doc_span.stop - 1), doc_time, code_time)
            )
    return found


def withhold(path: Path, debts: list[DocsDebt]) -> None:
    """Blank the stale docstrings in `path` (a copy the writer reads), keeping every line where it
    was: an empty triple-quoted string spanning the same lines."""
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    for debt in debts:
        first, last = debt.doc_lines
        indent = lines[first - 1][: len(lines[first - 1]) - len(lines[first - 1].lstrip())]
        blank = [f'{indent}"""\n'] + ["\n"] * (last - first - 1) + [f'{indent}"""\n']
        if first == last:
            blank = [f'{indent}""""""\n']
        lines[first - 1 : last] = blank
    path.write_text("".join(lines), encoding="utf-8")
