"""Per-toolchain `Profile`s (what a JVM, Go or Node build needs from the sandbox), apart from the
machinery that enforces the limits; `assay_cache` is where their shared build caches live."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal


@dataclass(frozen=True)
class Profile:
    """What one toolchain needs from the sandbox. `env` values may name `{cache}` (the workspace's
    build cache, writable, kept across resets), `{home}` (the run's HOME) and `{user_home}` (the
    real home, read-only: where `~/.m2`, `~/.cargo/registry` and the Go module cache live)."""

    name: str = "python"
    env: Mapping[str, str] = field(default_factory=dict)
    memory: Literal["address_space", "cgroup"] = "address_space"
    # variables of the user's environment this toolchain reads (names or fnmatch patterns), passed
    # besides PATH, LANG, LC_*, TZ and those the user names in `sandbox.env`
    passes: tuple[str, ...] = ()
    # pids.max for this toolchain (threads count): None = the config's
    max_processes: int | None = None
    # project-relative build output dirs the workspace keeps across resets
    keep: tuple[str, ...] = ()
    # project-relative dirs served read-only from the user's tree (node_modules)
    links: tuple[str, ...] = ()
    # Directories outside the workspace that stay writable, for a build cache of assay's own shared
    # across runs (`{assay_cache}/go-build`: Go rebuilds its standard library into an empty cache, a
    # minute per run).
    shared: tuple[str, ...] = ()
    # the private network namespace's own loopback up (still no route out): tools whose processes
    # talk over 127.0.0.1 (StrykerJS's workers)
    loopback: bool = False


def assay_cache() -> Path:
    """assay's own cache directory (build caches shared by sandboxed runs, downloaded
    test launchers)."""
    return Path(os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache")) / "assay"


def expand(value: str, cache: Path, home: Path) -> str:
    """A profile value with `{cache}`, `{home}`, `{user_home}` and `{assay_cache}` filled in."""
    return value.format(
        cache=cache, home=home, user_home=os.path.expanduser("~"), assay_cache=assay_cache()
    )


PYTHON = Profile(passes=("PYENV_ROOT", "PYENV_VERSION", "VIRTUAL_ENV"))
