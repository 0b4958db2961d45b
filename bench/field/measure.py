"""The four runs of one field project, each timed on the wall clock: `assay verify` (cold),
plain pytest with the project's interpreter on the same files, `assay mutate` and mutmut on the
same module and covering tests."""

from __future__ import annotations

import atexit
import json
import os
import resource
import shutil
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

from prepare import INTERPRETER, Project

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from cpuacct import Meter  # noqa: E402
from mutmut_runner import mutmut_venv, run_mutmut  # noqa: E402

VERDICTS = ("accepted", "rejected", "flaky", "low_value", "unvalidated")
RUN_TIMEOUT_S = 3600


class RunError(Exception):
    """assay itself failed (exit 2 or 3, or no report): the row says so."""


METER = Meter()
atexit.register(METER.close)
CPU_S: dict[str, float] = {}  # the last run's CPU seconds, its processes' and theirs: `cpu_s`


def _cpu() -> float:
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def _timed(cmd: list[str], cwd: Path, timeout: float = RUN_TIMEOUT_S) -> tuple[float, int, str]:
    """Wall seconds, exit code, output; the CPU seconds of the run's whole process tree go to
    `CPU_S["last"]` (on a shared machine the wall clock says more about the others). A cpuacct
    group counts every process where one can be made: under the bwrap backend the tests' own
    processes are never waited for by anyone the bench waits for, and rusage missed them."""
    start, cpu = time.monotonic(), _cpu()
    counted = METER.seconds() if METER.group else 0.0
    try:
        proc = subprocess.run(
            cmd,
            cwd=cwd,
            capture_output=True,
            text=True,
            timeout=timeout,
            preexec_fn=METER.join if METER.group else None,
        )
    except subprocess.TimeoutExpired:
        raise RunError(f"{' '.join(cmd[:4])}: no answer in {timeout:.0f} s") from None
    used = METER.seconds() - counted if METER.group else _cpu() - cpu
    CPU_S["last"] = round(used, 2)
    return round(time.monotonic() - start, 2), proc.returncode, proc.stdout + proc.stderr


def _assay(*args: str) -> list[str]:
    return [sys.executable, "-m", "assay", *args]


def _first_line(text: str) -> str:
    return next((line.strip() for line in text.splitlines() if line.strip()), "")


def _gaps(doc: dict) -> list[str]:
    """What the environment lacked, as assay named it: missing modules, and the one-line reasons
    of unvalidated verdicts (skips included; not those of files stopped before judging all)."""
    found: list[str] = []
    for entry in doc["files"]:
        for gate in entry["gates"]:
            found += [f"missing {m}" for m in gate.get("missing_dependencies", [])]
        for test in entry["tests"]:
            reason = test["reason"]
            if test["verdict"] == "unvalidated" and reason and not reason.startswith("not judged"):
                found.append(reason)
    return sorted(Counter(found), key=lambda g: -found.count(g))


def _why(entry: dict) -> str:
    """The first line under the deciding gate's header: what a user reads first."""
    gate = next((g for g in entry["gates"] if g["gate"] == entry["rejected_at"]), None)
    if gate is None:
        return ""
    lines = [line.strip() for line in gate["feedback"].splitlines() if line.strip()]
    text = lines[1] if len(lines) > 1 else (lines[0] if lines else gate.get("reason", ""))
    return text[:160]


