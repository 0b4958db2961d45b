"""Scratch copies of the user's project; the user's tree is only ever read.

A workspace is a temp dir holding `project/` (a full copy, never hard links: a test that writes to a
hard-linked file would write through to the user's file) and `run/` (assay's own files: runner, results,
HOME and TMPDIR of the sandboxed runs). Stale workspaces of dead assay processes are removed on start.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

PREFIX = "assay-ws-"
SKIP_DIRS = {
    ".git", ".hg", ".svn", ".assay", ".venv", "venv", ".tox", ".nox", "node_modules", "__pycache__",
    ".mypy_cache", ".pytest_cache", ".ruff_cache", ".hypothesis", "build", "dist", ".eggs", "target",
}
MAX_FILE_BYTES = 50 * 1024 * 1024


def _link_escapes(full: str, root: str) -> bool:
    """A link that is absolute or leads outside the project would let a test write through to the user."""
    target = os.readlink(full)
    resolved = os.path.realpath(full)
    return os.path.isabs(target) or not (resolved == root or resolved.startswith(root + os.sep))


def _ignorer(root: Path):
    root_s = str(root)

    def ignore(directory: str, names: list[str]) -> set[str]:
        return _ignore(directory, names, root_s)

    return ignore


def _ignore(directory: str, names: list[str], root: str) -> set[str]:
    skipped = set()
    for name in names:
        full = os.path.join(directory, name)
        if os.path.islink(full):
            if _link_escapes(full, root):
                skipped.add(name)
            continue  # kept as a relative link, which points into the copy
        if name in SKIP_DIRS and os.path.isdir(full) or name.endswith(".egg-info"):
            skipped.add(name)
        elif os.path.isdir(full) and os.path.exists(os.path.join(full, "pyvenv.cfg")):
            skipped.add(name)  # a virtualenv under any name
        elif os.path.isfile(full) and os.path.getsize(full) > MAX_FILE_BYTES:
            skipped.add(name)
    return skipped


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def sweep_stale(tmp_root: Path | None = None) -> int:
    """Remove workspaces left behind by assay processes that no longer exist (e.g. after SIGKILL)."""
    removed = 0
    for entry in Path(tmp_root or tempfile.gettempdir()).glob(f"{PREFIX}*"):
        parts = entry.name[len(PREFIX):].split("-", 1)
        if parts[0].isdigit() and not _pid_alive(int(parts[0])):
            shutil.rmtree(entry, ignore_errors=True)
            removed += 1
    return removed


class Workspace:
    """A scratch copy of `root`. Use as a context manager; `close()` deletes it."""

    def __init__(self, root: Path):
        self.root = root.resolve()
        base = Path(tempfile.mkdtemp(prefix=f"{PREFIX}{os.getpid()}-"))
        if self.root == base or self.root in base.parents:
            shutil.rmtree(base)
            raise RuntimeError(f"temp dir {base} lies inside the project; set TMPDIR elsewhere")
        self.base = base
        self.project = base / "project"
        self.run_dir = base / "run"
        self.run_dir.mkdir()
        shutil.copytree(self.root, self.project, symlinks=True, ignore=_ignorer(self.root))

    def path(self, rel: str) -> Path:
        """The scratch counterpart of a project-relative path."""
        return self.project / rel

    def snapshot(self) -> dict[str, tuple[int, int]]:
        """Size and mtime of every file of the copy, to see afterwards what a test run did to it."""
        snap = {}
        for dirpath, dirnames, filenames in os.walk(self.project):
            dirnames[:] = [d for d in dirnames if d != "__pycache__"]
            for name in filenames:
                path = os.path.join(dirpath, name)
                try:
                    st = os.lstat(path)
                except OSError:
                    continue
                snap[os.path.relpath(path, self.project)] = (st.st_size, st.st_mtime_ns)
        return snap

    def damage(self, before: dict[str, tuple[int, int]]) -> tuple[list[str], list[str]]:
        """Project files deleted and changed since `before` (new files are not damage)."""
        after = self.snapshot()
        deleted = sorted(p for p in before if p not in after)
        changed = sorted(p for p in before if p in after and after[p] != before[p])
        return deleted, changed

    def close(self) -> None:
        shutil.rmtree(self.base, ignore_errors=True)

    def __enter__(self) -> Workspace:
        return self

    def __exit__(self, *exc) -> None:
        self.close()
