"""The sandbox probes' scratch directories do not outlive assay: removed when the CLI is stopped by
SIGTERM or SIGINT mid-probe, and swept by the next run when the process that made them died
without a word (SIGKILL, or SIGTERM to a process that is not assay's CLI)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from assay.execution.workspace import sweep_stale

# the probes with their directories made and their run blocked, until the signal comes
BLOCKED_PROBE = """
import shutil, subprocess, sys, time
from assay.sandbox import bwrap, namespaces
shutil.which = lambda name: "/bin/true"
subprocess.run = lambda *a, **k: time.sleep(600)
(bwrap.usable if sys.argv[1] == "bwrap" else namespaces.unshare_flags)()
"""


def _probes(tmp: Path) -> list[str]:
    return sorted(p.name for p in tmp.glob("assay-probe-*"))


def _until_probing(proc: subprocess.Popen, tmp: Path) -> list[str]:
    """The probe's directories once both are made (a read-only project, a workspace: one after
    the other, so the first alone is no sign the probe is blocked yet)."""
    deadline = time.monotonic() + 120
    while proc.poll() is None and len(_probes(tmp)) < 2 and time.monotonic() < deadline:
        time.sleep(0.005)
    return _probes(tmp)


@pytest.mark.parametrize("probe", ["bwrap", "unshare"])
def test_a_probe_whose_process_died_mid_probe_is_swept_by_the_next_run(tmp_path, probe):
    env = {**os.environ, "TMPDIR": str(tmp_path)}
    proc = subprocess.Popen([sys.executable, "-c", BLOCKED_PROBE, probe], env=env)
    try:
        assert len(_until_probing(proc, tmp_path)) == 2  # a read-only project, a workspace
    finally:
        proc.send_signal(signal.SIGTERM)  # not the CLI: Python's default, no clean-up
        proc.wait()
    assert len(_probes(tmp_path)) == 2
    sweep_stale(tmp_path)
    assert _probes(tmp_path) == []  # were left for good: no owner in their names


def test_a_probe_of_a_live_process_is_not_swept(tmp_path):
    env = {**os.environ, "TMPDIR": str(tmp_path)}
    proc = subprocess.Popen([sys.executable, "-c", BLOCKED_PROBE, "bwrap"], env=env)
    try:
        made = _until_probing(proc, tmp_path)
        sweep_stale(tmp_path)
        assert _probes(tmp_path) == made != []
    finally:
        proc.kill()
        proc.wait()


@pytest.mark.slow  # a whole CLI start, twice
@pytest.mark.parametrize("sig, code", [(signal.SIGTERM, 143), (signal.SIGINT, 130)])
def test_the_cli_stopped_mid_probe_leaves_no_probe_directory(project, tmp_path, sig, code):
    root = project(
        {
            "src/calc/__init__.py": "",
            "src/calc/ops.py": "def add(a, b):\n    return a + b\n",
            "tests/test_ops.py": "from calc.ops import add\n\n\ndef test_add():\n"
            "    assert add(1, 2) == 3\n",
        }
    )
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    proc = subprocess.Popen(
        [sys.executable, "-m", "assay", "verify", "tests", "--no-cache"],
        cwd=root,
        env={**os.environ, "TMPDIR": str(tmp)},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    seen = _until_probing(proc, tmp)
    proc.send_signal(sig)
    assert proc.wait() == (code if seen else proc.returncode)
    assert _probes(tmp) == []
    assert not list(tmp.glob("assay-ws-*"))
