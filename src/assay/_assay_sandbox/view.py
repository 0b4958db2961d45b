"""Builds a test's view of the filesystem inside fresh namespaces, then execs the test command
(stdlib only; run as `python -I -S view.py ARGS`, as root of the new mount namespace). What the view
is and why: `assay.sandbox.namespaces`. Direct mount(2) calls: one `mount` process per mount cost
the shell version 0.6 s per run.

Arguments: cwd, project, writable dirs up to "--", shared caches as (lower, upper, work) triples up
to "--", read-only dirs to show through the hidden ones up to "--", then the command. Exit 97: the
view could not be built (the run is reported, never run unprotected).
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import sys
import warnings  # noqa: F401  os.execvpe imports it, after the view may hide the standard library

HIDDEN = ("/tmp", "/var/tmp", "/run", "/var/run", "/dev/shm", "/home", "/root")
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC = 1, 2, 4, 8
MS_REMOUNT, MS_BIND, MS_MOVE, MS_REC = 32, 4096, 8192, 16384
_KEPT = {
    "nosuid": MS_NOSUID,
    "nodev": MS_NODEV,
    "noexec": MS_NOEXEC,
    "noatime": 1024,
    "nodiratime": 2048,
    "relatime": 1 << 21,
    "strictatime": 1 << 24,
}
_libc = ctypes.CDLL(None, use_errno=True)


class ViewError(Exception):
    pass


def _mount(source: str | None, target: str, fstype: str | None, flags: int, data: str = "") -> None:
    def enc(s: str | None) -> bytes | None:
        return s.encode() if s is not None else None

    if _libc.mount(enc(source), enc(target), enc(fstype), flags, enc(data) if data else None):
        err = ctypes.get_errno()
        raise ViewError(f"mount {target}: {os.strerror(err)}")


def _mounts() -> dict[str, int]:
    """Mount point -> the flags a remount must keep (a user namespace may not drop locked ones);
    the last mount at a path wins."""
    out = {}
    with open("/proc/self/mountinfo") as f:
        for line in f:
            fields = line.split()
            point = fields[4].encode().decode("unicode_escape")
            out[point] = sum(_KEPT.get(o, 0) for o in fields[5].split(","))
    return out


def _read_only(point: str, kept: int) -> None:
    # a mount the kernel will not change (already locked read-only, or hidden) stays as it is
    with contextlib.suppress(ViewError):
        _mount(None, point, None, MS_REMOUNT | MS_BIND | MS_RDONLY | kept)


def _under(path: str, roots: list[str]) -> bool:
    return any(path == r or path.startswith(r + "/") for r in roots)


def _lists(args: list[str]) -> tuple[list[str], list[str], list[str], list[str]]:
    groups: list[list[str]] = [[]]
    for i, a in enumerate(args):
        if a == "--" and len(groups) < 4:
            groups.append([])
            if len(groups) == 4:
                return groups[0], groups[1], groups[2], args[i + 1 :]
            continue
        groups[-1].append(a)
    raise ViewError("bad arguments")


def _make_way(path: str) -> None:
    """`path`'s missing directories made in the fresh tmpfs, each traversable by the test's uid
    whatever assay's umask (a 0700 parent would keep it out of what the view shows)."""
    if os.path.isdir(path):
        return
    _make_way(os.path.dirname(path))
    os.mkdir(path)
    os.chmod(path, 0o755)


def build(cwd: str, project: str, rest: list[str]) -> list[str]:
    keep, triples, show, command = _lists(rest)
    _mount(project, project, None, MS_BIND | MS_REC)
    _mount(None, project, None, MS_REMOUNT | MS_BIND | MS_RDONLY | _mounts().get(project, 0))
    for w in keep:
        _mount(w, w, None, MS_BIND | MS_REC)
    shared = []
    for i in range(0, len(triples) - 2, 3):
        lower, upper, work = triples[i : i + 3]
        try:
            data = f"lowerdir={lower},upperdir={upper},workdir={work}"
            _mount("assay-cache", lower, "overlay", 0, data)
            keep.append(lower)
        except ViewError:
            _mount(lower, lower, None, MS_BIND | MS_REC)
        shared.append(lower)
    hide = [h for h in HIDDEN if os.path.isdir(h) and not os.path.islink(h)]
    if "/dev/shm" not in hide:
        raise ViewError("no /dev/shm")
    _mount("assay-shm", "/dev/shm", "tmpfs", MS_NOSUID | MS_NODEV, "mode=1777")
    stage = "/dev/shm/.assay-stage"
    os.mkdir(stage)
    staged: list[tuple[str, str]] = []
    for v in [project, *keep, *shared, *show]:
        if _under(v, hide) and v not in (s for _, s in staged):
            spot = f"{stage}/{len(staged)}"
            os.mkdir(spot)
            _mount(v, spot, None, MS_BIND | MS_REC)
            staged.append((spot, v))
    for h in hide:
        if h != "/dev/shm":
            mode = "1777" if h.endswith("tmp") else "755"
            _mount("assay-private", h, "tmpfs", MS_NOSUID | MS_NODEV, f"mode={mode}")
    for spot, v in staged:
        _make_way(v)
        _mount(spot, v, None, MS_MOVE)
        os.rmdir(spot)
    os.rmdir(stage)
    for point, kept in _mounts().items():
        if point == "/proc" or point.startswith(("/proc/", "/dev")):
            continue
        if _under(point, keep) or point in hide:
            continue
        _read_only(point, kept)
    _mount("/proc/sys", "/proc/sys", None, MS_BIND)
    _read_only("/proc/sys", _mounts().get("/proc/sys", 0))
    os.chdir(cwd)
    return command


def main(argv: list[str]) -> int:
    try:
        command = build(argv[0], argv[1], argv[2:])
    except (ViewError, OSError, IndexError) as e:
        print(f"assay sandbox: cannot build the view: {e}", file=sys.stderr)
        return 97
    env = dict(os.environ)
    env.pop("OLDPWD", None)
    env["PWD"] = argv[0]
    try:
        os.execvpe(command[0], command, env)
    except OSError as e:
        print(f"assay sandbox: cannot run {command[0]}: {e}", file=sys.stderr)
        return 127


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
