"""Run untrusted test code in a subprocess with limits: `Sandbox` starts, times out, kills and reaps
each run, applying the layers the package docstring lists where this machine allows them."""

from __future__ import annotations

import contextlib
import ctypes
import os
import resource
import signal
import subprocess
import tempfile
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from assay.config import SandboxConfig
from assay.model import SandboxInfo
from assay.sandbox.cgroups import cgroup_base, limit_file
from assay.sandbox.environment import scrubbed_env
from assay.sandbox.namespaces import MOUNT_RO, unshare_flags
from assay.sandbox.profiles import PYTHON, Profile, expand

# Scratch workspaces are directories with this prefix (execution.workspace makes them): a run inside
# one may write that whole tree.
WORKSPACE_PREFIX = "assay-ws-"


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
        self.unshare = unshare_flags()
        self.cgroups = {c: base for c in ("pids", "memory") if (base := cgroup_base(c)) is not None}
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

    def _wrap(
        self,
        argv: list[str],
        writable: Path,
        shared: tuple[str, ...] = (),
        loopback: bool = False,
    ) -> list[str]:
        if self.unshare is None:
            return argv
        ns = ["unshare", *self.unshare]
        if not self.config.network:
            ns.append("--net")
            if loopback:  # the namespace's own 127.0.0.1, nothing of the host's
                argv = ["sh", "-c", 'ip link set lo up 2>/dev/null; exec "$@"', "sh", *argv]
        return [
            *ns,
            "sh",
            "-c",
            MOUNT_RO,
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
                limit_file(path, controller).write_text(str(limit))
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
            self._wrap(
                argv, self._writable_for(cwd), self._shared_dirs(profile, cwd), profile.loopback
            ),
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
