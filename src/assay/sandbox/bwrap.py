"""The bubblewrap backend: a test's view built from nothing by `bwrap`, where it is present and
works.

The built-in view (`namespaces.py`, `_assay_sandbox/view.py`) starts from the host's and hides a
fixed list (/tmp, /run, /dev/shm, /home, /root) and makes the rest read-only: a directory nobody
thought of (/srv, /opt, /mnt, a second checkout under /work) stays readable. Under bwrap only what
is bound exists: the base system read-only (/usr and its links, /etc for the loader's cache and the
toolchains' configuration, /sys so a JVM or Node can read its cgroup limits), a fresh /proc, a
minimal /dev, private tmpfs /tmp, /var/tmp, /run and /dev/shm, then the directories assay computes
for the run (`shown.shown_dirs` with every other top-level directory as a hidden root), the project
read-only and the scratch workspace writable; new pid, net (loopback only), ipc and uts namespaces.

Who the test runs as does not change: as root, bwrap (holding root's view of the sources) builds the
view and `setpriv` drops to uid 65534 with no capabilities, as the built-in backend does; as another
user, bwrap runs in a user namespace and the test holds no capability, with no further user
namespace allowed. Limits (rlimits, cgroups) are applied by `process.py` as for the built-in one.

bwrap 0.8 (Debian 12) has no overlay mounts, so a profile with a shared build cache (Go's, read-only
with the workspace's writable layer over it) keeps the built-in backend; the report says which
backend each language's runs had.
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from assay.errors import ConfigError
from assay.sandbox.namespaces import TEST_GID, TEST_UID, as_root, drop_privileges
from assay.sandbox.probe_dirs import probe_dirs

BackendName = Literal["builtin", "bwrap"]
# the base system, bound read-only at the same path where it is a directory (a link is made again)
SYSTEM = ("/usr", "/etc", "/sys", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
# made fresh inside, not bound
FRESH = ("/proc", "/dev")
PRIVATE = ("/tmp", "/var/tmp", "/run", "/dev/shm")
ENV_VAR = "ASSAY_SANDBOX_BACKEND"


@dataclass(frozen=True)
class Backend:
    """The backend runs use, and, when bwrap was wanted and is not used, why not (the report says
    so)."""

    name: BackendName
    why_not_bwrap: str | None = None


def hidden_roots() -> tuple[str, ...]:
    """Every top-level directory the view lacks unless a run names something under it (/home,
    /root, /opt, /srv, /work ...)."""
    try:
        names = sorted(os.listdir("/"))
    except OSError:
        return ()
    tops = [f"/{n}" for n in names]
    return tuple(
        t for t in tops if t not in (*SYSTEM, *FRESH) and os.path.isdir(t) and not os.path.islink(t)
    )


def _system() -> list[str]:
    out: list[str] = []
    for path in SYSTEM:
        if os.path.islink(path):
            out += ["--symlink", os.readlink(path), path]
        elif os.path.isdir(path):
            out += ["--ro-bind", path, path]
    return out


def _private() -> list[str]:
    out = ["--proc", "/proc", "--dev", "/dev"]
    for path in PRIVATE:
        out += ["--perms", "1777" if path.endswith(("tmp", "shm")) else "0755", "--tmpfs", path]
    if os.path.islink("/var/run"):
        out += ["--symlink", os.readlink("/var/run"), "/var/run"]
    elif os.path.isdir("/var/run"):
        out += ["--perms", "0755", "--tmpfs", "/var/run"]
    return out


def _under(path: str, roots: list[str]) -> bool:
    return any(path == r or path.startswith(r.rstrip("/") + "/") for r in roots)


class _Binds:
    """bwrap's bind arguments in order, each mount point's missing parents made 0755 first (bwrap
    makes them with assay's umask, which may keep uid nobody out)."""

    def __init__(self) -> None:
        self.args: list[str] = []
        self.made: list[str] = ["/", *SYSTEM, *PRIVATE]
        self.bound: list[str] = []

    def add(self, kind: str, path: str) -> None:
        for parent in reversed(Path(path).parents):
            p = str(parent)
            if p not in self.made and not _under(p, self.bound):
                self.args += ["--perms", "0755", "--dir", p]
                self.made.append(p)
        self.args += [kind, path, path]
        self.bound.append(path)


def command(
    argv: list[str],
    *,
    network: bool,
    cwd: Path,
    protect: Path,
    writable: Path,
    show: tuple[str, ...],
) -> list[str]:
    """`argv` run by bwrap in a view of the base system, `show` and the project read-only and the
    workspace `writable`, in `cwd`, without privileges."""
    namespaces = ["--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try"]
    namespaces += [] if network else ["--unshare-net"]
    if not as_root():
        namespaces += ["--unshare-user", "--disable-userns"]
    binds = _Binds()
    for path in sorted(show, key=len):
        binds.add("--ro-bind", path)
    binds.add("--ro-bind", str(protect))
    binds.add("--bind", str(writable))
    return [
        "bwrap",
        *namespaces,
        "--die-with-parent",
        *_system(),
        *_private(),
        *binds.args,
        "--chdir",
        str(cwd),
        "--",
        *(drop_privileges() if as_root() else []),
        *argv,
    ]


@functools.lru_cache(maxsize=1)
def usable() -> str | None:
    """None when bwrap builds a view here (a probe run: the project read-only, the workspace
    writable, as the test's uid), else why not, in words."""
    if shutil.which("bwrap") is None:
        return "bwrap is not installed"
    try:
        with probe_dirs() as (project, writable):
            return _probe(project, writable)
    except (OSError, subprocess.SubprocessError) as e:
        return f"bwrap failed here: {e}"


def _probe(project: str, writable: str) -> str | None:
    if as_root():
        os.chown(writable, TEST_UID, TEST_GID)
    argv = ["sh", "-c", f"! touch {project}/x && touch x"]
    run = command(
        argv,
        network=False,
        cwd=Path(writable),
        protect=Path(project),
        writable=Path(writable),
        show=(),
    )
    done = subprocess.run(run, capture_output=True, text=True, timeout=10)
    if done.returncode != 0:
        return f"bwrap failed here: {(done.stderr.strip() or 'no message').splitlines()[-1]}"
    return None


def choose(asked: str) -> Backend:
    """The backend for `asked` ("auto", "builtin", "bwrap"; the environment variable
    ASSAY_SANDBOX_BACKEND wins over the config): auto and bwrap take bwrap when the probe works;
    bwrap asked for by name and not usable runs built-in, and says why."""
    asked = os.environ.get(ENV_VAR) or asked
    if asked not in ("auto", "builtin", "bwrap"):
        raise ConfigError(f"{ENV_VAR}={asked!r}: expected auto, builtin or bwrap")
    if asked == "builtin":
        return Backend("builtin")
    why = usable()
    if why is None:
        return Backend("bwrap")
    return Backend("builtin", why if asked == "bwrap" else None)


def label(backend: Backend, shared_cache: bool = False) -> str:
    """The backend runs get, in words (the report's sandbox line, each file's limits)."""
    if backend.name == "bwrap" and shared_cache:
        return "built-in (bwrap 0.8 cannot layer this toolchain's shared build cache)"
    if backend.name == "bwrap":
        return "bwrap (a view built from nothing)"
    if backend.why_not_bwrap:
        return f"built-in (bwrap asked for, but {backend.why_not_bwrap})"
    return "built-in"
