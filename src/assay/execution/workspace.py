"""Scratch copies of the user's project; the user's tree is only ever read.

A workspace is a temp dir holding `tree/<the user's absolute path>` (a full copy, never hard links:
a test that writes to a hard-linked file would write through to the user's file; its path ends as
the user's own, so a test that matches its own source path, `runtime.Caller` against
`.+/github.com/pkg/errors/x_test.go`, sees what it sees in the user's tree), `run/` (assay's own
files: results, HOME and TMPDIR of the sandboxed runs) and `cache/` (a toolchain's build cache,
kept for the workspace's life).

Candidates, mutants and panel members reach the copy as *overlays* (`apply`):
`{relative path: text}` written over it. `reset()` brings the copy back to the pristine snapshot
taken after copying - files added since are deleted (`__pycache__` included), changed or deleted
ones restored - so one workspace serves many candidates without copying the tree again. A file
counts as unchanged only when its inode, size, mode, mtime and ctime are all as recorded; ctime
cannot be set from user space, so a test that rewrites a file and puts its mtime back is still
caught. Stale workspaces of dead assay processes are removed on start (`sweep_stale`).
"""

from __future__ import annotations

import contextlib
import filecmp
import os
import shutil
import stat
import sys
import tempfile
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path, PurePosixPath
from typing import NamedTuple

from assay.errors import InputError
from assay.sandbox.cgroups import pid_alive
from assay.sandbox.probe_dirs import PROBE_PREFIX
from assay.sandbox.process import WORKSPACE_PREFIX
from assay.sandbox.view import hand_over, hand_over_tree

PREFIX = WORKSPACE_PREFIX
SKIP_DIRS = {
    ".git",
    ".hg",
    ".svn",
    ".assay",
    ".venv",
    "venv",
    ".tox",
    ".nox",
    "node_modules",
    "__pycache__",
    ".mypy_cache",
    ".pytest_cache",
    ".ruff_cache",
    ".hypothesis",
    "build",
    "dist",
    ".eggs",
    "target",
}
# build outputs, left out of the copy where a build puts them: at the root or beside a build file;
# elsewhere they are sources (commons-io's package `org.apache.commons.io.build`: its module did
# not compile in the copy, and every file was `unvalidated`)
OUTPUT_DIRS = {"build", "dist", "target"}
BUILD_FILES = {
    "pom.xml",
    "build.gradle",
    "build.gradle.kts",
    "Cargo.toml",
    "package.json",
    "pyproject.toml",
    "setup.py",
    "setup.cfg",
    "go.mod",
}
MAX_FILE_BYTES = 50 * 1024 * 1024


class _Entry(NamedTuple):
    """One path of the copy as `lstat` saw it (a copied file keeps the user's file's mtime)."""

    mode: int
    ino: int
    size: int
    mtime_ns: int
    ctime_ns: int
    link: str | None


def _content(entry: _Entry) -> tuple:
    """What must match after a reset: kind and mode, and for files size and mtime (copy2
    keeps it)."""
    if stat.S_ISDIR(entry.mode):
        return (entry.mode,)
    return entry.mode, entry.size, entry.mtime_ns, entry.link


def _link_escapes(full: str, root: str) -> bool:
    """A link that is absolute or leads outside the project would let a test write through to
    the user."""
    target = os.readlink(full)
    resolved = os.path.realpath(full)
    return os.path.isabs(target) or not (resolved == root or resolved.startswith(root + os.sep))


def _ignorer(root: Path) -> Callable[[str, list[str]], set[str]]:
    root_s = str(root)

    def ignore(directory: str, names: list[str]) -> set[str]:
        skipped = set()
        outputs_here = directory == root_s or not BUILD_FILES.isdisjoint(names)
        for name in names:
            full = os.path.join(directory, name)
            if os.path.islink(full):
                if _link_escapes(full, root_s):
                    skipped.add(name)
                continue  # kept as a relative link, which points into the copy
            if name in OUTPUT_DIRS and not outputs_here:
                continue
            if name in SKIP_DIRS and os.path.isdir(full) or name.endswith(".egg-info"):
                skipped.add(name)
            elif os.path.isdir(full) and os.path.exists(os.path.join(full, "pyvenv.cfg")):
                skipped.add(name)  # a virtualenv under any name
            elif os.path.isfile(full) and os.path.getsize(full) > MAX_FILE_BYTES:
                skipped.add(name)
        return skipped

    return ignore


def sweep_stale(tmp_root: Path | None = None) -> int:
    """Remove workspaces and sandbox probes' directories left behind by assay processes that no
    longer exist (e.g. after SIGKILL)."""
    removed = 0
    for prefix in (PREFIX, PROBE_PREFIX):
        for entry in Path(tmp_root or tempfile.gettempdir()).glob(f"{prefix}*"):
            parts = entry.name[len(prefix) :].split("-", 1)
            if parts[0].isdigit() and not pid_alive(int(parts[0])):
                _force_rmtree(entry)
                removed += 1
    return removed


