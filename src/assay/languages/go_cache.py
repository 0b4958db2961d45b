"""assay's shared Go build cache: warmed from a module of assay's own, dated so no run copies it.

Tests only read this cache (each workspace writes its own layer over it); an empty one costs a
minute per workspace, and an entry Go re-stamps is copied whole into the layer.
"""

from __future__ import annotations

import contextlib
import functools
import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

from assay.sandbox import assay_cache

GO_CACHE = "{assay_cache}/go-build"  # shared by assay's runs, read-only to tests

_WARM_TEST = (
    'package warm\n\nimport (\n\t"fmt"\n\t"testing"\n)\n\n'
    "func TestWarm(t *testing.T) { t.Log(fmt.Sprint(1)) }\n"
)


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
    env = {**os.environ, "GOCACHE": str(cache), "GOFLAGS": "-mod=readonly", "GOPROXY": "off"}
    with tempfile.TemporaryDirectory(prefix="assay-go-warm-") as tmp:
        Path(tmp, "go.mod").write_text("module warm\n\ngo 1.21\n")
        Path(tmp, "warm_test.go").write_text(_WARM_TEST)
        try:
            for step in ([go, "vet", "./..."], [go, "test", "-json", "-count=1", "./..."]):
                subprocess.run(step, cwd=tmp, env=env, capture_output=True, timeout=600, check=True)
            marker.write_text("the standard library is in this cache\n")
        except (OSError, subprocess.SubprocessError):
            return


# Go stamps a cache entry it reads with the time when its mtime is over an hour old; on the
# read-only shared cache that stamp copies the whole entry up into the workspace's layer (59 MB, a
# second of CPU per workspace for examples/go). Entries dated ahead are never stamped.
_AHEAD_S = 24 * 3600
_fresh_until: dict[Path, float] = {}


def hold_fresh(cache: Path) -> None:
    """Date the shared build cache's entries a day ahead (those within half of that, once per
    half day: 7,500 entries cost 0.05 s of CPU, which every `assay` process paid): no run copies
    one up only to stamp it. When it was last done is a file beside the cache, dated to when it is
    due again (only assay's warm-up, outside the sandbox, adds entries; it runs before this)."""
    now = time.time()
    due = cache.with_name(cache.name + ".fresh-until")
    with contextlib.suppress(OSError):
        _fresh_until[cache] = max(_fresh_until.get(cache, 0.0), due.stat().st_mtime)
    if now < _fresh_until.get(cache, 0.0):
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
