"""A V8 code cache of TypeScript's compiler for gate 1's `tsc` (`tsc_cached.cjs`): node 20 parses
and compiles `_tsc.js` (6 MB) at every start, 0.15-0.2 s of each TypeScript verify's ~1.5 s tsc.

Who may write one: V8 runs a cache's bytecode without checking it against the source (only its
version, flags and the source's length), so a cache is code. It is made by gate 1's own tsc in the
sandbox, written to a path of the workspace's cache directory removed just before, and kept by the
trusted parent right after tsc ends, and only from a workspace where nothing else ran before it
(no test of any candidate: `ran_code`), as `kept_binary` keeps test binaries. A kept cache is never
rewritten; each run gets a fresh copy of it, read-only to tests, whose changes reach no store.
The loader runs the user's own `typescript/bin/tsc` by its real path (read-only in the sandbox),
never through the workspace's link to it, which a test could replace. The key: the project,
that path and TypeScript's compiler files by size, mtime and inode, and node's executable likewise
(a TypeScript or node changed in place gets a new key; V8 itself rejects another node's cache).

The same for TypeScript's `lib/typescript.js` (9 MB), which ts-jest loads in every jest plan
process (`typescript_cached.cjs`): made by the same first tsc at its exit (it loads the module and
transpiles a small file of its own), kept the same way, handed read-only to the jest plan.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import stat
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING

from assay.sandbox import assay_cache

if TYPE_CHECKING:
    from assay.execution.workspace import Workspace

LOADER = Path(__file__).with_name("tsc_cached.cjs")
CACHE = "cache.bin"
IN, OUT = "tsc-code-cache.in", "tsc-code-cache.out"
TS_IN, TS_OUT = "typescript-code-cache.in", "typescript-code-cache.out"
TSC, TYPESCRIPT = "tsc", "typescript"  # the stores' kinds: tsc's compiler, `lib/typescript.js`
MOST_BYTES = 64 << 20  # a cache over this size is not kept (2.8 MB for TypeScript 5.8 and 6.0)
MOST_KEPT = 16  # caches kept (one per project and TypeScript), least recently used dropped first
COMPILER = ("lib/tsc.js", "lib/_tsc.js")

_lock = threading.Lock()
_ran: set[str] = set()  # workspaces (their base) where anything but gate 1's first tsc ran


def ran_code(ws: Workspace) -> None:
    """Something that is not a cache-making tsc ran in `ws`: no cache is kept from it after."""
    with _lock:
        _ran.add(str(ws.base))


def _file_state(path: Path) -> str:
    st = path.stat()
    return f"{path}\0{st.st_size}\0{st.st_mtime_ns}\0{st.st_ino}"


@dataclass(frozen=True)
class Compiler:
    """The user's TypeScript compiler (`bin/tsc` by real path, where the workspace's link leads
    before any test ran: the sandbox shows it read-only, a test cannot change it as it can the
    workspace's links) and its key; or (`typescript_module`) its `lib/typescript.js`."""

    tsc: Path
    key: str
    kind: str = TSC


def compiler(ws: Workspace, tsc: str) -> Compiler | None:
    """The compiler `tsc` (a workspace path) names in the user's project, or None when its
    TypeScript or node cannot be told or the workspace's link leads elsewhere (no cache then)."""
    try:
        real = (ws.root / Path(tsc).relative_to(ws.project)).resolve()  # typescript/bin/tsc
        package = real.parent.parent
        node = shutil.which("node")
        if node is None or package.name != "typescript" or Path(tsc).resolve() != real:
            return None
        parts = [str(ws.root), _file_state(real), _file_state(Path(node).resolve())]
        parts += [_file_state(package / f) for f in COMPILER if (package / f).is_file()]
    except (OSError, ValueError):
        return None
    return Compiler(real, hashlib.sha256("\n".join(parts).encode()).hexdigest()[:32])


