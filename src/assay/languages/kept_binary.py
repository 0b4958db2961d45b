"""Compiled test binaries kept across workspaces and runs (`rust_binaries`, `go_binaries`): an
unchanged candidate compiles nothing, as the native runner finds its build fresh. Each language
says what a binary depends on (its key and the files whose content must match); this module keeps
and hands out the binaries.

A binary is kept by the trusted parent right after the sandboxed build ends, before any code of
the candidate runs, and only from a workspace where no test ran before the build (a test's code
could have changed the build caches the binary was made from). A workspace gets a copy: a test
can write its own copy, never the kept one. `--no-cache` skips cached verdicts, not build caches.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING

from assay.languages.tooling import module_files
from assay.languages.warm import state_of
from assay.sandbox import assay_cache

if TYPE_CHECKING:
    from assay.execution.workspace import Workspace
    from assay.languages.tooling import ToolRunner

RECORD = "record.json"
MOST_FILES = 5000  # a project with more files is not listed on every run: it builds as before
MOST_KEPT = 32  # binaries kept per language (4-15 MB each), the least recently used dropped first


@dataclass(frozen=True)
class Kept:
    """A kept binary copied into a workspace, and the scratch project it was built in (paths in
    its output name that one)."""

    path: Path
    built_in: str


def digest(path: Path) -> str | None:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return None


def project_state(ws: Workspace, rel: str, skip: tuple[str, ...] = ()) -> str | None:
    """Every file of the scratch copy by name, size and mtime but the candidate `rel` (its content
    is checked apart) and files named in `skip` (hashed by content by the caller): the copy keeps
    the user's mtimes, a file written over it (a panel member's source) has a new one. None for a
    project over MOST_FILES files."""
    listed = module_files(ws.project, ".", ("",), (), limit=MOST_FILES)
    if len(listed) >= MOST_FILES:
        return None
    return state_of(
        ws.project, [f for f in listed if f != rel and PurePosixPath(f).name not in skip]
    )


def environment(runner: ToolRunner, ws: Workspace) -> str:
    """The build's environment in the sandbox, the workspace's own path left out (each workspace
    has another)."""
    env = runner.sandbox.env_for(
        ws.run_dir / "home", runner.env_extra(ws), runner.profile, cache=ws.cache_dir
    )
    base = str(ws.base)
    return "\0".join(f"{k}={env[k].replace(base, '<ws>')}" for k in sorted(env))


def _store(kind: str, key: str) -> Path:
    return assay_cache() / "built" / kind / key


def reuse(ws: Workspace, kind: str, key: str) -> Kept | None:
    """The binary kept for `key`, copied into the workspace, when every file its record names has
    the same content in this workspace; else None (the toolchain builds it)."""
    store = _store(kind, key)
    try:
        record = json.loads((store / RECORD).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if any(digest(ws.project / rel) != d for rel, d in record["inputs"].items()):
        return None
    dest = ws.cache_dir / f"{kind}-test-bin" / record["name"]
    dest.parent.mkdir(parents=True, exist_ok=True)
    try:
        shutil.copy2(store / "binary", dest)
        os.utime(store / RECORD)  # used: the last to be dropped
    except OSError:
        return None
    return Kept(dest, record["built_in"])


def keep(ws: Workspace, kind: str, key: str, exe: Path, inputs: dict[str, str]) -> None:
    """Keep the binary `exe` just built in `ws` under `key`, with `inputs` ({project-relative path:
    sha256}) to check on reuse."""
    store = _store(kind, key)
    if (store / RECORD).is_file():
        return
    store.parent.mkdir(parents=True, exist_ok=True)
    partial = Path(tempfile.mkdtemp(prefix=f"{key}.", dir=store.parent))
    try:
        shutil.copy2(exe, partial / "binary")
        os.chmod(partial / "binary", 0o755)
        record = {"name": exe.name, "inputs": inputs, "built_in": str(ws.project)}
        (partial / RECORD).write_text(json.dumps(record), encoding="utf-8")
        os.replace(partial, store)
    except OSError:
        pass  # another process kept the same binary first, or the disk is full
    finally:
        shutil.rmtree(partial, ignore_errors=True)
    _prune(store.parent)


def _prune(kind_dir: Path) -> None:
    """Drop the least recently used binaries beyond MOST_KEPT (a repair loop keeps one per
    attempt)."""
    used = []
    for entry in kind_dir.iterdir():
        try:
            used.append(((entry / RECORD).stat().st_mtime_ns, entry))
        except OSError:
            continue  # another process is writing it
    for _, entry in sorted(used)[: max(0, len(used) - MOST_KEPT)]:
        shutil.rmtree(entry, ignore_errors=True)
