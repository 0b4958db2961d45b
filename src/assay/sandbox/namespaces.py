"""Namespaces via `unshare`: the program that builds a test's view of the filesystem, the
privileges a test runs without, and the probe for which unshare flags this machine allows.

The view (built by `_assay_sandbox/view.py`, run as root of the new mount namespace before the test
starts):
- the user's project read-only (or fail), the scratch workspace writable;
- the shared build caches read-only, with the workspace's own writable layer over them where the
  kernel allows an overlay (a test can never poison the next run's cache);
- private, empty `/tmp`, `/var/tmp`, `/run`, `/var/run`, `/dev/shm` (tmpfs that die with the run):
  no host Unix socket (Docker's, a database's, an SSH agent's) is reachable, nothing is left behind;
- `/home` and `/root` replaced by empty tmpfs, with only the directories the run names (toolchains,
  the interpreter, dependency caches) bound back read-only: the real home is not readable;
- every other mount, `/sys` (so `/sys/fs/cgroup`) and `/proc/sys` read-only;
- the working directory entered again after all that, so a relative path lands in the writable
  copy (a cwd inherited from before the bind mounts points at the read-only mount below them).
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import sys
from pathlib import Path

from assay import _assay_sandbox
from assay.sandbox.probe_dirs import probe_dirs

# Directories replaced by an empty tmpfs inside the sandbox (those that exist and are not symlinks);
# `_assay_sandbox/view.py` has the same list (it runs on the standard library alone).
HIDDEN = ("/tmp", "/var/tmp", "/run", "/var/run", "/dev/shm", "/home", "/root")
_VIEW = str(Path(_assay_sandbox.__file__).with_name("view.py"))


def view_command() -> list[str]:
    """The program that builds the view and then execs the test (`_assay_sandbox/view.py`: direct
    mount(2) calls; a `mount` process per mount cost 0.6 s per run)."""
    return [sys.executable, "-I", "-S", _VIEW]


_NAMESPACES = ("--mount", "--pid", "--fork", "--kill-child")
_USER = ("--user", "--map-root-user")


def as_root() -> bool:
    """assay runs as the real root: namespaces need no user namespace, and tests must not keep
    uid 0."""
    return os.geteuid() == 0


TEST_UID = TEST_GID = 65534  # nobody


def drop_privileges() -> list[str]:
    """The prefix that runs a command without privileges over the view it was given (see
    view.py)."""
    if as_root():
        return [
            "setpriv",
            f"--reuid={TEST_UID}",
            f"--regid={TEST_GID}",
            "--clear-groups",
            "--inh-caps=-all",
            "--bounding-set=-all",
            "--no-new-privs",
            "--",
        ]
    return ["unshare", "--user", "--"]


def _probe(argv: list[str]) -> bool:
    try:
        return subprocess.run(argv, capture_output=True, timeout=10).returncode == 0
    except (OSError, subprocess.SubprocessError):
        return False


@functools.lru_cache(maxsize=1)
def unshare_flags() -> tuple[str, ...] | None:
    """unshare's flags that build the whole view here: with a /proc of the new pid namespace's own
    where the kernel lets us mount one (the worker reads its children's CPU use there), else
    without; None when unshare (or the view) fails."""
    if not shutil.which("unshare"):
        return None
    base = () if as_root() else _USER
    with probe_dirs() as (probe_dir, writable):
        if as_root():
            os.chown(writable, TEST_UID, TEST_GID)
        check = f"! touch {probe_dir}/x && touch x"
        for extra in (("--mount-proc",), ()):
            flags = (*base, *_NAMESPACES, *extra)
            argv = ["unshare", *flags, "--net", *view_command(), writable, probe_dir]
            command = [*drop_privileges(), "sh", "-c", check]
            if _probe([*argv, writable, "--", "--", "--", *command]):
                return flags
        return None
