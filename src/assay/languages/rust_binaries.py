"""Rust: a candidate's compiled test binary kept across workspaces and runs, so that an unchanged
file compiles nothing, as a native `cargo test` finds it fresh (a second `verify --no-cache` of the
same file copied the crate's 237 MB warm target and recompiled the test crate every time).

The binary is kept by what cargo keys it by: the compiler (`rustc -vV`), the candidate's content (a
binary per version of the file, as for Go), the project's files as the
warm build saw them (names, sizes and mtimes of every file of the scratch copy but the candidate:
the copy keeps the user's mtimes, and a file written over it, a panel member's source, has a new
one), the manifests, lock file and cargo configs the build reads, the build's environment and
command; and then, as cargo's own dep-info check, the content of every file rustc read for the
test crate (its `.d` file: the candidate, its `mod` files, `include_str!` data) must match.

Never kept (`kept_binary` says when else): a binary that depends on where it was built (an `env!`
value, such as `CARGO_MANIFEST_DIR`, naming the workspace, or the workspace's path anywhere in the
loaded part of the executable: a later workspace has another path).
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import struct
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING

from assay.languages import kept_binary
from assay.languages.kept_binary import digest
from assay.languages.rust_warm import rust_version

if TYPE_CHECKING:
    from assay.execution.workspace import Workspace
    from assay.languages.rust import RustRunner

KIND = "cargo"
_MANIFESTS = ("Cargo.toml", "Cargo.lock", ".cargo/config.toml", ".cargo/config")


def key_of(runner: RustRunner, ws: Workspace, crate: str, rel: str, argv: list[str]) -> str | None:
    """What the candidate `rel`'s test binary depends on besides the files rustc reads for it
    (those are checked against the record): compiler, the candidate's content, project files,
    manifests (by content: `register_test` may extend one), environment, command; None for a
    project too large to list cheaply."""
    root = runner.project.root
    state = kept_binary.project_state(ws, rel, skip=_MANIFESTS)
    if state is None:
        return None
    h = hashlib.sha256(f"{root.resolve()}\0{rust_version(root / crate)}\0{state}\0".encode())
    # the candidate's content too: one binary kept per version of the file (with the name alone, the
    # first version's binary stayed kept and an edited file was rebuilt at every run)
    h.update(f"{digest(ws.path(rel))}\0".encode())
    crate_dir = ws.path(crate)
    home = Path(os.environ.get("CARGO_HOME") or os.path.expanduser("~/.cargo"))
    for directory in [crate_dir, *crate_dir.parents, home]:
        for name in _MANIFESTS:
            with contextlib.suppress(OSError):
                data = (directory / name).read_bytes()
                h.update(f"{name}\0{len(data)}\0".encode() + data)
    h.update(kept_binary.environment(runner, ws).encode())
    h.update("\0".join([crate, *argv]).encode())
    return h.hexdigest()[:32]


def reuse(ws: Workspace, key: str) -> str | None:
    """The kept test binary for `key` in this workspace, when every file rustc read for it has the
    same content here; else None (cargo builds it)."""
    kept = kept_binary.reuse(ws, KIND, key)
    return str(kept.path) if kept else None


def keep(ws: Workspace, key: str, artifact: dict) -> None:
    """Keep the test binary cargo just built (`artifact`: its `compiler-artifact` message) under
    `key`, with the content of every workspace file rustc read for it; nothing when it depends on
    the workspace's path."""
    exe = Path(artifact["executable"])
    inputs = _inputs(ws, exe, artifact)
    if inputs is not None and not _names(exe, str(ws.base).encode()):
        kept_binary.keep(ws, KIND, key, exe, inputs)


def _inputs(ws: Workspace, exe: Path, artifact: dict) -> dict[str, str] | None:
    """{project-relative path: sha256} of what rustc read for the test crate (its dep-info file
    beside the executable), or None when that cannot be told or the build read the workspace's
    path from the environment (`env!("CARGO_MANIFEST_DIR")`, `OUT_DIR`)."""
    try:
        lines = exe.with_name(exe.name + ".d").read_text(encoding="utf-8").splitlines()
    except OSError:
        return None
    base = str(ws.base)
    if any(ln.startswith("# env-dep:") and base in ln for ln in lines):
        return None
    head = next((ln for ln in lines if ln.startswith(str(exe) + ":")), None)
    if head is None:
        return None
    files = head.split(":", 1)[1].split()  # rustc escapes no spaces: a path with one is refused
    src = (artifact.get("target") or {}).get("src_path", "")
    cwd = next(
        (src[: -len(f) - 1] for f in files if not f.startswith("/") and src.endswith("/" + f)),
        None,
    )
    out = {}
    for name in files:
        path = Path(os.path.normpath(name if name[0] == "/" else f"{cwd}/{name}")) if cwd else None
        if path is None or ws.project not in path.parents:
            return None  # outside the project copy (a generated file, the target directory)
        found = digest(path)
        if found is None:
            return None
        out[PurePosixPath(path.relative_to(ws.project)).as_posix()] = found
    return out or None


def _names(exe: Path, needle: bytes) -> bool:
    """Whether `needle` appears in the sections of the ELF executable that are loaded at run time
    (debug info, which names the build directory in every build, is not loaded); True when the
    file is not a 64-bit little-endian ELF (not kept: it cannot be told)."""
    try:
        data = exe.read_bytes()
    except OSError:
        return True
    if data[:4] != b"\x7fELF" or data[4:6] != b"\x02\x01":
        return True
    (shoff,) = struct.unpack_from("<Q", data, 0x28)
    entsize, count = struct.unpack_from("<HH", data, 0x3A)
    for i in range(count):
        kind, flags, _, offset, size = struct.unpack_from("<IQQQQ", data, shoff + i * entsize + 4)
        loaded, nobits = flags & 0x2, kind == 8  # SHF_ALLOC; SHT_NOBITS (.bss) has no bytes
        if loaded and not nobits and data.find(needle, offset, offset + size) >= 0:
            return True
    return False
