"""cgroups that cap a sandboxed run's processes (pids) and memory: where this machine lets assay
make them, which file holds a controller's limit, and the sweep of those a killed assay left.

Each run's cgroup is `<base>/<assay's pid>-<random>`; one whose assay process is gone (`kill -9`)
is removed when the next assay starts (a cgroup that still holds processes cannot be removed and
stays)."""

from __future__ import annotations

import functools
import os
from pathlib import Path

_CGROUP_ROOTS = {
    "pids": (Path("/sys/fs/cgroup/pids"), Path("/sys/fs/cgroup/unified"), Path("/sys/fs/cgroup")),
    "memory": (
        Path("/sys/fs/cgroup/memory"),
        Path("/sys/fs/cgroup/unified"),
        Path("/sys/fs/cgroup"),
    ),
}
_LIMIT_FILES = {"pids": ("pids.max",), "memory": ("memory.max", "memory.limit_in_bytes")}


@functools.lru_cache(maxsize=2)
def cgroup_base(controller: str) -> Path | None:
    """A writable cgroup directory with `controller` (pids, memory) whose children get a limit file,
    or None."""
    for root in _CGROUP_ROOTS[controller]:
        controllers = root / "cgroup.controllers"
        has = (
            any((root / f).exists() for f in _LIMIT_FILES[controller])
            or root.name == controller
            or (controllers.exists() and controller in controllers.read_text().split())
        )
        if not has or not root.is_dir():
            continue
        base = root / "assay"
        try:
            base.mkdir(exist_ok=True)
            if controllers.exists():  # cgroup v2: children need the controller enabled
                (root / "cgroup.subtree_control").write_text(f"+{controller}")
                (base / "cgroup.subtree_control").write_text(f"+{controller}")
            probe = base / f"probe-{os.getpid()}"
            probe.mkdir(exist_ok=True)
            ok = any((probe / f).exists() for f in _LIMIT_FILES[controller])
            probe.rmdir()
            if ok:
                sweep_stale(base)
                return base
        except OSError:
            continue
    return None


def limit_file(cgroup: Path, controller: str) -> Path:
    return next(
        (cgroup / f for f in _LIMIT_FILES[controller] if (cgroup / f).exists()),
        cgroup / _LIMIT_FILES[controller][0],
    )


def pid_alive(pid: int) -> bool:
    """Whether a process with this pid exists (one of another user's counts too)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def sweep_stale(base: Path) -> int:
    """Remove the run cgroups under `base` whose assay process is dead; how many were removed."""
    removed = 0
    for child in base.iterdir() if base.is_dir() else ():
        owner, sep, _ = child.name.partition("-")
        if not child.is_dir() or not (owner.isdigit() and sep) or pid_alive(int(owner)):
            continue
        try:
            child.rmdir()
            removed += 1
        except OSError:
            continue
    return removed
