"""A task's commits and targets: `git log` of the sprint's range whose message names the task id
(word-bounded, case as the tracker writes it), the files they touched, and the Python functions
they changed that still exist, ranked by their uncovered branches."""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field
from pathlib import Path

from assay.errors import InputError
from assay.llm.excerpt import index
from assay.sprint.git import git, show

HUNK = re.compile(r"^@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@")
RECORD, UNIT = "\x1e", "\x1f"


@dataclass
class Commit:
    sha: str
    message: str
    files: list[str] = field(default_factory=list)


def names(task_id: str) -> re.Pattern[str]:
    """Matches the id as a whole word: SPAN-1 is not SPAN-12 nor XSPAN-1."""
    return re.compile(rf"(?<![\w-]){re.escape(task_id)}(?![\w])")


def log(root: Path, rev_range: str) -> list[Commit]:
    """Every commit of the range, oldest first, with the files each touched."""
    if rev_range.startswith("-"):
        raise InputError(f"--range {rev_range!r} is not a revision range")
    out = git(
        root,
        "log",
        "--relative",
        "--reverse",
        "--no-merges",
        "--name-only",
        f"--format={RECORD}%H{UNIT}%B{UNIT}",
        rev_range,
        "--",
    )
    commits = []
    for record in out.split(RECORD)[1:]:
        sha, message, files = record.split(UNIT)
        commits.append(Commit(sha, message, [f for f in files.splitlines() if f.strip()]))
    return commits


def of_task(commits: list[Commit], task_id: str) -> list[Commit]:
    pattern = names(task_id)
    return [c for c in commits if pattern.search(c.message)]


@dataclass
class CodeChange:
    """What one commit changed in Python code, docstrings, comments and blank lines left out: a
    commit that only rewords documentation changes no behaviour and has no target."""

    files: set[str] = field(default_factory=set)  # Python files whose code changed
    functions: list[tuple[str, str]] = field(default_factory=list)  # (path, qualified name)


def _prose_lines(source: str) -> set[int]:
    """Lines of docstrings, comments and blank lines."""
    lines = source.splitlines()
    prose = {
        n for n, text in enumerate(lines, 1) if not text.strip() or text.lstrip().startswith("#")
    }
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return prose
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if isinstance(body, list) and body and isinstance(body[0], ast.Expr):
            value = body[0].value
            if isinstance(value, ast.Constant) and isinstance(value.value, str):
                prose.update(range(body[0].lineno, (body[0].end_lineno or body[0].lineno) + 1))
    return prose


def code_change(root: Path, commit: Commit) -> CodeChange:
    """The Python files and functions whose code (not prose) the commit added or changed, as the
    files were at that commit."""
    diff = git(root, "show", "--relative", "--unified=0", "--no-color", "--format=", commit.sha,
               "--", "*.py")  # fmt: skip
    lines: dict[str, set[int]] = {}
    path = None
    for line in diff.splitlines():
        if line.startswith("+++ "):
            path = line[6:] if line.startswith("+++ b/") else None
        elif path and (m := HUNK.match(line)):
            start, count = int(m.group(1)), int(m.group(2) or "1")
            lines.setdefault(path, set()).update(range(start, start + max(count, 1)))
    change = CodeChange()
    for rel, changed in lines.items():
        source = show(root, commit.sha, rel) or ""
        code = changed - _prose_lines(source)
        if not code:
            continue
        change.files.add(rel)
        for name, info in index(source).items():
            if any(info.line <= n <= info.end_line for n in code):
                change.functions.append((rel, name))
    return change