def verify(project: Project, root: Path, out: Path) -> dict:
    wall, code, output = _timed(
        _assay("verify", project.tests, "--no-cache", "-q", "-f", f"json={out}"), root
    )
    if code not in (0, 1) or not out.exists():
        raise RunError(f"assay verify: exit {code}: {output.strip()[-400:]}")
    doc = json.loads(out.read_text())
    files = Counter(f["verdict"] for f in doc["files"])
    tests = Counter(t["verdict"] for f in doc["files"] for t in f["tests"])
    gate4 = []
    for entry in doc["files"]:
        if entry["rejected_at"] == "mutation":
            gate = next(g for g in entry["gates"] if g["gate"] == "mutation")
            gate4.append({"path": entry["path"], "reason": _first_line(gate["feedback"])})
    return {
        "wall_s": wall,
        "cpu_s": CPU_S["last"],
        "exit": code,
        "files": {v: files.get(v, 0) for v in VERDICTS},
        "tests": {v: tests.get(v, 0) for v in VERDICTS},
        "gaps": _gaps(doc),
        "gate4": gate4,
        "not_accepted": [
            {"path": f["path"], "verdict": f["verdict"], "at": f["rejected_at"], "why": _why(f)}
            for f in doc["files"]
            if f["verdict"] != "accepted"
        ],
    }


def pytest(project: Project, root: Path) -> dict:
    cmd = [str(root / INTERPRETER), "-m", "pytest", "-q", "-p", "no:cacheprovider", project.tests]
    wall, code, output = _timed([*cmd, *project.pytest_args], root)
    tail = [line for line in output.strip().splitlines() if line.strip()]
    return {
        "wall_s": wall,
        "cpu_s": CPU_S["last"],
        "exit": code,
        "summary": tail[-1].strip("= ") if tail else "",
    }


def mutate(project: Project, root: Path, out: Path) -> dict:
    tests = [arg for t in project.covering_tests for arg in ("--tests", t)]
    cmd = _assay("mutate", project.module, *tests, "--no-cache", "-q", "--threshold", "0")
    wall, code, output = _timed([*cmd, "-f", f"json={out}"], root)
    if code not in (0, 1) or not out.exists():
        raise RunError(f"assay mutate: exit {code}: {output.strip()[-400:]}")
    data = json.loads(out.read_text())
    return {
        "wall_s": wall,
        "mutants": len(data["mutants"]) - data["ignored"],
        "killed": data["killed"] + data["timeout"],
        "survived": data["survived"],
        "no_coverage": data["no_coverage"],
        "score": data["score"],
    }


def _mutmut_bin(project: Project, root: Path, workdir: Path) -> Path:
    """A venv of mutmut plus the project's dependencies but not the project itself: the package
    then comes only from mutmut's mutants/ copy, as in bench/mutation_vs_mutmut.py."""
    venv = workdir / "mutmut-venvs" / project.name
    fresh = not (venv / "bin" / "mutmut").exists()
    install = str(root) + project.install.removeprefix(".")
    bindir = mutmut_venv(venv, install, *project.pip)
    if fresh:
        dist = project.name
        subprocess.run([str(bindir / "pip"), "uninstall", "-q", "-y", dist], check=True)
    return bindir


def mutmut(project: Project, root: Path, workdir: Path, limit: float) -> dict:
    work = workdir / "mutmut-runs" / project.name
    shutil.rmtree(work, ignore_errors=True)
    shutil.copytree(
        root,
        work,
        ignore=shutil.ignore_patterns(".venv", ".assay", "mutants", "__pycache__", "*.egg-info"),
    )
    try:
        bindir = _mutmut_bin(project, root, workdir)
    except subprocess.CalledProcessError as exc:
        raise RunError(f"mutmut venv: exit {exc.returncode}") from None
    result = run_mutmut(
        work,
        bindir,
        [project.module],
        project.covering_tests,
        project.also_copy,
        project.pytest_args,
        limit,
    )
    shutil.rmtree(work, ignore_errors=True)
    if result["exit"] and not result["done"]:
        tail = [line for line in result["tail"].splitlines() if line.strip()]
        raise RunError(f"mutmut run: exit {result['exit']}: {' / '.join(tail[-2:])}")
    # counted as assay counts: a mutant no test runs is not killed (mutmut leaves it out)
    counted = result["killed"] + result["survived"] + result["no_tests"]
    result["score"] = round(100 * result["killed"] / counted, 1) if counted else None
    return result


def load_now() -> float:
    return round(os.getloadavg()[0], 2)
