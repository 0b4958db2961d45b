"""Rust's warm build (`languages.warm`): the crate's cargo target directory with its library,
dependencies and dev-dependencies built, per crate and compiler. A workspace's target directory
starts as a copy of it, so a candidate's build compiles the candidate's test crate alone (the
dependencies, dev-dependencies and the library are fresh: cargo's fingerprints hash paths relative
to the workspace root, and the copy keeps mtimes) instead of the whole dependency tree each time."""

from __future__ import annotations

import contextlib
import functools
import subprocess
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING

from assay.execution.workspace import Workspace
from assay.languages.rust_manifest import register_test
from assay.languages.tooling import module_files
from assay.languages.warm import location, refresh, seed, state_of
from assay.sandbox.profiles import expand

if TYPE_CHECKING:
    from assay.languages.rust import RustRunner

BUILD_FILES = ("Cargo.toml", "Cargo.lock", "build.rs")
WARM_TEST = "assay_warm"
# a workspace's target directory links the warm build's files from this size on (libraries,
# metadata, executables: rustc and the linker write them anew); cargo rewrites smaller ones in
# place (fingerprints, dep-info, its lock): those are copied
LINK_FROM = 64 * 1024


@functools.lru_cache(maxsize=16)
def rust_version(crate_dir: Path) -> str:
    """`rustc -vV` where the crate is (a `rust-toolchain.toml` picks another compiler there): a warm
    build made by one compiler is no use to another."""
    try:
        out = subprocess.run(
            ["rustc", "-vV"], cwd=crate_dir, capture_output=True, text=True, timeout=60
        )
    except (OSError, subprocess.SubprocessError):
        return "rustc ?"
    return out.stdout.strip() or "rustc ?"


def _target_dir(runner: RustRunner, cache: Path) -> Path:
    return Path(expand(runner.profile.env["CARGO_TARGET_DIR"], cache, cache))


def warm_target(runner: RustRunner, ws: Workspace, crate: str) -> None:
    """Before the workspace's first build: its target directory (the profile's
    `CARGO_TARGET_DIR`, in the workspace's cache) becomes a copy of the crate's warm build, made
    or brought up to date first."""
    target = _target_dir(runner, ws.cache_dir)
    if target.exists():
        return
    root = runner.project.root
    warm = location("cargo", root, crate, rust_version(root / crate))
    state = state_of(root, built_from(root, crate))
    if refresh(warm, state, lambda d: _build(runner, d, crate)):
        seed(warm, target.name, target, link_from=LINK_FROM)


def built_from(root: Path, crate: str) -> list[str]:
    """The crate's files the warm build depends on: its sources and build files, not its test,
    bench and example targets, which it never compiles (editing a test file, a candidate, left
    the warm build to be checked again: a scratch copy and a cargo start, 0.2-0.4 s of CPU)."""
    targets = tuple(
        (PurePosixPath(crate) / d).as_posix() + "/" for d in ("tests", "benches", "examples")
    )
    files = module_files(root, crate, (".rs",), BUILD_FILES)
    return [f for f in files if not f.startswith(targets)]


def _build(runner: RustRunner, warm: Path, crate: str) -> bool:
    """The library, its dependencies and dev-dependencies, built for an empty integration test of
    assay's own (`cargo test --no-run --test assay_warm`) in a pristine copy, outside the sandbox
    with the sandboxed runs' environment and `warm` as their cache. Trusted as the prepare step is:
    the user's own crate and build; no test file of the project is compiled (one may be a
    candidate)."""
    with Workspace(runner.project.root) as pristine:
        rel = (PurePosixPath(crate) / "tests" / f"{WARM_TEST}.rs").as_posix()
        pristine.apply({rel: "// assay's warm build: the library and dev-dependencies only\n"})
        register_test(pristine.project, crate, rel)
        env = runner.sandbox.env_for(
            pristine.run_dir / "home", runner.env_extra(pristine), runner.profile, cache=warm
        )
        with contextlib.suppress(OSError, subprocess.SubprocessError):
            subprocess.run(
                ["cargo", "test", "--offline", "--no-run", "--test", WARM_TEST],
                cwd=pristine.path(crate),
                env=env,
                capture_output=True,
                stdin=subprocess.DEVNULL,
                timeout=max(runner.timeout_s, 1800),
            )
    # a crate whose own tests do not all build still leaves its dependencies built
    return _target_dir(runner, warm).is_dir()
