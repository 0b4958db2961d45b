"""Modules the project's committed tests import: test dependencies a project uses without
declaring them in its package metadata."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

_IMPORT_LINE = re.compile(r"^[ \t]*(?:from[ \t]+(\w+)[\w.]*[ \t]+import|import[ \t]+(\w+))", re.M)
_TEST_FILE = re.compile(r"(^|/)(test_[^/]*|[^/]*_test|conftest)\.py$")


def _git_lines(root: Path, *args: str) -> list[str]:
    try:
        out = subprocess.run(
            ["git", "-C", str(root), *args],
            capture_output=True,
            text=True,
            timeout=20,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return []
    return [p for p in out.stdout.split("\0") if p] if out.returncode == 0 else []


def committed_test_imports(root: Path) -> set[str]:
    """Top-level modules that the project's committed test files import, as committed (tracked
    and unchanged since HEAD; not marked as assay's): a test dependency the project uses but does
    not declare in its package metadata (dpath's sdist declares neither `nose2` nor `hypothesis`,
    which its tests import). A module only a new or changed file imports is not among them: a
    made-up import in a written test stays the test's own fault."""
    tracked = [p for p in _git_lines(root, "ls-files", "-z", "--", "*.py") if _TEST_FILE.search(p)]
    if not tracked:
        return set()
    changed = set(_git_lines(root, "diff", "-z", "--name-only", "--relative", "HEAD", "--", "*.py"))
    names: set[str] = set()
    for rel in tracked:
        if rel in changed:
            continue
        try:
            text = (root / rel).read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        if "assay_generated" not in text:
            names |= {a or b for a, b in _IMPORT_LINE.findall(text)}
    return names
