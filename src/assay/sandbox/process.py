"""Run untrusted test code in a subprocess with limits.

Layers, each applied only where this machine allows it and reported as such (`SandboxInfo`):
- wall timeout; the whole process tree is killed on expiry (pid namespace, else process group);
- rlimits: address space, CPU seconds, file size, no core dumps;
- a pids cgroup caps the number of processes (fork bombs); where a memory cgroup can be made, a
  profile may limit memory there instead of by address space (a JVM or Node reserves far more
  address space than it uses);
- `unshare`: new user+mount+pid namespaces, network namespace without interfaces, and the user's
  project bind-mounted read-only so that even absolute paths into it cannot be written;
- an environment without anything that looks like a secret, with HOME and TMPDIR in scratch space.
If assay itself dies (even SIGKILL), PR_SET_PDEATHSIG takes the sandboxed tree down with it.

A `Profile` says what one toolchain needs beyond that, without weakening the rest: environment
variables that point it at its build caches (read-only, like every path outside the workspace), a
build cache of its own in the workspace's `cache/`, the memory limit it can start under, directories
the workspace keeps or links.
"""

from __future__ import annotations

import contextlib
import ctypes
import functools
import os
import re
import resource
import shutil
import signal
import subprocess
import tempfile
import threading
import time
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, Literal

from assay.config import SandboxConfig
from assay.model import SandboxInfo

# Scratch workspaces are directories with this prefix (execution.workspace makes them): a run inside
# one may write that whole tree.
WORKSPACE_PREFIX = "assay-ws-"

SECRET_NAME = re.compile(r"KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL", re.IGNORECASE)
# $1 = the user's project (read-only, or fail), then the directories that stay writable (the scratch
# workspace and any shared build cache of assay's own) up to "--"; then every other mount is made
# read-only where the kernel allows, so a test cannot write outside them.
_MOUNT_RO = r"""
mount --bind "$1" "$1" && mount -o remount,bind,ro "$1" || exit 97
p="$1"; shift
keep=""
while [ "$1" != "--" ]; do
  mount --bind "$1" "$1" || exit 97
  keep="$keep$1
"
  shift
done
shift
IFS='
'
for m in $(awk '{print $5}' /proc/self/mountinfo | sort -u); do
  case "$m" in /proc|/proc/*|/sys|/sys/*|/dev|/dev/*|"$p") continue;; esac
  skip=""
  for w in $keep; do case "$m" in "$w"|"$w"/*) skip=1;; esac; done
  [ -n "$skip" ] || mount -o remount,bind,ro "$m" 2>/dev/null
done
unset IFS
exec "$@"
"""
_CGROUP_ROOTS = {
    "pids": (Path("/sys/fs/cgroup/pids"), Path("/sys/fs/cgroup/unified"), Path("/sys/fs/cgroup")),
    "memory": (
        Path("/sys/fs/cgroup/memory"),
        Path("/sys/fs/cgroup/unified"),
        Path("/sys/fs/cgroup"),
    ),
}
_LIMIT_FILES = {"pids": ("pids.max",), "memory": ("memory.max", "memory.limit_in_bytes")}


@dataclass(frozen=True)
class Profile:
    """What one toolchain needs from the sandbox. `env` values may name `{cache}` (the workspace's
    build cache, writable, kept across resets), `{home}` (the run's HOME) and `{user_home}` (the
    real home, read-only: where `~/.m2`, `~/.cargo/registry` and the Go module cache live)."""

    name: str = "python"
    env: Mapping[str, str] = field(default_factory=dict)
    memory: Literal["address_space", "cgroup"] = "address_space"
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


