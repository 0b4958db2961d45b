"""Change-driven targets: functions whose lines changed between REV and the working tree
(`git diff`). Git only reads the user's repository here; nothing of the project runs."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

from assay.errors import InputError

HUNK = re.compile(r"^@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@")


def changed_lines(root: Path, rev: str) -> dict[str, set[int]]:
    """Project-relative Python files -> lines added or changed since `rev` (deleted-only hunks mark
    the line where the deletion happened: removing a guard changes the function around it)."""
    if rev.startswith("-"):
        raise InputError(f"--since {rev!r} is not a revision")
    try:
        top = subprocess.run(
            ["git", "rev-parse", "--show-toplevel"],
            cwd=root,
            capture_output=True,
            text=True,
            timeout=30,
        )
    except (OSError, subprocess.SubprocessError) as err:
        raise InputError(f"--since needs git: {err}") from None
    if top.returncode:
        raise InputError(f"--since needs a git repository; {root} is not in one")
    proc = subprocess.run(
        [
            "git",
            "diff",
            "--unified=0",
            "--no-color",
            "--no-ext-diff",
            "--relative",
            rev,
            "--",
            "*.py",
        ],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=120,
    )
    if proc.returncode:
        msg = (proc.stderr.strip().splitlines() or ["git diff failed"])[0]
        raise InputError(f"--since {rev}: {msg}")
    out: dict[str, set[int]] = {}
    current: str | None = None
    for line in proc.stdout.splitlines():
        if line.startswith("+++ "):
            name = line[4:].strip()
            current = name[2:] if name.startswith("b/") else None
        elif current and (m := HUNK.match(line)):
            start, count = int(m.group(1)), int(m.group(2) or 1)
            out.setdefault(current, set()).update(range(start, start + max(count, 1)))
    return out
