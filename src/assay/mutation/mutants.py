"""Turn a module's text into `Mutant`s: operator edits plus ids, positions and display lines."""

from __future__ import annotations

import ast
import functools
import hashlib
from pathlib import Path

from assay._assay_sandbox.mutation.entries import function_defs
from assay.errors import InputError
from assay.mutation.edits import Finder
from assay.mutation.model import Mutant
from assay.mutation.operators import skipped_lines

MAX_DISPLAY = 120


def display(text: str, start_line: int, end_line: int) -> str:
    """Lines `start_line`..`end_line` of `text` on one line (each stripped), capped for feedback."""
    return _joined(text.split("\n")[start_line - 1 : end_line])


def _joined(lines: list[str]) -> str:
    joined = " ".join(part.strip() for part in lines)
    return joined if len(joined) <= MAX_DISPLAY else joined[: MAX_DISPLAY - 1] + "…"


def apply(text: str, mutant: Mutant) -> str:
    """The module text with the mutant applied (what the worker compiles; what a disk
    rerun writes)."""
    return text[: mutant.start] + mutant.replacement + text[mutant.end :]


def read_sources(root: Path, rels: list[str]) -> dict[str, str]:
    """The text of each module to mutate; InputError (one line, `file:line: syntax error ...`) for
    one that is not UTF-8 or does not parse: its mutants could not be generated nor its baseline
    traced."""
    sources = {}
    for rel in rels:
        try:
            text = (root / rel).read_text(encoding="utf-8")
            ast.parse(text, rel)
        except UnicodeDecodeError as err:
            raise InputError(f"{rel}: not UTF-8 text (byte {err.start})") from None
        except SyntaxError as err:
            raise InputError(f"{rel}:{err.lineno}: syntax error: {err.msg}") from None
        except ValueError as err:  # null bytes
            raise InputError(f"{rel}: {err}") from None
        sources[rel] = text
    return sources


def generate(rel: str, text: str) -> list[Mutant]:
    """All mutants of one module, in source order. A module that does not parse has none."""
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return []
    skip = skipped_lines(text)
    starts = [0]
    for i, ch in enumerate(text):
        if ch == "\n":
            starts.append(i + 1)

    def line_col(offset: int) -> tuple[int, int]:
        lo, hi = 0, len(starts) - 1
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if starts[mid] <= offset:
                lo = mid
            else:
                hi = mid - 1
        return lo + 1, offset - starts[lo]

    statements = sorted(
        ((n.lineno, n.end_lineno or n.lineno) for n in ast.walk(tree) if isinstance(n, ast.stmt)),
        key=lambda r: r[1] - r[0],
    )

    def statement_line(line: int) -> int:
        return next((first for first, last in statements if first <= line <= last), line)

    lines = text.split("\n")
    mutants: list[Mutant] = []
    seen: set[tuple[int, int, str]] = set()
    edits = sorted(Finder(text).find(tree), key=lambda e: (e.start, e.end, e.replacement))
    for edit in edits:
        line, col = line_col(edit.start)
        end_line, end_col = line_col(edit.end)
        key = (edit.start, edit.end, edit.replacement)
        if key in seen or skip.intersection(range(line, end_line + 1)):
            continue
        seen.add(key)
        # the edited lines alone, never the whole text per mutant: idna's 8,600-line data
        # module has 22,000 mutants
        first = starts[line - 1]
        region = text[first : starts[end_line] - 1 if end_line < len(starts) else len(text)]
        mutated = region[: edit.start - first] + edit.replacement + region[edit.end - first :]
        mutants.append(
            Mutant(
                id=f"{rel}#{len(mutants) + 1}",
                file=rel,
                operator=edit.operator,
                start=edit.start,
                end=edit.end,
                line=line,
                col=col,
                end_line=end_line,
                end_col=end_col,
                original=text[edit.start : edit.end],
                replacement=edit.replacement,
                function=edit.chain[0][2] if edit.chain else "<module>",
                chain=tuple((name, first) for name, first, _ in edit.chain),
                stmt_line=statement_line(line),
                before=_joined(lines[line - 1 : end_line]),
                after=_joined(mutated.split("\n")),
            )
        )
    return mutants


def function_spans(text: str) -> dict[str, tuple[int, int]]:
    """Qualname of every def → (first line incl. decorators, last line): to hash and scope
    by function."""
    try:
        defs = function_defs(ast.parse(text))
    except SyntaxError:
        return {}
    return {
        name: (
            min([node.lineno, *(d.lineno for d in node.decorator_list)]),
            node.end_lineno or node.lineno,
        )
        for name, node in defs.items()
    }


def function_hash(text: str, mutant: Mutant, spans: dict[str, tuple[int, int]]) -> str:
    """Hash of the code a mutant's verdict depends on: its outermost enclosing def, else the
    whole module."""
    outer = mutant.function.split(".<locals>.")[0]
    if mutant.chain and outer in spans:
        return _digest(text, *spans[outer])
    return _digest(text, 0, 0)


@functools.lru_cache(maxsize=1024)
def _digest(text: str, first: int, last: int) -> str:
    """Hash of lines `first`..`last` of `text` (all of it for 0, 0). Memoized: the mutants of a
    module share a few regions, and idna's 20,000 mutants of its data tables each hashed the
    whole 200 KB module."""
    body = "\n".join(text.split("\n")[first - 1 : last]) if first else text
    return hashlib.sha256(body.encode()).hexdigest()[:20]
