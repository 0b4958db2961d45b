"""The shared Go build cache stays read-only to tests without costing each workspace a copy: Go
stamps an entry it reads when its mtime is over an hour old, and on the read-only lower layer that
stamp copied the whole entry up into the workspace's own layer (59 MB, about a second of CPU per
workspace for examples/go)."""

from __future__ import annotations

import os
import time

from assay.languages import go_cache
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


def test_a_new_assay_process_does_not_walk_the_cache_again_within_half_a_day(tmp_path, monkeypatch):
    """Every `assay` process walked the whole cache (0.05 s of CPU, 7,500 entries): when it was last
    done is now a file beside the cache."""
    cache = tmp_path / "go-build"
    (cache / "ab").mkdir(parents=True)
    entry = cache / "ab" / "ab12-d"
    entry.write_bytes(b"compiled")
    hold_fresh(cache)
    monkeypatch.setattr(go_cache, "_fresh_until", {})  # what a new process knows
    walked = []
    monkeypatch.setattr(go_cache.os, "walk", lambda *a: walked.append(a) or iter(()))
    hold_fresh(cache)
    assert walked == []
    due = cache.with_name("go-build.fresh-until")
    os.utime(due, (time.time() - 1, time.time() - 1))  # half a day later, another process
    monkeypatch.setattr(go_cache, "_fresh_until", {})
    hold_fresh(cache)
    assert len(walked) == 1