def _force_rmtree(path: Path) -> None:
    """rmtree that also gets through directories a test made unreadable or unwritable, and never
    touches what is outside `path`: two sweeps racing for one stale workspace made the loser's
    rmtree fail on the workspace itself, and its parent - `/tmp` - was made 0700."""
    root = os.path.abspath(path)

    def fix(func: Callable[[str], object], failed: str, _exc: object) -> None:
        if not os.path.lexists(failed):
            return  # removed meanwhile (another sweep): nothing to fix
        inside = os.path.abspath(failed).startswith(root + os.sep)
        with contextlib.suppress(OSError):
            if inside:
                os.chmod(os.path.dirname(failed), 0o700)
            if not os.path.islink(failed):
                os.chmod(failed, 0o700)
            func(failed)

    if sys.version_info >= (3, 12):
        shutil.rmtree(path, onexc=fix)
    else:
        shutil.rmtree(path, onerror=fix)


def safe_rel(rel: str) -> str:
    """A project-relative posix path that stays inside the project, or InputError."""
    path = PurePosixPath(rel.replace("\\", "/"))
    if path.is_absolute() or not path.parts or ".." in path.parts:
        raise InputError(f"path {rel!r} is not inside the project")
    return path.as_posix()


# what tools write inside a linked directory, made in the scratch copy instead of linked: Vite
# bundles an ES-module config (`vitest.config.ts`) into `node_modules/.vite-temp` and fails on a
# read-only tree (EROFS), which read as the test's compile error
SCRATCH_IN_LINKS = frozenset({".vite-temp"})


def _link_entries(source: Path, copy: Path) -> None:
    """A linked directory as a directory of links to its entries: the user's packages stay theirs
    and read-only, while a tool may add its own scratch entries beside them."""
    copy.mkdir()
    with os.scandir(source) as entries:
        for entry in entries:
            if entry.name not in SCRATCH_IN_LINKS:
                os.symlink(entry.path, copy / entry.name)


