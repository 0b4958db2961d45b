"""Namespaces via `unshare`: the script that builds a test's view of the filesystem, and the probe
for which unshare flags this machine allows.

The view (`MOUNTS`, run as root of the new mount namespace before the test starts):
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
import tempfile

# Directories replaced by an empty tmpfs inside the sandbox (those that exist and are not symlinks).
HIDDEN = ("/tmp", "/var/tmp", "/run", "/var/run", "/dev/shm", "/home", "/root")

# Arguments: cwd, project, then writable dirs up to "--", then shared caches as triples (lower,
# upper, work) up to "--", then read-only dirs to show through the hidden ones up to "--", then
# the command. Exit 97: the view could not be built (the run is reported, never run unprotected).
MOUNTS = r"""
NL='
'
cwd="$1"; p="$2"; shift 2
mount --bind "$p" "$p" && mount -o remount,bind,ro "$p" || exit 97
keep=""
while [ "$1" != "--" ]; do
  mount --bind "$1" "$1" || exit 97
  keep="$keep$1$NL"; shift
done
shift
ro=""
while [ "$1" != "--" ]; do
  if mount -t overlay assay-cache -o "lowerdir=$1,upperdir=$2,workdir=$3" "$1" 2>/dev/null; then
    keep="$keep$1$NL"
  else
    mount --bind "$1" "$1" || exit 97
  fi
  ro="$ro$1$NL"; shift 3
done
shift
show=""
while [ "$1" != "--" ]; do show="$show$1$NL"; shift; done
shift
IFS="$NL"
hide=""
for h in /tmp /var/tmp /run /var/run /dev/shm /home /root; do
  [ -d "$h" ] && [ ! -L "$h" ] && hide="$hide$h$NL"
done
case "$hide" in *"/dev/shm$NL"*) ;; *) exit 97;; esac
mount -t tmpfs -o mode=1777,nosuid,nodev assay-shm /dev/shm || exit 97
mkdir /dev/shm/.assay-stage || exit 97
i=0; staged=""
for v in $p$NL$keep$ro$show; do
  for h in $hide; do
    case "$v" in "$h"/*)
      i=$((i+1)); mkdir "/dev/shm/.assay-stage/$i"
      mount --rbind "$v" "/dev/shm/.assay-stage/$i" || exit 97
      staged="$staged$i $v$NL"; break;;
    esac
  done
done
for h in $hide; do
  [ "$h" = /dev/shm ] && continue
  mode=755; case "$h" in */tmp) mode=1777;; esac
  mount -t tmpfs -o "mode=$mode,nosuid,nodev" assay-private "$h" || exit 97
done
for s in $staged; do
  n="${s%% *}"; v="${s#* }"
  mkdir -p "$v" && mount --move "/dev/shm/.assay-stage/$n" "$v" || exit 97
done
rm -rf /dev/shm/.assay-stage
for m in $(awk '{print $5}' /proc/self/mountinfo | sort -u); do
  case "$m" in /proc|/proc/*|/dev|/dev/*) continue;; esac
  skip=""
  for w in $keep; do case "$m" in "$w"|"$w"/*) skip=1;; esac; done
  for h in $hide; do [ "$m" = "$h" ] && skip=1; done
  [ -n "$skip" ] || mount -o remount,bind,ro "$m" 2>/dev/null
done
unset IFS
mount --bind /proc/sys /proc/sys && mount -o remount,bind,ro /proc/sys
cd "$cwd" || exit 97
unset OLDPWD
exec "$@"
"""

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
    probe_dir = tempfile.mkdtemp(prefix="assay-probe-")
    try:
        writable = tempfile.mkdtemp(prefix="assay-probe-w-")
        if as_root():
            os.chown(writable, TEST_UID, TEST_GID)
        try:
            check = f"! touch {probe_dir}/x && touch x"
            for extra in (("--mount-proc",), ()):
                flags = (*base, *_NAMESPACES, *extra)
                argv = ["unshare", *flags, "--net", "sh", "-c", MOUNTS, "sh", writable, probe_dir]
                command = [*drop_privileges(), "sh", "-c", check]
                if _probe([*argv, writable, "--", "--", "--", *command]):
                    return flags
            return None
        finally:
            shutil.rmtree(writable, ignore_errors=True)
    finally:
        shutil.rmtree(probe_dir, ignore_errors=True)
