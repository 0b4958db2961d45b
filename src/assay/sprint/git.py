"""The git calls the sprint steps make: read-only on the user's repository, except `branch.py`'s
new objects and one new ref."""

from __future__ import annotations

import subprocess
from pathlib import Path

from assay.errors import InputError, RunFailed


def git(
    root: Path,
    *args: str,
    env: dict[str, str] | None = None,
    stdin: str | None = None,
    check: bool = True,
) -> str:
    """`git ARGS` in `root`; its stdout. A failure is one line naming the command."""
    try:
        proc = subprocess.run(
            ["git", *args],
            cwd=root,
            capture_output=True,
            text=True,
            input=stdin,
            env=env,
            timeout=300,
        )
    except (OSError, subprocess.SubprocessError) as err:
        raise InputError(f"git is needed here: {err}") from None
    if check and proc.returncode:
        first = (proc.stderr.strip().splitlines() or ["failed"])[0]
        raise RunFailed(f"git {args[0]}: {first}")
    return proc.stdout


def toplevel(root: Path) -> Path:
    proc = subprocess.run(
        ["git", "rev-parse", "--show-toplevel"], cwd=root, capture_output=True, text=True
    )
    if proc.returncode:
        raise InputError(f"{root} is not in a git repository (the sprint steps read its history)")
    return Path(proc.stdout.strip())


def show(root: Path, rev: str, path: str) -> str | None:
    """The text of `path` at `rev`, None when it did not exist (or is not text)."""
    proc = subprocess.run(
        ["git", "show", f"{rev}:./{path}"], cwd=root, capture_output=True, timeout=60
    )
    if proc.returncode:
        return None
    try:
        return proc.stdout.decode("utf-8")
    except UnicodeDecodeError:
        return None


def git_bytes(root: Path, *args: str) -> bytes:
    """`git ARGS`' stdout as bytes (an archive)."""
    proc = subprocess.run(["git", *args], cwd=root, capture_output=True, timeout=300)
    if proc.returncode:
        first = (proc.stderr.decode(errors="replace").strip().splitlines() or ["failed"])[0]
        raise RunFailed(f"git {args[0]}: {first}")
    return proc.stdout
