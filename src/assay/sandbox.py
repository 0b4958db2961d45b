"""Run untrusted test code in a subprocess with limits.

Layers, each applied only where this machine allows it and reported as such (`SandboxInfo`):
- wall timeout; the whole process tree is killed on expiry (pid namespace, else process group);
- rlimits: address space, CPU seconds, file size, no core dumps;
- a pids cgroup caps the number of processes (fork bombs);
- `unshare`: new user+mount+pid namespaces, network namespace without interfaces, and the user's project
  bind-mounted read-only so that even absolute paths into it cannot be written;
- an environment without anything that looks like a secret, with HOME and TMPDIR in scratch space.
If assay itself dies (even SIGKILL), PR_SET_PDEATHSIG takes the sandboxed tree down with it.
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
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

from assay.config import SandboxConfig
from assay.model import SandboxInfo
from assay.workspace import PREFIX as WORKSPACE_PREFIX

SECRET_NAME = re.compile(r"KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL", re.IGNORECASE)
# $1 = the user's project (read-only, or fail), $2 = the scratch workspace (stays writable); then every other
# mount is made read-only where the kernel allows, so a test cannot write outside its workspace.
_MOUNT_RO = r"""
mount --bind "$1" "$1" && mount -o remount,bind,ro "$1" || exit 97
mount --bind "$2" "$2" || exit 97
for m in $(awk '{print $5}' /proc/self/mountinfo | sort -u); do
  case "$m" in /proc|/proc/*|/sys|/sys/*|/dev|/dev/*|"$1"|"$2"|"$2"/*) continue;; esac
  mount -o remount,bind,ro "$m" 2>/dev/null
done
shift 2
exec "$@"
"""
_CGROUP_ROOTS = (Path("/sys/fs/cgroup/pids"), Path("/sys/fs/cgroup/unified"), Path("/sys/fs/cgroup"))


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
    """The environment minus every variable whose name looks like a secret; also returns what was removed."""
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


@functools.lru_cache(maxsize=1)
def _unshare_ok() -> bool:
    if not shutil.which("unshare"):
        return False
    probe_dir = tempfile.mkdtemp(prefix="assay-probe-")
    try:
        base = ["unshare", "--user", "--map-root-user", "--mount", "--pid", "--fork", "--kill-child", "--net"]
        writable = tempfile.mkdtemp(prefix="assay-probe-w-")
        try:
            check = f"! touch {probe_dir}/x && touch {writable}/x"
            return _probe([*base, "sh", "-c", _MOUNT_RO, "sh", probe_dir, writable, "sh", "-c", check])
        finally:
            shutil.rmtree(writable, ignore_errors=True)
    finally:
        shutil.rmtree(probe_dir, ignore_errors=True)


@functools.lru_cache(maxsize=1)
def _cgroup_base() -> Path | None:
    """A writable cgroup directory with the pids controller, or None."""
    for root in _CGROUP_ROOTS:
        controllers = root / "cgroup.controllers"
        has_pids = (root / "pids.max").exists() or root.name == "pids" or (
            controllers.exists() and "pids" in controllers.read_text()
        )
        if not has_pids or not root.is_dir():
            continue
        base = root / "assay"
        try:
            base.mkdir(exist_ok=True)
            if controllers.exists():  # cgroup v2: children need the controller enabled
                (root / "cgroup.subtree_control").write_text("+pids")
                (base / "cgroup.subtree_control").write_text("+pids")
            probe = base / f"probe-{os.getpid()}"
            probe.mkdir(exist_ok=True)
            ok = (probe / "pids.max").exists()
            probe.rmdir()
            if ok:
                return base
        except OSError:
            continue
    return None


def _set_pdeathsig() -> None:
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):  # pragma: no cover - non-Linux
        pass


class Sandbox:
    """Runs commands for one project; `protect` is the user's tree, which must stay byte-identical."""

    def __init__(self, config: SandboxConfig, protect: Path):
        self.config = config
        self.protect = protect.resolve()
        self.use_unshare = _unshare_ok()
        self.cgroup = _cgroup_base()
        self.env, self.removed = scrubbed_env()

    @property
    def info(self) -> SandboxInfo:
        if self.use_unshare:
            network = "allowed by config" if self.config.network else "cut (empty network namespace)"
            fs = "project and (where possible) every other mount read-only; tests write only in a scratch copy"
            procs = "pid namespace (whole tree killed on timeout)"
        else:
            why = "unshare with user namespaces is not available here"
            network = "allowed by config" if self.config.network else f"not cut: {why}"
            fs = f"scratch copy only, project not mounted read-only: {why}"
            procs = "process group (killed on timeout)"
        limit = f"pids.max={self.config.max_processes}" if self.cgroup else "no process-count limit (no pids cgroup)"
        procs += f", {limit}"
        return SandboxInfo(
            network=network,
            filesystem=fs,
            processes=procs,
            rlimits={
                "address_space_mb": self.config.memory_mb,
                "file_size_mb": self.config.file_size_mb,
                "cpu_s": self._cpu_limit(self.config.timeout_s),
            },
            env_removed=self.removed,
            timeout_s=self.config.timeout_s,
        )

    @staticmethod
    def _cpu_limit(timeout: float) -> int:
        return int(timeout * 2) + 5

    @staticmethod
    def _writable_for(cwd: Path) -> Path:
        """The scratch workspace that holds `cwd` (its run dir must stay writable too), else cwd itself."""
        cwd = cwd.resolve()
        return next((p for p in (cwd, *cwd.parents) if p.name.startswith(WORKSPACE_PREFIX)), cwd)

    def _wrap(self, argv: list[str], writable: Path) -> list[str]:
        if not self.use_unshare:
            return argv
        ns = ["unshare", "--user", "--map-root-user", "--mount", "--pid", "--fork", "--kill-child"]
        if not self.config.network:
            ns.append("--net")
        return [*ns, "sh", "-c", _MOUNT_RO, "sh", str(self.protect), str(writable), *argv]

    def _preexec(self, timeout: float, cgroup: Path | None):
        mem = self.config.memory_mb * 1024 * 1024
        fsize = self.config.file_size_mb * 1024 * 1024
        cpu = self._cpu_limit(timeout)

        def apply() -> None:
            _set_pdeathsig()
            if cgroup is not None:
                fd = os.open(str(cgroup / "cgroup.procs"), os.O_WRONLY)
                os.write(fd, str(os.getpid()).encode())
                os.close(fd)
            resource.setrlimit(resource.RLIMIT_AS, (mem, mem))
            resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 5))
            resource.setrlimit(resource.RLIMIT_FSIZE, (fsize, fsize))
            resource.setrlimit(resource.RLIMIT_CORE, (0, 0))

        return apply

    def _make_cgroup(self) -> Path | None:
        if self.cgroup is None:
            return None
        path = self.cgroup / uuid.uuid4().hex[:12]
        try:
            path.mkdir()
            (path / "pids.max").write_text(str(self.config.max_processes))
            return path
        except OSError:
            return None

    @staticmethod
    def _drop_cgroup(path: Path | None) -> None:
        if path is None:
            return
        for _ in range(50):
            try:
                path.rmdir()
                return
            except OSError:
                time.sleep(0.02)

    def env_for(self, home: Path, extra: dict[str, str] | None = None) -> dict[str, str]:
        """The scrubbed environment with HOME/TMPDIR under `home` (created) plus `extra`."""
        tmp = home / "tmp"
        tmp.mkdir(parents=True, exist_ok=True)
        env = dict(self.env)
        for k in ("PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP", "PYTEST_ADDOPTS", "PYTEST_PLUGINS", "COV_CORE_SOURCE"):
            env.pop(k, None)
        env.update({"HOME": str(home), "TMPDIR": str(tmp), "PYTHONDONTWRITEBYTECODE": "1"})
        env.update(extra or {})
        return env

    def popen(self, argv: list[str], cwd: Path, env: dict[str, str], timeout: float, stdout, stderr, **kw):
        """Start a sandboxed process; the caller owns it and must call `reap()` when done."""
        cgroup = self._make_cgroup()
        proc = subprocess.Popen(
            self._wrap(argv, self._writable_for(cwd)),
            cwd=cwd,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=stdout,
            stderr=stderr,
            start_new_session=True,
            preexec_fn=self._preexec(timeout, cgroup),
            **kw,
        )
        proc._assay_cgroup = cgroup  # type: ignore[attr-defined]
        return proc

    def reap(self, proc: subprocess.Popen) -> None:
        """Kill what is left of a sandboxed process tree and free its cgroup."""
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        self._drop_cgroup(getattr(proc, "_assay_cgroup", None))

    def run(
        self,
        argv: list[str],
        cwd: Path,
        env: dict[str, str],
        timeout: float | None = None,
    ) -> RunResult:
        """Run to completion or timeout. Output goes through files, never pipes a grandchild could hold open."""
        timeout = timeout or self.config.timeout_s
        with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
            start = time.monotonic()
            proc = self.popen(argv, cwd, env, timeout, out, err)
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
