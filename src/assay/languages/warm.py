"""Warm builds: one build of the pristine project per project, module and toolchain, kept in
assay's cache, that every workspace starts from, so that a candidate compiles only what it adds
(Rust rebuilt every dependency of the crate in each workspace: 83-131 s where a warm `cargo test`
takes 0.3 s).

Like the prepare step, a warm build is the user's own build of the user's own files with no
candidate present, so it runs outside the sandbox, in a scratch copy of the pristine project, with
the environment the sandboxed runs get (their build caches then see it as up to date). Tests never
reach it: a workspace gets a copy (`seed`; Rust's large files hard links that the tests' uid cannot
write), which is all its runs can write. It is rebuilt in place
(incrementally) when a file it was built from changed (name, size or mtime); a lock file keeps
concurrent assay processes from reading a half-written build.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import os
import shutil
import stat
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path

from assay.sandbox import assay_cache

MARKER = "assay-warm-state"


def location(kind: str, root: Path, module: str, toolchain: str) -> Path:
    """Where the warm build of `kind` ("cargo", "maven") for one module of one project, made with
    one toolchain, lives."""
    key = hashlib.sha256(f"{root.resolve()}\0{module}\0{toolchain}".encode()).hexdigest()[:20]
    return assay_cache() / "warm" / kind / key


def state_of(root: Path, files: list[str]) -> str:
    """What the warm build depends on: the names, sizes and mtimes of the module's source and build
    files (a copy keeps mtimes, so the build tool's own checks agree)."""
    h = hashlib.sha256()
    for rel in files:
        try:
            st = (root / rel).stat()
        except OSError:
            continue
        h.update(f"{rel}\0{st.st_size}\0{st.st_mtime_ns}\n".encode())
    return h.hexdigest()


@contextlib.contextmanager
def _locked(directory: Path, exclusive: bool) -> Iterator[None]:
    directory.parent.mkdir(parents=True, exist_ok=True)
    with open(directory.with_name(directory.name + ".lock"), "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def refresh(directory: Path, state: str, build: Callable[[Path], bool]) -> bool:
    """Bring the warm build in `directory` up to `state` with `build(directory)` (which says whether
    it left a usable build) unless it is there already; whether a usable build is there."""
    marker = directory / MARKER
    with _locked(directory, exclusive=True):
        if _read(marker) == state:
            return True
        directory.mkdir(parents=True, exist_ok=True)
        marker.unlink(missing_ok=True)
        if not build(directory):
            return False
        marker.write_text(state, encoding="utf-8")
        return True


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except OSError:
        return None


def seed(warm: Path, part: str, dest: Path, link_from: int | None = None) -> bool:
    """Copy `part` of the warm build in `warm` to `dest` (which must not exist yet), keeping mtimes
    (build tools compare them); whether it was copied. `cp -a` where there is one: three times as
    fast as Python's copy on a 200 MB Rust target, and a reflink where the file system has them.

    With `link_from` (a size in bytes), where the tests run as another uid than assay's
    (`linkable`), the files of that size or more are hard links instead (semver's 237 MB target:
    0.25 s of CPU to copy; its libraries, metadata and executables are 99% of it) that the tests'
    uid cannot write: owned by assay's, without write bits for others. The build tools write such
    artefacts as new files in the workspace's directories (the tests' uid's), never through a
    link; the small files they rewrite in place (cargo's fingerprints, lock, dep-info) are
    copies."""
    source = warm / part
    if not source.is_dir() or os.path.lexists(dest):
        return False
    partial = dest.with_name(dest.name + ".partial")
    shutil.rmtree(partial, ignore_errors=True)
    partial.parent.mkdir(parents=True, exist_ok=True)
    link = link_from is not None and linkable(dest.parent)
    with _locked(warm, exclusive=False):  # the copies in `_share` read the warm build too
        if link and not _copy(source, partial, link=True):
            link = False  # another file system than the warm build's: no links across
        if not link and not _copy(source, partial, link=False):
            return False
        if link:
            _share(source, partial, dest.parent, link_from or 0)
    if not link:
        _own_like(partial, dest.parent)
    os.replace(partial, dest)
    return True


def _copy(source: Path, partial: Path, link: bool) -> bool:
    """`source` copied (or linked) to `partial` with its mtimes; whether it was (none left when
    not)."""
    cp = shutil.which("cp")
    try:
        if cp is not None:
            subprocess.run(
                [cp, "-a", "--link" if link else "--reflink=auto", str(source), str(partial)],
                check=True,
                capture_output=True,
                timeout=600,
            )
        else:
            copy = os.link if link else shutil.copy2
            shutil.copytree(source, partial, symlinks=True, copy_function=copy)
    except (OSError, subprocess.SubprocessError):
        shutil.rmtree(partial, ignore_errors=True)
        return False
    return True


def linkable(parent: Path) -> bool:
    """Whether a workspace directory is handed to another uid than assay's, which can then not
    write files assay owns (assay runs as root and the sandbox runs the build and the tests as
    its unprivileged uid)."""
    return os.geteuid() == 0 and parent.stat().st_uid != 0


def _share(source: Path, tree: Path, parent: Path, link_from: int) -> None:
    """A linked copy (`tree`, of `source`) made usable by the workspace's uid and harmless to the
    warm build: its directories that uid's (the build adds and replaces files there), the linked
    files writable by their owner alone, the files under `link_from` bytes copies of that uid's.
    The copies are one `cp` (semver's 359 small files copied one by one in Python were 0.07 s of
    CPU, a third of what assay adds to an edited file's build)."""
    want = parent.stat()
    owned: list[str] = []  # to hand to the workspace's uid: directories, symlinks, copies
    copies: list[str] = []  # relative to `tree`: links replaced by copies of their own
    for dirpath, dirnames, filenames in os.walk(tree):
        owned += (os.path.join(dirpath, name) for name in dirnames)
        for name in filenames:
            path = os.path.join(dirpath, name)
            st = os.lstat(path)
            if not stat.S_ISREG(st.st_mode):
                owned.append(path)  # a symlink: its own inode
            elif st.st_size < link_from or st.st_uid != os.geteuid():
                copies.append(os.path.relpath(path, tree))
            elif st.st_mode & 0o022:
                os.chmod(path, st.st_mode & ~0o022)
    _copy_over(source, tree, copies)
    owned += (os.path.join(tree, rel) for rel in copies)
    for path in owned:
        os.lchown(path, want.st_uid, want.st_gid)
    os.lchown(tree, want.st_uid, want.st_gid)


def _copy_over(source: Path, tree: Path, rels: list[str]) -> None:
    """Each of `rels` in `tree`, a link to the same file in `source`, replaced by a copy of its
    own with the file's mode and mtime (the link removed first: the warm build's file is never
    written)."""
    cp = shutil.which("cp")
    for start in range(0, len(rels), 500):  # well under the argument list's limit
        chunk = rels[start : start + 500]
        if cp is not None:
            argv = [cp, "--preserve=mode,timestamps", "--remove-destination", "--parents"]
            run = [*argv, "-t", str(tree), "--", *chunk]
            with contextlib.suppress(OSError, subprocess.SubprocessError):
                subprocess.run(run, cwd=source, check=True, capture_output=True, timeout=600)
                continue
        for rel in chunk:  # no cp, or it failed: one by one
            mine = os.path.join(tree, rel + ".own")
            shutil.copy2(os.path.join(source, rel), mine)
            os.replace(mine, os.path.join(tree, rel))


def _own_like(tree: Path, parent: Path) -> None:
    """The copy belongs to whoever owns the directory it lands in: a sandbox that runs tests under
    another uid hands the workspace to that uid, and the build must be able to write its copy."""
    want = parent.stat()
    if os.geteuid() != 0 or want.st_uid == os.geteuid():
        return
    for dirpath, dirnames, filenames in os.walk(tree):
        for name in (*dirnames, *filenames):
            os.lchown(os.path.join(dirpath, name), want.st_uid, want.st_gid)
    os.lchown(tree, want.st_uid, want.st_gid)
