"""assay's shared Go build cache: warmed from a module of assay's own, dated so no run copies it.

Tests only read this cache (each workspace writes its own layer over it); an empty one costs a
minute per workspace, and an entry Go re-stamps is copied whole into the layer. The standard
library's packages a module imports are built into it too (`warm_std`): a package only the layer
held was built again, and vetted, by every workspace of an edited file (google/uuid's
`database/sql/driver`, `crypto/*`, `encoding/json`: 7 s of CPU a verify, 0.6 s for `go test`).
"""

from __future__ import annotations

import contextlib
import functools
import os
import re
import shutil
import subprocess
import tempfile
import threading
import time
from collections.abc import Iterable
from pathlib import Path

from assay.sandbox import assay_cache

GO_CACHE = "{assay_cache}/go-build"  # shared by assay's runs, read-only to tests


def _warm_test(imports: Iterable[str] = ()) -> str:
    blank = "".join(f'\t_ "{path}"\n' for path in imports)
    return (
        f'package warm\n\nimport (\n\t"fmt"\n\t"testing"\n{blank})\n\n'
        "func TestWarm(t *testing.T) { t.Log(fmt.Sprint(1)) }\n"
    )


def _build_warm(go: str, cache: Path, imports: Iterable[str] = ()) -> bool:
    """Vet and test a module of assay's own importing `imports` (and fmt, testing) with `cache`
    as the build cache, outside the sandbox: only the standard library is built."""
    env = {**os.environ, "GOCACHE": str(cache), "GOFLAGS": "-mod=readonly", "GOPROXY": "off"}
    with tempfile.TemporaryDirectory(prefix="assay-go-warm-") as tmp:
        Path(tmp, "go.mod").write_text("module warm\n\ngo 1.21\n")
        Path(tmp, "warm_test.go").write_text(_warm_test(imports))
        try:
            for step in ([go, "vet", "./..."], [go, "test", "-json", "-count=1", "./..."]):
                subprocess.run(step, cwd=tmp, env=env, capture_output=True, timeout=600, check=True)
        except (OSError, subprocess.SubprocessError):
            return False
    return True


@functools.lru_cache(maxsize=1)
def warm_build_cache() -> None:
    """Fill assay's shared Go build cache with the standard library, once per machine, outside the
    sandbox: tests only read it (each workspace writes its own layer), and an empty one costs a
    minute per workspace. Only a module of assay's own is built here, never project code."""
    go = shutil.which("go")
    cache = Path(GO_CACHE.format(assay_cache=assay_cache()))
    marker = cache / "assay-warmed"
    if go is None or marker.exists():
        return
    if _build_warm(go, cache):
        marker.write_text("the standard library is in this cache\n")


# --- the standard library's packages a module imports ---------------------------------------------

_IMPORT_BLOCK = re.compile(r"^import\s*\((.*?)\)", re.M | re.S)
_IMPORT_ONE = re.compile(r"^import\s+(?:[\w.]+\s+)?[\"`]([^\"`]+)[\"`]", re.M)
_QUOTED = re.compile(r"[\"`]([^\"`\s]+)[\"`]")
_COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)
_MODULE = re.compile(r"^module\s+(\S+)", re.M)
_MOST_DIRS = 200  # the module's packages followed from the tested one
_WARMED = "assay-warmed-std"  # in the cache: the go command it was built by, then the packages
_warm_lock = threading.Lock()


def imports(source: str) -> list[str]:
    """The import paths of a Go file (its import declarations, comments left out)."""
    found = [m.group(1) for m in _IMPORT_ONE.finditer(source)]
    for block in _IMPORT_BLOCK.finditer(source):
        found += _QUOTED.findall(_COMMENT.sub("", block.group(1)))
    return found


def _goroot(go: str) -> Path | None:
    root = os.environ.get("GOROOT") or str(Path(os.path.realpath(go)).parent.parent)
    return Path(root) if Path(root, "src", "runtime").is_dir() else None


def _standard(path: str, goroot: Path) -> bool:
    parts = path.split("/")
    return (
        "." not in parts[0]
        and parts[0] not in ("C", "cmd")
        and not {"internal", "vendor", "testdata", "", "..", "."} & set(parts)
        and (goroot / "src" / path).is_dir()
    )


def std_imports(module_dir: Path, package_dir: Path) -> set[str]:
    """The standard library's packages that the package in `package_dir` imports, its test files
    included, and the packages of its own module it imports, followed (read as text: nothing of
    the project is built or run here)."""
    return module_imports(module_dir, package_dir)[0]


