"""The sweep of stale workspaces removes them and nothing else: the directory they live in (the
machine's `/tmp`) keeps its mode whatever happens to the removal."""

from __future__ import annotations

import os
import stat

from assay.execution.workspace import PREFIX, _force_rmtree, sweep_stale


def _mode(path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


def test_losing_a_race_for_a_stale_workspace_leaves_its_parent_alone(tmp_path):
    """Two sweeps (two assay runs) found the same stale workspace; the first removed it, and the
    second's removal failed on the workspace itself: its error handler made the parent - on a
    real machine `/tmp` - mode 0700, locking every other user out of it."""
    parent = tmp_path / "tmp"
    parent.mkdir()
    parent.chmod(0o1777)
    gone = parent / f"{PREFIX}999999-x"  # removed by the other sweep just before
    _force_rmtree(gone)
    assert _mode(parent) == 0o1777


def test_a_stale_workspace_with_locked_directories_is_removed_and_the_parent_kept(tmp_path):
    parent = tmp_path / "tmp"
    parent.mkdir()
    parent.chmod(0o1777)
    stale = parent / f"{PREFIX}999999-x"  # no live process has that pid
    (stale / "locked" / "deep").mkdir(parents=True)
    (stale / "locked" / "deep" / "f").write_text("x")
    (stale / "locked").chmod(0)
    assert sweep_stale(parent) == 1
    assert not stale.exists()
    assert _mode(parent) == 0o1777
