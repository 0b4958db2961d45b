"""What one interpreter has installed: the modules it can import, and a fingerprint of its
distributions for cache keys.

The interpreter runs once, isolated (`-I`: no PYTHONPATH, no user site, as the sandbox runs the
tests), to name its `sys.path`; the directories themselves are read here, and re-read only when one
changes, so asking again in the same run costs a few `stat` calls.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import shutil
import subprocess
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from assay import asked

_EXTENSION = re.compile(r"^(\w+)\..*\.(so|pyd)$|^(\w+)\.(so|pyd)$")
_probes: dict[tuple[str, int, int], dict | None] = {}
# interpreter key -> set once its probe, now running, has answered
_running: dict[tuple[str, int, int], threading.Event] = {}
_listings: dict[str, tuple[int, frozenset[str]]] = {}
_cache_lock = threading.Lock()


def interpreter_key(python: str) -> tuple[str, int, int]:
    """An interpreter file as the probe cache knows it: path and mtime, and its venv's
    pyvenv.cfg's."""
    real = os.path.realpath(shutil.which(python) or python)
    stamps = []
    for path in (real, str(Path(python).parent.parent / "pyvenv.cfg")):
        try:
            stamps.append(os.stat(path).st_mtime_ns)
        except OSError:
            stamps.append(0)
    return (os.path.abspath(python), stamps[0], stamps[1])


def _probe(python: str) -> dict | None:
    """The interpreter's `sys.path`, stdlib directories and built-in module names; asked once
    per interpreter file (`interpreter_key`): a second asker while the first one's probe runs (the
    probes started ahead, beside the pytest check) waits for its answer."""
    key = interpreter_key(python)
    with _cache_lock:
        if key in _probes:
            return _probes[key]
        running = _running.get(key)
        if running is None:
            _running[key] = threading.Event()
    if running is not None:
        running.wait()
        with _cache_lock:
            return _probes.get(key)
    found = None
    try:
        proc = asked.run(asked.probe_argv(python), timeout=60)
        found = json.loads(proc.stdout) if proc.returncode == 0 else None
    except (OSError, subprocess.SubprocessError, ValueError):
        found = None
    finally:
        with _cache_lock:
            _probes[key] = found
            _running.pop(key).set()
    return found


def probe_all(pythons: list[str]) -> None:
    """Ask every interpreter of `pythons` not asked yet at once: each answer is an interpreter
    start (0.15-0.2 s, a pyenv shim's more), and a sandboxed Python run names several (its own,
    the `python` and `python3` on its PATH) that were asked one after another before its start."""
    keys = {python: interpreter_key(python) for python in pythons}
    with _cache_lock:
        todo = [python for python, key in keys.items() if key not in _probes]
    if len(todo) < 2:
        for python in todo:
            _probe(python)
        return
    with ThreadPoolExecutor(max_workers=len(todo)) as pool:
        list(pool.map(_probe, todo))


def _listing(directory: str) -> frozenset[str]:
    """The names in a directory, re-read only when the directory changed."""
    try:
        stamp = os.stat(directory).st_mtime_ns
    except OSError:
        return frozenset()
    with _cache_lock:
        cached = _listings.get(directory)
    if cached and cached[0] == stamp:
        return cached[1]
    try:
        names = frozenset(n for n in os.listdir(directory) if n != "__pycache__" and n[0] != ".")
    except OSError:
        names = frozenset()
    with _cache_lock:
        _listings[directory] = (stamp, names)
    return names


def _hops(path: str) -> list[str]:
    """The directory of each link on the way from `path` to the file it names (a link to a venv's
    python, itself a link to the base interpreter): a run needs every one of them."""
    out = []
    for _ in range(40):
        out.append(os.path.dirname(path))
        if not os.path.islink(path):
            break
        path = os.path.normpath(os.path.join(os.path.dirname(path), os.readlink(path)))
    return out


class Installed:
    """What one interpreter can import, and a fingerprint of everything installed for it (its real
    path, version, and the entries of its non-stdlib `sys.path` directories: distributions, modules,
    `.pth` files and their lines). Verdicts that depend on the environment are cached under it, so
    a `pip install` makes the next run judge again."""

    def __init__(self, python: str):
        self.python = python
        found = _probe(python)
        self.known = found is not None
        self.version = found["version"] if found else ""
        self.dirs: list[str] = [d for d in (found or {}).get("path", []) if os.path.isdir(d)]
        # where its editable installs' finders import from (not on sys.path)
        editable = (found or {}).get("editable", [])
        self.editable: list[str] = [d for d in editable if os.path.exists(d)]
        # what it runs from: a wrapper script (a pyenv shim, `exec /elsewhere/python "$@"`) names
        # an interpreter the wrapper's own path does not show
        runs = [p for p in (found or {}).get("runs", []) if p and os.path.isabs(p)]
        hops = [d for p in runs[:1] for d in _hops(p)]
        self.homes: list[str] = [d for d in dict.fromkeys([*hops, *runs[1:]]) if os.path.isdir(d)]
        stdlib = [os.path.realpath(d) for d in (found or {}).get("stdlib", [])]
        self.site = [d for d in self.dirs if os.path.realpath(d) not in stdlib]
        self.modules = set((found or {}).get("modules", []))
        # standard-library modules this build lacks (`_dbm`, `_tkinter`, `_lzma` when their C
        # libraries were missing at build time, Windows-only ones on Linux)
        self.absent = set((found or {}).get("absent", []))
        self._fingerprint: str | None = None

    @property
    def fingerprint(self) -> str:
        if self._fingerprint is None:
            h = hashlib.sha256()
            real = os.path.realpath(shutil.which(self.python) or self.python)
            h.update(f"{real}\0{self.version}\0".encode())
            for directory in self.site:
                h.update(f"\0{directory}\0".encode())
                for name in sorted(_listing(directory)):
                    h.update(f"{name}\0".encode())
                    if name.endswith(".pth"):
                        with contextlib.suppress(OSError):
                            h.update(Path(directory, name).read_bytes())
            self._fingerprint = h.hexdigest()
        return self._fingerprint

    def has(self, module: str) -> bool:
        """Whether `module` (dotted) is importable from the interpreter's path, as files on disk
        say (an interpreter that could not be asked has nothing)."""
        top, *rest = module.split(".")
        if not rest and top in self.modules:
            return top not in self.absent
        for directory in self.dirs:
            names = _listing(directory)
            if top in names and (not rest or _has_path(Path(directory, top), rest)):
                return True
            if not rest and (
                f"{top}.py" in names
                or any((m := _EXTENSION.match(n)) and top in m.groups() for n in names)
            ):
                return True
        return False


def _has_path(package: Path, parts: list[str]) -> bool:
    """Whether the submodule `parts` exists under a package directory."""
    *inner, last = parts
    base = package.joinpath(*inner)
    return (
        (base / last).is_dir()
        or (base / f"{last}.py").is_file()
        or any(p.name.split(".")[0] == last for p in base.glob(f"{last}.*.so"))
    )
