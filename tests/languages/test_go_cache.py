"""The shared Go build cache stays read-only to tests without costing each workspace a copy: Go
stamps an entry it reads when its mtime is over an hour old, and on the read-only lower layer that
stamp copied the whole entry up into the workspace's own layer (59 MB, about a second of CPU per
workspace for examples/go)."""

from __future__ import annotations

import os
import time

from assay.languages.go_cache import hold_fresh


def test_shared_cache_entries_are_dated_ahead_so_go_never_stamps_them(tmp_path):
    cache = tmp_path / "go-build"
    (cache / "ab").mkdir(parents=True)
    stale = cache / "ab" / "ab12-d"
    stale.write_bytes(b"compiled")
    hours_ago = time.time() - 3 * 3600
    os.utime(stale, (hours_ago, hours_ago))
    hold_fresh(cache)
    # Go leaves an entry alone while now - mtime < 1 h: a run started now, lasting hours, too
    assert stale.stat().st_mtime > time.time() + 6 * 3600
    assert stale.read_bytes() == b"compiled"
