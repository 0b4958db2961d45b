"""SIGKILL of assay mid-run: the user's tree stays byte-identical, sandboxed processes die, the
store stays usable."""

from __future__ import annotations

import os
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from assay.execution.workspace import PREFIX, sweep_stale
from assay.store import Store
from tests.conftest import tree_digest


def _processes_mentioning(fragment: str) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if fragment in (entry / "cmdline").read_bytes().decode(errors="replace"):
                    found.append(int(entry.name))
            except OSError:
                continue
    return found


@pytest.mark.parametrize("delay", [0.4, 3.0])  # during start-up, and mid-run
def test_sigkill_mid_run_loses_nothing(project, delay):
    root = project(
        {
            "src/slow/__init__.py": "",
            "tests/test_slow.py": """
            import time
            from pathlib import Path

            def test_slow_writer():
                for i in range(40):
                    Path(f"out-{i}.txt").write_text("x" * 1000)
                    time.sleep(0.1)
                assert True
            """,
        },
        "[tool.assay]\ngates = ['compile', 'green', 'stability']\n",
    )
    before = tree_digest(root)
    proc = subprocess.Popen(
        [sys.executable, "-m", "assay", "verify", str(root / "tests")],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    time.sleep(delay)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    marker = f"{PREFIX}{proc.pid}-"
    deadline = time.monotonic() + 5
    while _processes_mentioning(marker) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert _processes_mentioning(marker) == [], "sandboxed processes outlived assay"
    assert tree_digest(root) == before
    if (root / ".assay" / "assay.db").exists():
        with Store(root) as store:
            store.put("verify", "probe", {"ok": True})
            assert store.get("verify", "probe") == {"ok": True}
    sweep_stale()
    assert not list(Path(os.environ.get("TMPDIR", "/tmp")).glob(f"{marker}*"))


def test_store_survives_kill_during_writes(tmp_path):
    """Killed while it writes: after its first write (said on stdout), not after a fixed second
    that a busy machine could spend starting Python, before any write."""
    code = (
        "import sys; from pathlib import Path; from assay.store import Store\n"
        "s = Store(Path(sys.argv[1]))\n"
        "i = 0\n"
        "while True:\n"
        "    s.put('verify', f'k{i}', {'i': i, 'pad': 'x' * 5000}); i += 1\n"
        "    if i == 1:\n"
        "        print('written', flush=True)\n"
    )
    proc = subprocess.Popen([sys.executable, "-c", code, str(tmp_path)], stdout=subprocess.PIPE)
    assert proc.stdout is not None and proc.stdout.readline() == b"written\n"
    time.sleep(0.2)  # writing on
    proc.send_signal(signal.SIGKILL)
    proc.stdout.close()
    proc.wait()
    with Store(tmp_path) as store:
        assert store.get("verify", "k0") == {"i": 0, "pad": "x" * 5000}
        store.put("verify", "after", [1])
        assert store.get("verify", "after") == [1]


def test_unwritable_store_location_still_verifies_without_keeping_a_cache(project):
    """`.assay` cannot be created (here: a file is in the way, as on a read-only checkout): no
    cache, no failure."""
    from tests.conftest import run_cli

    root = project(
        {"src/m/__init__.py": "", "tests/test_m.py": "def test_m():\n    assert 2 + 2 == 4\n"},
        "[tool.assay]\ngates = ['compile', 'green']\n",
    )
    (root / ".assay").write_text("not a directory")
    with Store(root) as store:
        assert store.problem and "cache not kept" in store.problem
        store.put("verify", "k", 1)
        assert store.get("verify", "k") == 1
    for _ in range(2):
        proc = run_cli("verify", str(root / "tests"), "-f", "json")
        assert proc.returncode == 0, proc.stderr
        assert '"cached": false' in proc.stdout and "cache not kept" in proc.stdout
    assert (root / ".assay").read_text() == "not a directory"


SLOW_FILES = {
    "src/slow/__init__.py": "",
    "tests/test_fast.py": "def test_fast():\n    assert 1 + 1 == 2\n",
    "tests/test_slow.py": "import time\n\ndef test_slow():\n    time.sleep(60)\n    assert True\n",
}


@pytest.mark.parametrize("sig, code", [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_interrupt_prints_what_finished_and_removes_workspaces(project, sig, code):
    root = project(SLOW_FILES, "[tool.assay]\ngates = ['compile', 'green']\njobs = 2\n")
    before = tree_digest(root)
    proc = subprocess.Popen(
        [sys.executable, "-m", "assay", "verify", str(root / "tests"), "--timeout", "120"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    marker = f"{PREFIX}{proc.pid}-"
    # the non-terminal progress line
    seen = _stderr_until(proc, "tests/test_fast.py: accepted", timeout=90)
    assert "[1/2] tests/test_fast.py: accepted" in seen
    proc.send_signal(sig)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == code, seen + err
    table = out.split("files:")[0]
    assert (
        "tests/test_fast.py" in table and "accepted" in table and "tests/test_slow.py" not in table
    )
    assert "interrupted: 1 of 2 files finished" in out and err.rstrip().endswith(
        "assay: interrupted"
    )
    assert not list(Path(os.environ.get("TMPDIR", "/tmp")).glob(f"{marker}*")), (
        "workspaces left behind"
    )
    assert _processes_mentioning(marker) == []
    assert tree_digest(root) == before


def _stderr_until(proc: subprocess.Popen, text: str, timeout: float) -> str:
    """stderr of a running process up to the line that contains `text` (or until the deadline)."""
    assert proc.stderr is not None
    seen = ""
    deadline = time.monotonic() + timeout
    while text not in seen and time.monotonic() < deadline:
        ready, _, _ = select.select([proc.stderr], [], [], 0.5)
        if ready:
            line = proc.stderr.readline()
            if not line:
                break
            seen += line
    return seen


def test_interrupted_mutate_says_what_finished_and_removes_workspaces(project):
    body = "\n".join(f"def f{i}(x):\n    return x + {i}\n" for i in range(20))
    tests = "\n".join(
        f"def test_f{i}():\n    time.sleep(0.05)\n    assert f{i}(1) == {i + 1}\n"
        for i in range(20)
    )
    root = project(
        {
            "src/many/__init__.py": "",
            "src/many/ops.py": body,
            "tests/test_ops.py": "import time\n\nfrom many.ops import *  # noqa: F403\n\n" + tests,
        }
    )
    before = tree_digest(root)
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "assay",
            "mutate",
            str(root / "src/many/ops.py"),
            "--tests",
            str(root / "tests"),
            "--no-cache",
            "--workers",
            "1",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    seen = _stderr_until(proc, "(10%)", timeout=120)
    assert "(10%)" in seen, seen
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, seen + err
    assert "interrupted: " in err and " mutants finished: killed " in err, err
    assert err.rstrip().endswith("assay: interrupted") and "Traceback" not in err
    marker = f"{PREFIX}{proc.pid}-"
    assert not list(Path(os.environ.get("TMPDIR", "/tmp")).glob(f"{marker}*")), (
        "workspaces left behind"
    )
    assert _processes_mentioning(marker) == []
    assert tree_digest(root) == before
