"""mutmut 3.8.1 driven the same way by every bench that compares against it: config appended to
the copy's pyproject.toml, `mutmut run` in its own process group, statuses read from its .meta
files (exit codes, as mutmut itself classifies them)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

MUTMUT = "mutmut==3.8.1"
KILLED = {1, 3}
TIMEOUT = {36, 24, -24, 152, 255}
SURVIVED = {0}
NO_TESTS = {5, 33}


def mutmut_venv(venv: Path, *packages: str) -> Path:
    """The bin directory of a venv holding mutmut and `packages` (created on first use)."""
    if not (venv / "bin" / "mutmut").exists():
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        subprocess.run(
            [str(venv / "bin" / "pip"), "install", "-q", MUTMUT, "pytest", *packages], check=True
        )
    return venv / "bin"


def run_mutmut(
    work: Path,
    bindir: Path,
    paths_to_mutate: list[str],
    tests_dir: list[str],
    also_copy: list[str],
    pytest_args: list[str],
    limit: float | None = None,
) -> dict:
    """mutmut on `work` (a copy it may litter with mutants/); after `limit` seconds it is stopped
    (its whole process group) and the row says how many mutants it had finished: its wall time is
    then a lower bound."""
    with (work / "pyproject.toml").open("a") as fh:
        fh.write(
            f"\n[tool.mutmut]\npaths_to_mutate = {json.dumps(paths_to_mutate)}\n"
            f"tests_dir = {json.dumps(tests_dir)}\nalso_copy = {json.dumps(also_copy)}\n"
            f"pytest_add_cli_args = {json.dumps(pytest_args)}\n"
        )
    start = time.monotonic()
    proc = subprocess.Popen(
        [str(bindir / "mutmut"), "run"],
        cwd=work,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
        env={**os.environ, "PATH": f"{bindir}:{os.environ['PATH']}"},
    )
    try:
        stdout, _ = proc.communicate(timeout=limit)
        finished = True
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        stdout, _ = proc.communicate()
        finished = False
    wall = time.monotonic() - start
    codes = []
    for meta in (work / "mutants").rglob("*.meta"):
        codes += list(json.loads(meta.read_text())["exit_code_by_key"].values())
    known = KILLED | TIMEOUT | SURVIVED | NO_TESTS
    return {
        "wall_s": round(wall, 2),
        "finished": finished,
        "exit": proc.returncode,
        "mutants": len(codes),
        "done": sum(c is not None for c in codes),
        "killed": sum(c in KILLED or c in TIMEOUT for c in codes),
        "survived": sum(c in SURVIVED for c in codes),
        "no_tests": sum(c in NO_TESTS for c in codes),
        "other": sum(c not in known for c in codes),
        "tail": stdout[-300:] if proc.returncode else "",
    }
