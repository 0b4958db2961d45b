"""The pristine project tree, packed to travel to workers on other machines and unpacked once
per worker.

A worker of a cluster sees none of this machine's files. `pack` reads the user's tree (only reads
it) with the scratch copy's own rules (`workspace._ignorer`: no VCS dirs, virtualenvs, caches, build
output, huge files, links that leave the project) into a gzipped tar, and names it by a digest of
what a run can see: each file's relative path, executable bit and bytes (a link's target).
`materialize` runs on the worker: the tree is unpacked into a cache directory keyed by that digest,
so every later unit of the same tree reuses it; a run then makes its normal scratch `Workspace` from
that copy and runs inside the same `Sandbox`, with the copy as the tree to protect.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import os
import shutil
import stat
import tarfile
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from assay.execution.workspace import _ignorer

CACHE_PREFIX = "assay-shipped-"
STALE_S = 7 * 24 * 3600  # a shipped tree nobody used for a week is removed


@dataclass(frozen=True)
class PackedTree:
    """A project tree ready to ship: `digest` names its content, `archive` holds it (tar.gz)."""

    digest: str
    archive: bytes
    files: int


@dataclass(frozen=True)
class Unpacked:
    """Where a worker holds a shipped tree, and whether this call unpacked it or found it there."""

    path: Path
    reused: bool


def _members(root: Path) -> list[str]:
    """Relative paths of the files and links the scratch copy would hold, sorted
    (directories implied)."""
    ignore = _ignorer(root)
    found: list[str] = []
    for dirpath, dirnames, filenames in os.walk(root):
        skipped = ignore(dirpath, [*dirnames, *filenames])
        rel_dir = os.path.relpath(dirpath, root)
        for name in filenames + [d for d in dirnames if os.path.islink(os.path.join(dirpath, d))]:
            if name not in skipped:
                found.append(name if rel_dir == "." else f"{rel_dir}/{name}")
        dirnames[:] = sorted(
            d for d in dirnames if d not in skipped and not os.path.islink(os.path.join(dirpath, d))
        )
    return sorted(found)


def pack(root: Path) -> PackedTree:
    """The tree at `root` as a content-addressed archive; `root` is only read."""
    root = root.resolve()
    digest = hashlib.sha256()
    buffer = io.BytesIO()
    members = _members(root)
    with tarfile.open(fileobj=buffer, mode="w:gz", compresslevel=1) as tar:
        for rel in members:
            full = root / rel
            st = os.lstat(full)
            info = tar.gettarinfo(str(full), arcname=rel)
            info.uid = info.gid = 0
            info.uname = info.gname = ""
            digest.update(rel.encode() + b"\0")
            if stat.S_ISLNK(st.st_mode):
                digest.update(b"link\0" + os.readlink(full).encode() + b"\0")
                tar.addfile(info)
                continue
            data = full.read_bytes()
            digest.update(b"x" if st.st_mode & stat.S_IXUSR else b"-")
            digest.update(len(data).to_bytes(8, "big") + data)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return PackedTree(digest.hexdigest(), buffer.getvalue(), len(members))


def cache_root() -> Path:
    """Shipped trees of this user on this machine (shared by the workers that run here)."""
    return Path(tempfile.gettempdir()) / f"{CACHE_PREFIX}{os.getuid()}"


def materialize(tree: PackedTree, root: Path | None = None) -> Unpacked:
    """The shipped tree on this worker: unpacked on first use, found again (not unpacked) by
    later units."""
    base = root or cache_root()
    target = base / tree.digest
    if target.is_dir():  # renamed into place only once complete
        with contextlib.suppress(OSError):
            os.utime(target)
        return Unpacked(target, reused=True)
    base.mkdir(mode=0o700, parents=True, exist_ok=True)
    _prune(base)
    partial = Path(tempfile.mkdtemp(prefix=f".{tree.digest[:12]}-", dir=base))
    partial.chmod(0o755)  # as a checked-out tree is: the sandboxed runs read it
    try:
        with tarfile.open(fileobj=io.BytesIO(tree.archive), mode="r:gz") as tar:
            tar.extractall(partial, filter="data")
        try:
            os.rename(partial, target)
        except OSError:  # another unit of this tree unpacked it first: use theirs
            if not target.is_dir():
                raise
            return Unpacked(target, reused=True)
    finally:
        shutil.rmtree(partial, ignore_errors=True)
    return Unpacked(target, reused=False)


def _prune(base: Path) -> None:
    """Remove shipped trees not used for `STALE_S` (a worker that lives for months must not fill
    its disk)."""
    now = time.time()
    for entry in base.iterdir():
        with contextlib.suppress(OSError):
            if not entry.name.startswith(".") and now - entry.stat().st_mtime > STALE_S:
                shutil.rmtree(entry, ignore_errors=True)
