"""Namespaces via `unshare`: the script that mounts the user's project (and every other mount)
read-only, and the probe for which unshare flags this machine allows."""

from __future__ import annotations

import functools
import shutil
import subprocess
import tempfile

# $1 = the user's project (read-only, or fail), then the directories that stay writable (the scratch
# workspace and any shared build cache of assay's own) up to "--"; then every other mount is made
# read-only where the kernel allows, so a test cannot write outside them.
MOUNT_RO = r"""
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


def _probe(argv: list[str]) -> bool:
    try:
        return subprocess.run(argv, capture_output=True, timeout=10).returncode == 0
    except (OSError, subprocess.SubprocessError):
        return False


_NAMESPACES = ("--user", "--map-root-user", "--mount", "--pid", "--fork", "--kill-child")


@functools.lru_cache(maxsize=1)
def unshare_flags() -> tuple[str, ...] | None:
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
                        MOUNT_RO,
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
