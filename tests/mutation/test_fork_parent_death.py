"""A forked child dies with its parent (PR_SET_PDEATHSIG): a mutation worker killed by assay (a
hang, the run's limit) must not leave its mutants' children running, each a copy of the worker and
of the user's tests. No test held this before the eighth session's look at what a child does before
its body runs (bench/README.md, "Eighth session: one mutant's child")."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

SRC = Path(__file__).resolve().parents[2] / "src"


def _state(pid: int) -> str:
    """The process's state letter, "" once it is gone."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return ""


def _until(done, tries: int = 600) -> None:
    for _ in range(tries):
        if done():
            return
        time.sleep(0.05)


def test_a_child_dies_with_its_parent(tmp_path):
    pid_file = tmp_path / "child.pid"
    script = textwrap.dedent(
        f"""
        import os, sys, time
        sys.path.insert(0, {str(SRC)!r})
        from assay._assay_sandbox.fork import fork

        def body(report):
            with open({str(pid_file)!r} + ".tmp", "w") as fh:
                fh.write(str(os.getpid()))
            os.rename({str(pid_file)!r} + ".tmp", {str(pid_file)!r})
            time.sleep(120)

        fork(body)
        time.sleep(120)
        """
    )
    parent = subprocess.Popen([sys.executable, "-c", script])
    try:
        _until(pid_file.exists)
        child = int(pid_file.read_text())
        assert _state(child) not in ("", "Z")  # running its body
    finally:
        parent.send_signal(signal.SIGKILL)
        parent.wait()
    try:
        _until(lambda: _state(child) in ("", "Z", "X"))
        assert _state(child) in ("", "Z", "X")  # killed when its parent died
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.kill(child, signal.SIGKILL)