def assay_cache() -> Path:
    """assay's own cache directory (build caches shared by sandboxed runs, downloaded
    test launchers)."""
    return Path(os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache")) / "assay"


def expand(value: str, cache: Path, home: Path) -> str:
    """A profile value with `{cache}`, `{home}`, `{user_home}` and `{assay_cache}` filled in."""
    return value.format(
        cache=cache, home=home, user_home=os.path.expanduser("~"), assay_cache=assay_cache()
    )


PYTHON = Profile()


class Cancelled(Exception):
    """The sandbox was cancelled: no new process starts."""


@dataclass
class RunResult:
    returncode: int
    stdout: str
    stderr: str
    duration_s: float
    timed_out: bool = False

    @property
    def limit_hit(self) -> str | None:
        """Which limit ended the run, in words, if one did."""
        if self.timed_out:
            return "timed out"
        if self.returncode in (-signal.SIGKILL, 128 + signal.SIGKILL, 137):
            return "killed (memory or process limit)"
        if self.returncode in (-signal.SIGXCPU, 128 + signal.SIGXCPU):
            return "CPU time limit exceeded"
        if self.returncode in (-signal.SIGXFSZ, 128 + signal.SIGXFSZ):
            return "file size limit exceeded"
        return None


def scrubbed_env(base: dict[str, str] | None = None) -> tuple[dict[str, str], list[str]]:
    """The environment minus every variable whose name looks like a secret; also returns what
    was removed."""
    env = dict(os.environ if base is None else base)
    removed = sorted(k for k in env if SECRET_NAME.search(k))
    for k in removed:
        del env[k]
    return env, removed


def _probe(argv: list[str]) -> bool:
    try:
        return subprocess.run(argv, capture_output=True, timeout=10).returncode == 0
    except (OSError, subprocess.SubprocessError):
        return False


_NAMESPACES = ("--user", "--map-root-user", "--mount", "--pid", "--fork", "--kill-child")


@functools.lru_cache(maxsize=1)
def _unshare_flags() -> tuple[str, ...] | None:
    """unshare's flags that work here: with a /proc of the new pid namespace's own where the kernel
    lets us mount one (the worker reads its children's CPU use there), else without; None when
    unshare fails."""
    if not shutil.which("unshare"):
        return None
    probe_dir = tempfile.mkdtemp(prefix="assay-probe-")
    try:
        writable = tempfile.mkdtemp(prefix="assay-probe-w-")
        try:
            check = f"! touch {probe_dir}/x && touch {writable}/x"
            for extra in (("--mount-proc",), ()):
                if _probe(
                    [
                        "unshare",
                        *_NAMESPACES,
                        *extra,
                        "--net",
                        "sh",
                        "-c",
                        _MOUNT_RO,
                        "sh",
                        probe_dir,
                        writable,
                        "--",
                        "sh",
                        "-c",
                        check,
                    ]
                ):
                    return (*_NAMESPACES, *extra)
            return None
        finally:
            shutil.rmtree(writable, ignore_errors=True)
    finally:
        shutil.rmtree(probe_dir, ignore_errors=True)


@functools.lru_cache(maxsize=2)
def _cgroup_base(controller: str) -> Path | None:
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
                return base
        except OSError:
            continue
    return None


def _limit_file(cgroup: Path, controller: str) -> Path:
    return next(
        (cgroup / f for f in _LIMIT_FILES[controller] if (cgroup / f).exists()),
        cgroup / _LIMIT_FILES[controller][0],
    )


def _set_pdeathsig() -> None:
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):  # pragma: no cover - non-Linux
        pass