def typescript_module(ws: Workspace, module: str) -> Compiler | None:
    """The `typescript/lib/typescript.js` beside the ts-jest `module` (a package of the project)
    would load, by real path in the user's project as `compiler` finds tsc; None: no ts-jest."""
    for d in (PurePosixPath(module), *PurePosixPath(module).parents):
        here = ws.path(f"{d.as_posix()}/node_modules")
        if (here / "ts-jest").exists():
            break
    else:
        return None
    try:
        real = (ws.root / (here / "typescript/lib/typescript.js").relative_to(ws.project)).resolve()
        node = shutil.which("node")
        if node is None or real.parent.parent.name != "typescript" or not real.is_file():
            return None
        parts = [TYPESCRIPT, str(ws.root), _file_state(real), _file_state(Path(node).resolve())]
    except (OSError, ValueError):
        return None
    return Compiler(real, hashlib.sha256("\n".join(parts).encode()).hexdigest()[:32], TYPESCRIPT)


def _store(found: Compiler) -> Path:
    return assay_cache() / "built" / found.kind / found.key


def _given(ws: Workspace, found: Compiler, given: Path) -> bool:
    """A fresh read-only copy of the kept cache at `given` (True), or none kept (False)."""
    given.unlink(missing_ok=True)
    kept = _store(found) / CACHE
    try:
        shutil.copyfile(kept, given)
        os.chmod(given, 0o444)
        os.utime(kept)  # used: the last to be dropped
    except OSError:
        given.unlink(missing_ok=True)
        return False
    return True


def _may_make(ws: Workspace) -> bool:
    with _lock:
        return str(ws.base) not in _ran and ws.resets == 0


def argv(
    ws: Workspace, found: Compiler, args: list[str], module: Compiler | None = None
) -> tuple[list[str], list[Compiler]]:
    """The command gate 1 runs for `tsc ARGS`, through the loader: handed the kept cache when
    there is one, else asked to make one when this workspace ran nothing yet; likewise asked to
    make one of `module` (`typescript_module`) after tsc. With what to `keep` after it."""
    wanted, ts_wanted = ws.cache_dir / OUT, ws.cache_dir / TS_OUT
    for path in (wanted, ts_wanted):
        path.unlink(missing_ok=True)
    given = ws.cache_dir / IN
    make = []
    cache_in = cache_out = ts_module = ts_out = "-"
    if _given(ws, found, given):
        cache_in = str(given)
    elif _may_make(ws):
        cache_out = str(wanted)
        make.append(found)
    if module is not None and not (_store(module) / CACHE).is_file() and _may_make(ws):
        ts_module, ts_out = str(module.tsc), str(ts_wanted)
        make.append(module)
    command = ["node", str(LOADER), str(found.tsc), cache_in, cache_out, ts_module, ts_out, *args]
    return command, make


def plan_cache(ws: Workspace, module: Compiler | None) -> dict[str, str]:
    """What a jest plan is handed (`jest_plan.mjs`'s "typescript", "typescriptCache"): the module
    and a fresh read-only copy of its kept cache; nothing when none is kept."""
    if module is None or not _given(ws, module, ws.cache_dir / TS_IN):
        return {}
    return {"typescript": str(module.tsc), "typescriptCache": str(ws.cache_dir / TS_IN)}


def keep(ws: Workspace, found: Compiler) -> None:
    """Right after gate 1's tsc, before anything of the candidate runs: keep the cache it was
    asked to make (`argv` said so)."""
    made = ws.cache_dir / (OUT if found.kind == TSC else TS_OUT)
    store = _store(found)
    try:
        fd = os.open(made, os.O_RDONLY | os.O_NOFOLLOW)
    except OSError:
        return
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_size > MOST_BYTES or store.exists():
            return
        store.parent.mkdir(parents=True, exist_ok=True)
        partial = Path(tempfile.mkdtemp(prefix=f"{found.key}.", dir=store.parent))
        try:
            with os.fdopen(os.dup(fd), "rb") as src, (partial / CACHE).open("wb") as dst:
                shutil.copyfileobj(src, dst)
            os.chmod(partial / CACHE, 0o444)
            os.replace(partial, store)
        except OSError:
            pass  # another process kept one first, or the disk is full
        finally:
            shutil.rmtree(partial, ignore_errors=True)
    finally:
        os.close(fd)
        made.unlink(missing_ok=True)
    _prune(store.parent)


def _prune(kind_dir: Path) -> None:
    used = []
    for entry in kind_dir.iterdir():
        try:
            used.append(((entry / CACHE).stat().st_mtime_ns, entry))
        except OSError:
            continue  # another process is writing it
    for _, entry in sorted(used)[: max(0, len(used) - MOST_KEPT)]:
        shutil.rmtree(entry, ignore_errors=True)