def module_imports(
    module_dir: Path, package_dir: Path, skip: Path | None = None
) -> tuple[set[str], set[str]]:
    """(the standard library's packages, the other modules' packages) that the package in
    `package_dir` imports, its test files included (but `skip`), and the packages of its own
    module it imports, followed; empty where there is no `go` command."""
    go = shutil.which("go")
    goroot = _goroot(go) if go else None
    if goroot is None:
        return set(), set()
    try:
        gomod = (module_dir / "go.mod").read_text(encoding="utf-8", errors="replace")
    except OSError:
        gomod = ""
    own = m.group(1) if (m := _MODULE.search(gomod)) else None
    std: set[str] = set()
    other: set[str] = set()
    seen: set[Path] = set()
    todo = [package_dir]
    while todo and len(seen) < _MOST_DIRS:
        here = todo.pop()
        if here in seen:
            continue
        seen.add(here)
        for file in sorted(here.glob("*.go")):
            if file == skip:
                continue
            try:
                text = file.read_text(encoding="utf-8", errors="replace")
            except OSError:
                continue
            for path in imports(text):
                if own and (path == own or path.startswith(own + "/")):
                    if ".." not in path.split("/"):  # a package of the module, never above it
                        todo.append(module_dir / path[len(own) :].lstrip("/"))
                elif _standard(path, goroot):
                    std.add(path)
                elif "." in path.split("/")[0]:
                    other.add(path)
    return std, other


def go_identity(go: str) -> str:
    """The `go` command by real path, size and mtime: a cache warmed by one is no use to another."""
    real = os.path.realpath(go)
    st = os.stat(real)
    return f"{real} {st.st_size} {st.st_mtime_ns}"


def warm_std(packages: Iterable[str]) -> None:
    """Build the standard library's `packages` into the shared cache, outside the sandbox, those
    it does not hold yet for this `go` command (its list is a file in the cache): a workspace then
    reads them as `go test` reads the user's cache, where it built and vetted them in its own
    layer, thrown away after each run. Only the standard library is built (a module of assay's
    own that imports them). A package that does not build here is listed all the same: it is
    left to each workspace, as before, rather than tried on every run."""
    go = shutil.which("go")
    if go is None:
        return
    cache = Path(GO_CACHE.format(assay_cache=assay_cache()))
    listed = cache / _WARMED
    with _warm_lock:
        try:
            identity = go_identity(go)
            lines = listed.read_text().splitlines() if listed.exists() else []
        except OSError:
            return
        have = set(lines[1:]) if lines[:1] == [identity] else set()
        missing = sorted(set(packages) - have)
        if not missing:
            return
        cache.mkdir(parents=True, exist_ok=True)
        if not _build_warm(go, cache, missing) and len(missing) > 1:
            for path in missing:  # one that does not build here spoils no other
                _build_warm(go, cache, [path])
        hold_fresh(cache, force=True)  # the new entries dated ahead like the others
        with contextlib.suppress(OSError):
            fresh = cache / f"{_WARMED}.{os.getpid()}"
            fresh.write_text("\n".join([identity, *sorted(have | set(missing))]) + "\n")
            fresh.replace(listed)


# Go stamps a cache entry it reads with the time when its mtime is over an hour old; on the
# read-only shared cache that stamp copies the whole entry up into the workspace's layer (59 MB, a
# second of CPU per workspace for examples/go). Entries dated ahead are never stamped.
_AHEAD_S = 24 * 3600
_fresh_until: dict[Path, float] = {}


def hold_fresh(cache: Path, force: bool = False) -> None:
    """Date the shared build cache's entries a day ahead (those within half of that, once per
    half day: 7,500 entries cost 0.05 s of CPU, which every `assay` process paid): no run copies
    one up only to stamp it. When it was last done is a file beside the cache, dated to when it is
    due again (only assay's warm-ups, outside the sandbox, add entries: `force` after one)."""
    now = time.time()
    due = cache.with_name(cache.name + ".fresh-until")
    with contextlib.suppress(OSError):
        _fresh_until[cache] = max(_fresh_until.get(cache, 0.0), due.stat().st_mtime)
    if now < _fresh_until.get(cache, 0.0) and not force:
        return
    ahead = now + _AHEAD_S
    for dirpath, _, names in os.walk(cache):
        for name in names:
            path = os.path.join(dirpath, name)
            with contextlib.suppress(OSError):
                if os.stat(path).st_mtime < now + _AHEAD_S / 2:
                    os.utime(path, (ahead, ahead))
    _fresh_until[cache] = now + _AHEAD_S / 2
    with contextlib.suppress(OSError):
        due.touch()
        os.utime(due, (_fresh_until[cache], _fresh_until[cache]))


@functools.lru_cache(maxsize=1)
def module_cache() -> str | None:
    """The real GOMODCACHE (asked once, outside the sandbox: `go env` runs no project code)."""
    go = shutil.which("go")
    if go is None:
        return None
    try:
        out = subprocess.run([go, "env", "GOMODCACHE"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() or None