class Sandbox:
    """Runs commands for one project; `protect` is the user's tree, which must stay
    byte-identical."""

    def __init__(self, config: SandboxConfig, protect: Path):
        self.config = config
        self.protect = protect.resolve()
        self.unshare = _unshare_flags()
        self.cgroups = {
            c: base for c in ("pids", "memory") if (base := _cgroup_base(c)) is not None
        }
        self.env, self.removed = scrubbed_env()
        self._live: set[subprocess.Popen] = set()
        self._lock = threading.Lock()
        self.cancelled = False

    def cancel(self) -> None:
        """Stop: kill every sandboxed process tree now running, and refuse to start new ones
        (Ctrl-C, SIGTERM)."""
        with self._lock:
            self.cancelled = True
            live = list(self._live)
        for proc in live:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(proc.pid, signal.SIGKILL)

    def info_for(self, profile: Profile = PYTHON) -> SandboxInfo:
        """What isolation applies to runs under `profile` on this machine, in words."""
        if self.use_unshare:
            network = (
                "allowed by config" if self.config.network else "cut (empty network namespace)"
            )
            fs = (
                "project and (where possible) every other mount "
                "read-only; tests write only in a scratch copy"
            )
            procs = "pid namespace (whole tree killed on timeout)"
        else:
            why = "unshare with user namespaces is not available here"
            network = "allowed by config" if self.config.network else f"not cut: {why}"
            fs = f"scratch copy only, project not mounted read-only: {why}"
            procs = "process group (killed on timeout)"
        pids = profile.max_processes or self.config.max_processes
        procs += (
            f", pids.max={pids}"
            if "pids" in self.cgroups
            else ", no process-count limit (no pids cgroup)"
        )
        rlimits: dict[str, object] = {
            "file_size_mb": self.config.file_size_mb,
            "cpu_s": self._cpu_limit(self.config.timeout_s),
        }
        if self._memory_by_cgroup(profile):
            rlimits["memory_cgroup_mb"] = self.config.memory_mb
        elif profile.memory == "cgroup":
            rlimits["memory"] = (
                "not limited: no memory cgroup here, and this toolchain cannot start under an "
                "address-space limit"
            )
        else:
            rlimits["address_space_mb"] = self.config.memory_mb
        return SandboxInfo(
            network=network,
            filesystem=fs,
            processes=procs,
            rlimits=rlimits,
            env_removed=self.removed,
            timeout_s=self.config.timeout_s,
        )

    @property
    def info(self) -> SandboxInfo:
        return self.info_for(PYTHON)

    def _memory_by_cgroup(self, profile: Profile) -> bool:
        return profile.memory == "cgroup" and "memory" in self.cgroups

    @staticmethod
    def _cpu_limit(timeout: float) -> int:
        return int(timeout * 2) + 5

    @staticmethod
    def _writable_for(cwd: Path) -> Path:
        """The scratch workspace that holds `cwd` (its run dir must stay writable too), else
        cwd itself."""
        cwd = cwd.resolve()
        return next((p for p in (cwd, *cwd.parents) if p.name.startswith(WORKSPACE_PREFIX)), cwd)

    @property
    def use_unshare(self) -> bool:
        return self.unshare is not None

    def _wrap(self, argv: list[str], writable: Path, shared: tuple[str, ...] = ()) -> list[str]:
        if self.unshare is None:
            return argv
        ns = ["unshare", *self.unshare]
        if not self.config.network:
            ns.append("--net")
        return [
            *ns,
            "sh",
            "-c",
            _MOUNT_RO,
            "sh",
            str(self.protect),
            str(writable),
            *shared,
            "--",
            *argv,
        ]

    @staticmethod
    def _shared_dirs(profile: Profile, cwd: Path) -> tuple[str, ...]:
        """The profile's shared writable directories, created; one that cannot be created is
        left out."""
        out = []
        for value in profile.shared:
            path = Path(expand(value, cwd, cwd))
            try:
                path.mkdir(parents=True, exist_ok=True)
            except OSError:
                continue
            out.append(str(path.resolve()))
        return tuple(out)

    def _preexec(
        self, timeout: float, cgroups: list[Path], address_space: bool
    ) -> Callable[[], None]:
        mem = self.config.memory_mb * 1024 * 1024
        fsize = self.config.file_size_mb * 1024 * 1024
        cpu = self._cpu_limit(timeout)

        def apply() -> None:
            _set_pdeathsig()
            for cgroup in cgroups:
                fd = os.open(str(cgroup / "cgroup.procs"), os.O_WRONLY)
                os.write(fd, str(os.getpid()).encode())
                os.close(fd)
            if address_space:
                resource.setrlimit(resource.RLIMIT_AS, (mem, mem))
            resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 5))
            resource.setrlimit(resource.RLIMIT_FSIZE, (fsize, fsize))
            resource.setrlimit(resource.RLIMIT_CORE, (0, 0))

        return apply

    def _make_cgroups(self, profile: Profile) -> list[Path]:
        """A fresh cgroup per controller in use, its limit written; unique names so runs never
        share one."""
        limits = {"pids": profile.max_processes or self.config.max_processes}
        if self._memory_by_cgroup(profile):
            limits["memory"] = self.config.memory_mb * 1024 * 1024
        made = []
        for controller, limit in limits.items():
            base = self.cgroups.get(controller)
            if base is None:
                continue
            path = base / uuid.uuid4().hex[:12]
            try:
                path.mkdir()
                _limit_file(path, controller).write_text(str(limit))
                made.append(path)
            except OSError:
                self._drop_cgroups([path])
        return made

    @staticmethod
    def _drop_cgroups(paths: list[Path]) -> None:
        for path in paths:
            for _ in range(50):
                try:
                    path.rmdir()
                    break
                except FileNotFoundError:
                    break
                except OSError:
                    time.sleep(0.02)

    def env_for(
        self,
        home: Path,
        extra: dict[str, str] | None = None,
        profile: Profile = PYTHON,
        cache: Path | None = None,
    ) -> dict[str, str]:
        """The scrubbed environment with HOME/TMPDIR under `home` (created), the profile's variables
        (`{cache}`: the workspace's build cache), `extra`."""
        tmp = home / "tmp"
        tmp.mkdir(parents=True, exist_ok=True)
        env = dict(self.env)
        for k in (
            "PYTHONPATH",
            "PYTHONHOME",
            "PYTHONSTARTUP",
            "PYTEST_ADDOPTS",
            "PYTEST_PLUGINS",
            "COV_CORE_SOURCE",
        ):
            env.pop(k, None)
        cache = cache or home / "cache"
        env.update({"HOME": str(home), "TMPDIR": str(tmp), "PYTHONDONTWRITEBYTECODE": "1"})
        env.update({k: expand(v, cache, home) for k, v in profile.env.items()})
        env.update(extra or {})
        return env

    def popen(
        self,
        argv: list[str],
        cwd: Path,
        env: dict[str, str],
        timeout: float,
        stdout: IO[bytes],
        stderr: IO[bytes],
        profile: Profile = PYTHON,
        **kw: Any,
    ) -> subprocess.Popen[bytes]:
        """Start a sandboxed process; the caller owns it and must call `reap()` when done."""
        if self.cancelled:
            raise Cancelled("the run was cancelled")
        cgroups = self._make_cgroups(profile)
        proc = subprocess.Popen(
            self._wrap(argv, self._writable_for(cwd), self._shared_dirs(profile, cwd)),
            cwd=cwd,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=stdout,
            stderr=stderr,
            start_new_session=True,
            preexec_fn=self._preexec(
                timeout, cgroups, address_space=profile.memory == "address_space"
            ),
            **kw,
        )
        proc._assay_cgroups = cgroups  # type: ignore[attr-defined]
        with self._lock:
            self._live.add(proc)
        if self.cancelled:  # cancelled while it started: it must not outlive the cancel
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(proc.pid, signal.SIGKILL)
        return proc

    def reap(self, proc: subprocess.Popen) -> None:
        """Kill what is left of a sandboxed process tree and free its cgroups."""
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        with self._lock:
            self._live.discard(proc)
        self._drop_cgroups(getattr(proc, "_assay_cgroups", []))

    def run(
        self,
        argv: list[str],
        cwd: Path,
        env: dict[str, str],
        timeout: float | None = None,
        profile: Profile = PYTHON,
    ) -> RunResult:
        """Run to completion or timeout. Output goes through files, never pipes a grandchild could
        hold open."""
        timeout = timeout or self.config.timeout_s
        with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
            start = time.monotonic()
            proc = self.popen(argv, cwd, env, timeout, out, err, profile=profile)
            timed_out = False
            try:
                proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                timed_out = True
            finally:
                self.reap(proc)
            duration = time.monotonic() - start
            out.seek(0)
            err.seek(0)
            return RunResult(
                returncode=proc.returncode,
                stdout=out.read().decode("utf-8", "replace"),
                stderr=err.read().decode("utf-8", "replace"),
                duration_s=duration,
                timed_out=timed_out,
            )
