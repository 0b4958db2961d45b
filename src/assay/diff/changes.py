"""What a change did to the project's files: read from git, never written. A change is the
working tree (or, `staged`, the index) against a revision; untracked files count as added."""

from __future__ import annotations

import re
import subprocess
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path

from assay.errors import InputError

HUNK = re.compile(r"^@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@")
AUTO = "auto"


class Kind(str, Enum):
    ADDED = "added"
    MODIFIED = "modified"
    DELETED = "deleted"
    RENAMED = "renamed"
    UNTRACKED = "untracked"


@dataclass(frozen=True)
class FileChange:
    """One file the change touched. `lines`: lines of the new text added or changed (a hunk
    that only deletes marks the line where the deletion happened: removing a guard changes the
    code around it); empty for a deleted file."""

    path: str  # project-relative posix path; the old path of a deleted file
    kind: Kind
    lines: frozenset[int] = frozenset()
    old_path: str | None = None  # where the old text is (renames); None for an added file

    def to_json(self) -> dict[str, object]:
        return {
            "path": self.path,
            "kind": self.kind.value,
            "old_path": self.old_path,
            "lines": _ranges(sorted(self.lines)),
        }


@dataclass
class ChangeSet:
    """Every file changed between `base` (a commit) and the working tree or the index."""

    root: Path
    since: str  # as the user gave it
    base: str  # the commit it resolved to
    staged: bool = False
    files: dict[str, FileChange] = field(default_factory=dict)

    def old_text(self, change: FileChange) -> str | None:
        """The file as it was at `base`; None for a file that was not there."""
        if change.old_path is None:
            return None
        return _git(self.root, "show", f"{self.base}:./{change.old_path}", check=False)

    def new_text(self, change: FileChange) -> str | None:
        """The file as the change leaves it (the index when `staged`); None when deleted."""
        if change.kind is Kind.DELETED:
            return None
        if self.staged:
            return _git(self.root, "show", f":./{change.path}", check=False)
        try:
            return (self.root / change.path).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            return None

    def lines_of(self, path: str) -> frozenset[int]:
        change = self.files.get(path)
        return change.lines if change else frozenset()

    def to_json(self) -> dict[str, object]:
        return {
            "since": self.since,
            "base": self.base,
            "staged": self.staged,
            "files": [c.to_json() for c in self.files.values()],
        }


def _ranges(lines: list[int]) -> list[list[int]]:
    out: list[list[int]] = []
    for n in lines:
        if out and out[-1][1] == n - 1:
            out[-1][1] = n
        else:
            out.append([n, n])
    return out


def _git(root: Path, *args: str, check: bool = True) -> str | None:
    try:
        proc = subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, timeout=120)
    except (OSError, subprocess.SubprocessError) as err:
        raise InputError(f"--since needs git: {err}") from None
    if proc.returncode:
        if not check:
            return None
        msg = (proc.stderr.strip().splitlines() or [f"git {args[0]} failed"])[0]
        raise InputError(f"--since: {msg}")
    return proc.stdout


def default_base(root: Path) -> str:
    """The merge base of HEAD with the default branch: `origin/HEAD`, else `main`, `master`."""
    candidates = []
    head = _git(root, "symbolic-ref", "--quiet", "refs/remotes/origin/HEAD", check=False)
    if head:
        candidates.append(head.strip())
    candidates += ["origin/main", "origin/master", "main", "master"]
    for ref in candidates:
        base = _git(root, "merge-base", "HEAD", ref, check=False)
        if base:
            return base.strip()
    raise InputError("--since auto: no default branch found (origin/HEAD, main, master)")


def changes(root: Path, since: str = AUTO, staged: bool = False) -> ChangeSet:
    """The files changed since `since` (a revision, or `auto`: the merge base with the default
    branch), with the lines changed in each. InputError (one line) outside git or for a revision
    git does not know."""
    if since.startswith("-"):
        raise InputError(f"--since {since!r} is not a revision")
    top = _git(root, "rev-parse", "--show-toplevel", check=False)
    if top is None:
        raise InputError(f"--since needs a git repository; {root} is not in one")
    base = default_base(root) if since == AUTO else since
    commit = _git(root, "rev-parse", "--verify", "--quiet", f"{base}^{{commit}}", check=False)
    if commit is None:
        raise InputError(f"--since {since}: not a revision of this repository")
    cached = ["--cached"] if staged else []
    common = ["--no-color", "--no-ext-diff", "--relative", "-M", *cached, commit.strip(), "--"]
    status = _git(root, "diff", "--name-status", "-z", *common) or ""
    out = ChangeSet(root, since, commit.strip(), staged)
    fields = status.split("\0")
    i = 0
    while i < len(fields) - 1:
        code, i = fields[i], i + 1
        if code.startswith(("R", "C")):
            old, new, i = fields[i], fields[i + 1], i + 2
            kind = Kind.RENAMED if code.startswith("R") else Kind.ADDED
            out.files[new] = FileChange(new, kind, old_path=old if kind is Kind.RENAMED else None)
            continue
        path, i = fields[i], i + 1
        kind = {"A": Kind.ADDED, "D": Kind.DELETED}.get(code[:1], Kind.MODIFIED)
        out.files[path] = FileChange(path, kind, old_path=None if kind is Kind.ADDED else path)
    lines: dict[str, set[int]] = {}
    current: str | None = None
    for line in (_git(root, "diff", "--unified=0", *common) or "").splitlines():
        if line.startswith("+++ "):
            name = line[4:].strip()
            current = name[2:] if name.startswith("b/") else None
        elif current and (m := HUNK.match(line)):
            start, count = int(m.group(1)), int(m.group(2) or 1)
            lines.setdefault(current, set()).update(range(start, start + max(count, 1)))
    for path, found in lines.items():
        if path in out.files:
            c = out.files[path]
            out.files[path] = FileChange(c.path, c.kind, frozenset(found), c.old_path)
    if not staged:
        listed = _git(root, "ls-files", "--others", "--exclude-standard", "-z") or ""
        for path in filter(None, listed.split("\0")):
            text = _read(root / path)
            n = text.count("\n") + (not text.endswith("\n")) if text else 0
            out.files[path] = FileChange(path, Kind.UNTRACKED, frozenset(range(1, n + 1)))
    return out


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return ""
