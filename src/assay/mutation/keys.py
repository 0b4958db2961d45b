"""Cache keys of mutation verdicts: what a mutant's verdict depends on, hashed."""

from __future__ import annotations

import functools
import hashlib
from pathlib import Path

from assay.mutation.model import Mutant
from assay.mutation.mutants import function_hash
from assay.version import build


def sha(*parts: str) -> str:
    h = hashlib.sha256()
    for p in parts:
        h.update(p.encode())
        h.update(b"\0")
    return h.hexdigest()


def tests_fingerprint(project: Path, tests: list[str], extra: list[str]) -> str:
    """Hash of the test files named by `tests` (paths or node ids), every conftest.py, and
    run options."""
    files = sorted({t.split("::")[0] for t in tests})
    parts = [*extra, *tests]
    for rel in files:
        path = project / rel
        paths = sorted(path.rglob("*.py")) if path.is_dir() else [path]
        parts += [
            f"{p.relative_to(project)}:{p.read_text(encoding='utf-8', errors='replace')}"
            for p in paths
            if p.is_file()
        ]
    for conftest in sorted(project.rglob("conftest.py")):
        text = conftest.read_text(encoding="utf-8", errors="replace")
        parts.append(f"{conftest.relative_to(project)}:{text}")
    return sha(*parts)


@functools.lru_cache(maxsize=1024)
def _offset(text: str, line: int) -> int:
    """Where line `line` (1-based) of `text` starts; memoized for the mutants of one function."""
    return sum(len(row) + 1 for row in text.split("\n")[: line - 1])


def cache_key(m: Mutant, text: str, spans: dict[str, tuple[int, int]], tests_hash: str) -> str:
    """A mutant's verdict key: its enclosing function's source (offsets relative to it, so an edit
    elsewhere in the file keeps the key), the tests, the operator and the replacement."""
    outer = m.function.split(".<locals>.")[0]
    base = _offset(text, spans[outer][0]) if m.chain and outer in spans else 0
    return sha(
        build(),
        m.file,
        function_hash(text, m, spans),
        tests_hash,
        m.operator,
        str(m.start - base),
        str(m.end - base),
        m.replacement,
    )