class Workspace:
    """A scratch copy of `root`. Use as a context manager; `close()` deletes it.

    `links`: project-relative directories served from the user's tree instead of copied (a project's
    `node_modules`); `keep`: project-relative directories that survive `reset()` (a toolchain's
    build output).
    """

    def __init__(self, root: Path, links: Iterable[str] = (), keep: Iterable[str] = ()):
        self.root = root.resolve()
        base = Path(tempfile.mkdtemp(prefix=f"{PREFIX}{os.getpid()}-"))
        if self.root == base or self.root in base.parents:
            shutil.rmtree(base)
            raise RuntimeError(f"temp dir {base} lies inside the project; set TMPDIR elsewhere")
        self.base = base
        # ends as the user's path: a path the sandbox chose never fails a test that checks its own
        self.project = base / "tree" / self.root.relative_to(self.root.anchor)
        self.run_dir = base / "run"
        self.cache_dir = base / "cache"
        self.links = tuple(safe_rel(rel) for rel in links)
        self.keep = tuple(safe_rel(rel) for rel in keep)
        self.resets = 0
        self._overlaid: set[str] = set()
        self.run_dir.mkdir()
        self.cache_dir.mkdir()
        self._copy()

    def _copy(self) -> None:
        shutil.copytree(self.root, self.project, symlinks=True, ignore=_ignorer(self.root))
        for rel in self.links:
            source, copy = self.root / rel, self.project / rel
            if source.is_dir() and not os.path.lexists(copy):
                copy.parent.mkdir(parents=True, exist_ok=True)
                _link_entries(source, copy)
        hand_over_tree(self.base)  # before the snapshot: a chown changes ctime
        self._pristine = self._scan()

    # --- reading ----------------------------------------------------------------------------------
    def path(self, rel: str) -> Path:
        """The scratch counterpart of a project-relative path."""
        return self.project / rel

    def _skipped(self, rel: str) -> bool:
        return any(rel == k or rel.startswith(k + "/") for k in (*self.keep, *self.links))

    def _scan(self) -> dict[str, _Entry]:
        """Every file, link and directory of the copy (kept and linked directories left out)."""
        entries: dict[str, _Entry] = {}
        for dirpath, dirnames, filenames in os.walk(self.project):
            rel_dir = os.path.relpath(dirpath, self.project)
            for name in [*dirnames, *filenames]:
                rel = name if rel_dir == "." else f"{rel_dir}/{name}"
                if self._skipped(rel):
                    continue
                st = os.lstat(os.path.join(dirpath, name))
                link = (
                    os.readlink(os.path.join(dirpath, name)) if stat.S_ISLNK(st.st_mode) else None
                )
                entries[rel] = _Entry(
                    st.st_mode, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns, link
                )
            dirnames[:] = [
                d
                for d in dirnames
                if not os.path.islink(os.path.join(dirpath, d))
                and not self._skipped(d if rel_dir == "." else f"{rel_dir}/{d}")
            ]
        return entries

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
        """Project files deleted and changed since `before` (new files are not damage, nor files
        assay itself took out of the copy, such as a broken sibling test, nor files an earlier run
        of the tests wrote: a `node --test` collection run at gate 1 that wrote `out.txt`)."""
        after = self.snapshot()
        ours = {p for p in before if p in self._pristine or p in self._overlaid}
        deleted = sorted(p for p in ours if p not in after and p not in self._overlaid)
        changed = sorted(
            p
            for p in ours
            if p in after and after[p] != before[p] and not self._as_it_was(p, after[p][0])
        )
        return deleted, changed

    def _as_it_was(self, rel: str, size: int) -> bool:
        """Whether a file the tests wrote holds what the user's tree holds, byte for byte: a test
        that rewrites a project file and restores it (tomlkit's `test_toml_file` writes its
        example back in a `finally`) left the project as it found it; an overlaid file is judged
        by its snapshot alone."""
        if rel in self._overlaid:
            return False
        try:
            original = self.root / rel
            if original.is_symlink() or original.stat().st_size != size:
                return False
            return filecmp.cmp(original, self.project / rel, shallow=False)
        except OSError:
            return False

    # --- writing ----------------------------------------------------------------------------------
    def apply(self, overlays: Mapping[str, str | bytes | None]) -> None:
        """Write `{relative path: text}` over the copy (None deletes the file); undone
        by `reset()`."""
        for rel, content in overlays.items():
            rel = safe_rel(rel)
            path = self.project / rel
            if self._skipped(rel) or any(
                p.is_symlink() for p in [path, *path.parents] if self.project in p.parents
            ):
                raise InputError(f"cannot overlay {rel}: it lies in a linked or kept directory")
            self._overlaid.add(rel)
            if content is None:
                with contextlib.suppress(FileNotFoundError):
                    path.unlink()
                continue
            path.parent.mkdir(parents=True, exist_ok=True)
            if isinstance(content, bytes):
                path.write_bytes(content)
            else:
                path.write_text(content, encoding="utf-8")

    def reset(self) -> None:
        """Back to the pristine copy: new files deleted, changed ones restored, `run/` emptied
        (`cache/` stays).

        Falls back to a full fresh copy when a file cannot be restored in place (the user's file
        changed since the copy, or a test left a tree that cannot be walked)."""
        try:
            self._reset_in_place()
        except (OSError, _Stale):
            _force_rmtree(self.project)
            self._copy()
        _force_rmtree(self.run_dir)
        self.run_dir.mkdir()
        self._overlaid.clear()
        self.resets += 1

    def _reset_in_place(self) -> None:
        current = self._scan()
        for rel in sorted(set(current) - set(self._pristine), key=len):  # parents first
            path = self.project / rel
            if not os.path.lexists(path):
                continue  # inside a directory removed just before
            if stat.S_ISDIR(current[rel].mode):
                _force_rmtree(path)
            else:
                path.unlink()
        for rel, entry in sorted(self._pristine.items()):
            now = current.get(rel)
            if now == entry and rel not in self._overlaid:
                continue
            self._restore(rel, entry, now)
        fresh = self._scan()
        if {k: _content(v) for k, v in fresh.items()} != {
            k: _content(v) for k, v in self._pristine.items()
        }:
            raise _Stale("the copy does not match its snapshot after a reset")
        self._pristine = fresh

    def _restore(self, rel: str, entry: _Entry, now: _Entry | None) -> None:
        path = self.project / rel
        if stat.S_ISDIR(entry.mode):
            if now is not None and not stat.S_ISDIR(now.mode):
                path.unlink()
            path.mkdir(parents=True, exist_ok=True)
            os.chmod(path, stat.S_IMODE(entry.mode))
            hand_over(path)
            return
        if now is not None:
            if stat.S_ISDIR(now.mode):
                _force_rmtree(path)
            else:
                path.unlink()
        path.parent.mkdir(parents=True, exist_ok=True)
        if entry.link is not None:
            os.symlink(entry.link, path)
            return
        source = self.root / rel
        st = source.stat()
        if (st.st_size, st.st_mtime_ns) != (entry.size, entry.mtime_ns):
            raise _Stale(f"{rel} changed in the project since the copy")
        shutil.copy2(source, path)
        hand_over(path)  # the tests' uid may write it again, as it could in the fresh copy

    def close(self) -> None:
        _force_rmtree(self.base)

    def __enter__(self) -> Workspace:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class _Stale(Exception):
    """The copy cannot be brought back in place; a fresh copy is made instead."""
