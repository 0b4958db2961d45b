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
from assay.sandbox import bwrap
from assay.sandbox.cgroups import cgroup_base, limit_file
from assay.sandbox.describe import cpu_limit, describe, limits
from assay.sandbox.environment import Redactor, allowed_env
from assay.sandbox.namespaces import HIDDEN, as_root, unshare_flags
from assay.sandbox.profiles import PYTHON, Profile, expand
from assay.sandbox.shown import blocked, linked_targets, needed_dirs, shown_dirs
from assay.sandbox.view import SharedCache, hand_over, wrap

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
        self.backend = bwrap.choose(config.backend)
        self.cgroups = {c: base for c in ("pids", "memory") if (base := cgroup_base(c)) is not None}
        self.removed = allowed_env(named=config.env).withheld
        self._given: set[str] = set()
        self._redactor: Redactor | None = None
        self._live: set[subprocess.Popen] = set()
        self._lock = threading.Lock()
        self.cancelled = False
        # directories the test's uid could not reach, each with what keeps it out: runs that need
        # one fall back to the weaker profile, and the report says so
        self.unreachable: dict[str, str] = {}

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
        info = describe(
            self.config,
            profile,
            self.unshare,
            set(self.cgroups),
            self.removed,
            bwrap=self._bwrap_for(profile),
        )
        info.backend = bwrap.label(self.backend, shared_cache=bool(profile.shared))
        if self.unreachable and info.warning is None:
            needed, wall = next(iter(self.unreachable.items()))
            info.warning = (
                f"sandbox: WEAKER PROFILE for runs that need {needed}: uid nobody cannot get past "
                f"{wall}, so those ran unconfined, as you (make it world-readable, or move it; "
                "docs/sandbox.md)"
            )
            # the line below the warning must not claim those runs were confined
            info.filesystem = f"all but the runs above: {info.filesystem}"
        return info

    def limits_for(self, profile: Profile) -> dict[str, object]:
        """The limits runs under `profile` get here (what a file's report names)."""
        out = limits(self.config, profile, set(self.cgroups))
        out["backend"] = bwrap.label(self.backend, shared_cache=bool(profile.shared))
        return out

    @property
    def info(self) -> SandboxInfo:
        return self.info_for(PYTHON)

    def _memory_by_cgroup(self, profile: Profile) -> bool:
        return profile.memory == "cgroup" and "memory" in self.cgroups

    @staticmethod
    def _cpu_limit(timeout: float) -> int:
        return cpu_limit(timeout)

    @staticmethod
    def _writable_for(cwd: Path) -> Path:
        """The scratch workspace that holds `cwd` (its run dir must stay writable too), else
        cwd itself."""
        cwd = cwd.resolve()
        return next((p for p in (cwd, *cwd.parents) if p.name.startswith(WORKSPACE_PREFIX)), cwd)

    @property
    def use_unshare(self) -> bool:
        """Runs get the namespaces (built-in or bwrap), not the weaker profile."""
        return self.unshare is not None or self.backend.name == "bwrap"

    def _bwrap_for(self, profile: Profile) -> bool:
        """bwrap builds this profile's view (bwrap 0.8 cannot layer a shared build cache)."""
        return self.backend.name == "bwrap" and not profile.shared

    def _wrap(self, argv: list[str], cwd: Path, env: dict[str, str], profile: Profile) -> list[str]:
        use_bwrap = self._bwrap_for(profile)
        if self.unshare is None and not use_bwrap:
            return argv
        writable = self._writable_for(cwd)
        shared = () if use_bwrap else self._shared_caches(profile, cwd, writable)
        hidden = bwrap.hidden_roots() if use_bwrap else HIDDEN
        taken = [str(self.protect), str(writable), *(c.lower for c in shared)]
        show = shown_dirs(
            argv,
            env,
            taken,
            reached=linked_targets(self.protect),
            hidden=hidden,
            pythons_on_path=profile.name == PYTHON.name,
        )
        # the project is only mounted read-only (the run works in the scratch copy), but what the
        # command runs from is read: where nobody cannot, the run falls back to the weaker profile
        needed = needed_dirs(argv, taken, env) if as_root() else []
        if (wall := blocked(needed, hidden)) is not None:
            with self._lock:
                self.unreachable.setdefault(next(d for d in needed if blocked([d], hidden)), wall)
            return argv
        if use_bwrap or self.unshare is None:
            return bwrap.command(
                argv,
                network=self.config.network,
                cwd=cwd.resolve(),
                protect=self.protect,
                writable=writable,
                show=show,
            )
        return wrap(
            argv,
            self.unshare,
            network=self.config.network,
            cwd=cwd.resolve(),
            protect=self.protect,
            writable=writable,
            shared=shared,
            show=show,
            loopback=profile.loopback,
        )

    @staticmethod
    def _shared_caches(profile: Profile, cwd: Path, writable: Path) -> tuple[SharedCache, ...]:
        """The profile's shared build caches, created, each with this workspace's writable layer
        over it; one that cannot be created is left out."""
        out = []
        for i, value in enumerate(profile.shared):
            path = Path(expand(value, cwd, cwd))
            try:
                path.mkdir(parents=True, exist_ok=True)
                out.append(SharedCache.prepare(path.resolve(), writable / "cache" / f"layer-{i}"))
            except OSError:
                continue
        return tuple(out)

    @staticmethod
    def _hand_over_run(cwd: Path, writable: Path) -> None:
        """The workspace's directories a test writes (its root, `run/`, `cache/` and what assay made
        in them, the way to the working directory) made writable by the test's uid."""
        if not writable.name.startswith(WORKSPACE_PREFIX):
            return
        tops = [writable / "run", writable / "cache"]
        made = [c for t in tops if t.is_dir() for c in t.iterdir() if not c.is_symlink()]
        way = [p for p in (cwd, *cwd.parents) if writable in p.parents]
        hand_over(writable, *tops, *made, *way)

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
            path = base / f"{os.getpid()}-{uuid.uuid4().hex[:12]}"
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
        hand_over(home, tmp)
        env = allowed_env(passes=profile.passes, named=self.config.env).env
        cache = cache or home / "cache"
        env.update({"HOME": str(home), "TMPDIR": str(tmp), "PYTHONDONTWRITEBYTECODE": "1"})
        env.update({k: expand(v, cache, home) for k, v in profile.env.items()})
        env.update(extra or {})
        with self._lock:
            if not set(env.values()) <= self._given:
                self._given |= set(env.values())
                self._redactor = None
        return env

    def redactor(self) -> Redactor:
        """What hides the user's environment in whatever the tests printed (environment.py)."""
        with self._lock:
            if self._redactor is None:
                self._redactor = Redactor(os.environ, self._given)
            return self._redactor

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
        if self.use_unshare:
            self._hand_over_run(cwd.resolve(), self._writable_for(cwd))
        proc = subprocess.Popen(
            self._wrap(argv, cwd, env, profile),
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
            redact = self.redactor().text
            return RunResult(
                returncode=proc.returncode,
                stdout=redact(out.read().decode("utf-8", "replace")),
                stderr=redact(err.read().decode("utf-8", "replace")),
                duration_s=duration,
                timed_out=timed_out,
            )
