"""The command line that runs one test command inside the namespaces: what it sees (the arguments of
`_assay_sandbox/view.py`), and the unprivileged uid it runs as once the view is built.

Tests never keep uid 0. As the real root, assay builds the view as root of the new namespaces and
then `setpriv` drops to `TEST_UID` (nobody) with no capabilities and no way to gain any: the test
cannot write a cgroup file, `/proc/sys`, a device node or anything root owns. As another user the
view is built in a user namespace, and the test runs in one more, nested, user namespace where it
holds no capability over the mounts (so it cannot unmount the private /tmp to reach the host's).
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from pathlib import Path

from assay.sandbox.namespaces import (
    TEST_GID,
    TEST_UID,
    as_root,
    drop_privileges,
    view_command,
)


def hand_over(*paths: Path) -> None:
    """Make `paths` (directories and files of the scratch workspace assay just made: a result file
    the worker appends to) writable by the test's uid; nothing to do unless assay runs as root."""
    if not as_root():
        return
    for path in paths:
        try:
            st = path.lstat()
            if st.st_uid != TEST_UID and (stat.S_ISDIR(st.st_mode) or stat.S_ISREG(st.st_mode)):
                os.chown(path, TEST_UID, TEST_GID)
        except OSError:
            continue


def hand_over_tree(root: Path) -> None:
    """`hand_over` for every directory and file under `root` (a fresh scratch copy)."""
    if not as_root():
        return
    for dirpath, dirnames, filenames in os.walk(root):
        for name in (*dirnames, *filenames):
            os.lchown(os.path.join(dirpath, name), TEST_UID, TEST_GID)
    os.lchown(root, TEST_UID, TEST_GID)


@dataclass(frozen=True)
class SharedCache:
    """A build cache shared across runs (`lower`, read-only to tests) with this workspace's writable
    layer over it (`upper`, `work`: overlayfs's upper and work directories)."""

    lower: str
    upper: str
    work: str

    @classmethod
    def prepare(cls, lower: Path, layer: Path) -> SharedCache:
        """The layer directories, made, with the lower one's directory skeleton in the upper one:
        a merged directory takes the upper one's owner, so the test's uid can add entries."""
        upper, work = layer / "upper", layer / "work"
        if not upper.exists():
            upper.mkdir(parents=True)
            work.mkdir()
            for dirpath, dirnames, _ in os.walk(lower):
                rel = os.path.relpath(dirpath, lower)
                for name in dirnames:
                    (upper / rel / name).mkdir(exist_ok=True)
            hand_over(layer, work, *(Path(d) for d, _, _ in os.walk(upper)))
        return cls(str(lower), str(upper), str(work))


def wrap(
    argv: list[str],
    flags: tuple[str, ...],
    *,
    network: bool,
    cwd: Path,
    protect: Path,
    writable: Path,
    shared: tuple[SharedCache, ...],
    show: tuple[str, ...],
    loopback: bool = False,
) -> list[str]:
    """`argv` inside new namespaces, seeing the view `_assay_sandbox/view.py` builds, without
    privileges, with `show` (`shown.shown_dirs`) bound back read-only. `loopback`: the private
    network namespace's own 127.0.0.1 up first (while the namespace's root may still do it), no
    route out (PIT and StrykerJS talk to their workers)."""
    ns = ["unshare", *flags, *([] if network else ["--net"])]
    if loopback and not network:
        ns += ["sh", "-c", 'ip link set lo up 2>/dev/null; exec "$@"', "sh"]
    layers = [x for c in shared for x in (c.lower, c.upper, c.work)]
    return [
        *ns,
        *view_command(),
        str(cwd),
        str(protect),
        str(writable),
        "--",
        *layers,
        "--",
        *show,
        "--",
        *drop_privileges(),
        *argv,
    ]
