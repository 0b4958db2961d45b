"""What the sandbox applies on this machine, in words (the report's sandbox line) and per toolchain
profile (the limits each file's report names): reported, never assumed."""

from __future__ import annotations

from assay.config import SandboxConfig
from assay.model import SandboxInfo
from assay.sandbox.namespaces import TEST_UID, as_root
from assay.sandbox.profiles import Profile

WEAKER = (
    "sandbox: WEAKER PROFILE: unshare with mount and pid namespaces is not available here, so "
    "the network is not cut, /tmp, /dev/shm and the home directory are shared, and tests run as "
    "you (docs/sandbox.md)"
)


def cpu_limit(timeout: float) -> int:
    """RLIMIT_CPU of a run: twice the wall timeout and some (a run may use more than one core)."""
    return int(timeout * 2) + 5


def limits(config: SandboxConfig, profile: Profile, cgroups: set[str]) -> dict[str, object]:
    """The limits a run under `profile` gets here."""
    out: dict[str, object] = {"profile": profile.name, "timeout_s": config.timeout_s}
    if profile.memory == "cgroup":
        out["memory"] = (
            f"{config.memory_mb} MB (memory cgroup)"
            if "memory" in cgroups
            else "not limited (no memory cgroup here; this toolchain cannot start under an "
            "address-space limit)"
        )
    else:
        out["memory"] = f"{config.memory_mb} MB (address space)"
    pids = profile.max_processes or config.max_processes
    out["processes"] = f"{pids} (pids cgroup)" if "pids" in cgroups else "not limited (no cgroup)"
    out["cpu_s"] = cpu_limit(config.timeout_s)
    out["file_size_mb"] = config.file_size_mb
    return out


def describe(
    config: SandboxConfig,
    profile: Profile,
    unshare: tuple[str, ...] | None,
    cgroups: set[str],
    removed: list[str],
    bwrap: bool = False,
) -> SandboxInfo:
    """The isolation runs under `profile` get on this machine (`bwrap`: bubblewrap builds the
    view)."""
    warning = None
    if bwrap:
        network = (
            "allowed by config" if config.network else "cut (network namespace, loopback only)"
        )
        who = f"uid {TEST_UID} (nobody)" if as_root() else "you, in a user namespace"
        fs = (
            "only the system directories, the project (read-only), the toolchain and the "
            "interpreter (read-only) and a scratch copy (writable) exist; private /tmp, /run, "
            f"/dev/shm; tests run as {who}, no capabilities"
        )
        procs = "pid namespace (whole tree killed on timeout)"
    elif unshare is not None:
        network = "allowed by config" if config.network else "cut (empty network namespace)"
        who = (
            f"uid {TEST_UID} (nobody), no capabilities"
            if as_root()
            else "a nested user namespace without capabilities"
        )
        fs = (
            "project and every other mount read-only, tests write only in a scratch copy; "
            f"private /tmp, /run, /dev/shm; /home and /root hidden; tests run as {who}"
        )
        procs = "pid namespace (whole tree killed on timeout)"
    else:
        why = "unshare with user namespaces is not available here"
        network = "allowed by config" if config.network else f"not cut: {why}"
        fs = f"scratch copy only, project not mounted read-only: {why}"
        procs = "process group (killed on timeout)"
        warning = WEAKER
    pids = profile.max_processes or config.max_processes
    procs += f", pids.max={pids}" if "pids" in cgroups else ", no process-count limit (no cgroup)"
    rlimits: dict[str, object] = {
        "file_size_mb": config.file_size_mb,
        "cpu_s": cpu_limit(config.timeout_s),
    }
    if profile.memory == "cgroup" and "memory" in cgroups:
        rlimits["memory_cgroup_mb"] = config.memory_mb
    elif profile.memory == "cgroup":
        rlimits["memory"] = (
            "not limited: no memory cgroup here, and this toolchain cannot start under an "
            "address-space limit"
        )
    else:
        rlimits["address_space_mb"] = config.memory_mb
    return SandboxInfo(
        network=network,
        filesystem=fs,
        processes=procs,
        rlimits=rlimits,
        env_removed=removed,
        timeout_s=config.timeout_s,
        warning=warning,
    )
