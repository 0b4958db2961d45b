"""assay mutate vs mutmut 3.8.1 on real projects, same machine, same run, same module and test file.

Run by hand (not a test):  .venv/bin/python bench/mutation_vs_mutmut.py [--sample 30]

Per project it reports: wall time, mutants, killed, survived of both tools; the lower bound for assay's work
(sum over mutants of the fastest killing test, or of all covering tests for survivors, untraced durations,
divided by cores) and assay's ratio to it; and the verdict agreement between assay's in-memory run and a
fresh-process rerun with the mutant written to disk in a scratch copy, for a random sample of mutants.
mutmut 3.8.1 lives in its own venv under bench/.cache (installed from PyPI on first use).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from sdists import CACHE, fetch  # noqa: E402

from assay.config import SandboxConfig  # noqa: E402
from assay.execution.sandbox import Sandbox  # noqa: E402
from assay.mutation.diskcheck import detected, rerun_from_disk  # noqa: E402
from assay.mutation.generate import generate  # noqa: E402
from assay.mutation.model import Status  # noqa: E402

PROJECTS = [
    {"spec": "inflection==0.5.1", "target": "inflection/__init__.py", "tests": "test_inflection.py",
     "mutmut_path": "inflection/", "also_copy": []},
    {"spec": "toolz==1.2.0", "target": "toolz/itertoolz.py", "tests": "toolz/tests/test_itertoolz.py",
     "mutmut_path": "toolz/itertoolz.py", "also_copy": ["tlz/", "toolz/"]},
]
MUTMUT_KILLED = {1, 3}
MUTMUT_TIMEOUT = {36, 24, -24, 152, 255}
MUTMUT_SURVIVED = {0}
MUTMUT_NO_TESTS = {5, 33}
DURATIONS_PLUGIN = '''
import json, os
_d = {}
def pytest_runtest_logreport(report):
    _d[report.nodeid] = _d.get(report.nodeid, 0.0) + report.duration
def pytest_sessionfinish(session):
    with open(os.environ["BENCH_DURATIONS"], "w") as fh:
        json.dump(_d, fh)
'''


def mutmut_python() -> Path:
    venv = CACHE / "mutmut-venv"
    if not (venv / "bin" / "mutmut").exists():
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        subprocess.run([str(venv / "bin" / "pip"), "install", "-q", "mutmut==3.8.1", "pytest"], check=True)
    return venv / "bin"


def fresh_copy(root: Path) -> Path:
    dest = Path(tempfile.mkdtemp(prefix="bench-mut-")) / root.name
    shutil.copytree(root, dest, ignore=shutil.ignore_patterns("mutants", ".assay", "__pycache__", "*.egg-info"))
    return dest


def run_mutmut(root: Path, project: dict) -> dict:
    work = fresh_copy(root)
    (work / "pyproject.toml").open("a").write(
        f'\n[tool.mutmut]\npaths_to_mutate = ["{project["mutmut_path"]}"]\n'
        f'tests_dir = ["{project["tests"]}"]\nalso_copy = {json.dumps(project["also_copy"])}\n'
    )
    bindir = mutmut_python()
    start = time.monotonic()
    proc = subprocess.run([str(bindir / "mutmut"), "run"], cwd=work, capture_output=True, text=True,
                          env={**os.environ, "PATH": f"{bindir}:{os.environ['PATH']}"})
    wall = time.monotonic() - start
    codes = []
    for meta in (work / "mutants").rglob("*.meta"):
        codes += list(json.loads(meta.read_text())["exit_code_by_key"].values())
    shutil.rmtree(work.parent, ignore_errors=True)
    return {
        "wall_s": round(wall, 2), "exit": proc.returncode, "mutants": len(codes),
        "killed": sum(c in MUTMUT_KILLED or c in MUTMUT_TIMEOUT for c in codes),
        "survived": sum(c in MUTMUT_SURVIVED for c in codes),
        "no_tests": sum(c in MUTMUT_NO_TESTS for c in codes),
        "other": sum(c not in MUTMUT_KILLED | MUTMUT_TIMEOUT | MUTMUT_SURVIVED | MUTMUT_NO_TESTS for c in codes),
        "tail": proc.stdout[-300:] if proc.returncode else "",
    }


def run_assay(root: Path, project: dict) -> tuple[dict, dict]:
    work = fresh_copy(root)
    out = work.parent / "assay.json"
    start = time.monotonic()
    proc = subprocess.run([sys.executable, "-m", "assay", "mutate", project["target"], "--tests", project["tests"],
                           "--root", str(work), "--no-cache", "--threshold", "0", "-f", "json", "-o", str(out)],
                          cwd=work, capture_output=True, text=True)
    wall = time.monotonic() - start
    if proc.returncode not in (0, 1):
        raise SystemExit(f"assay failed on {project['spec']}: {proc.stderr[-2000:]}")
    data = json.loads(out.read_text())
    shutil.rmtree(work.parent, ignore_errors=True)
    return {"wall_s": round(wall, 2), "mutants": len(data["mutants"]) - data["ignored"],
            "ignored": data["ignored"], "killed": data["killed"] + data["timeout"], "survived": data["survived"],
            "no_coverage": data["no_coverage"], "timeout": data["timeout"], "score": data["score"]}, data


def test_durations(root: Path, tests: str) -> dict[str, float]:
    """Untraced per-test durations (setup + call + teardown) from one plain pytest run."""
    work = fresh_copy(root)
    (work.parent / "bench_durations.py").write_text(DURATIONS_PLUGIN)
    out = work.parent / "durations.json"
    env = {**os.environ, "PYTHONPATH": f"{work.parent}:{work}", "BENCH_DURATIONS": str(out)}
    subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "bench_durations", "-p", "no:cacheprovider", tests],
                   cwd=work, env=env, capture_output=True, check=False)
    durations = json.loads(out.read_text())
    shutil.rmtree(work.parent, ignore_errors=True)
    return durations


def lower_bound(data: dict, durations: dict[str, float], cores: int) -> float:
    total = 0.0
    for m in data["mutants"]:
        if m["status"] == "Killed":
            total += durations.get(m["killed_by"][0], 0.0)
        elif m["status"] in ("Survived", "Timeout"):
            total += sum(durations.get(t, 0.0) for t in m["covered_by"])
    return total / cores


def agreement(root: Path, project: dict, data: dict, sample: int, seed: int) -> dict:
    text = (root / project["target"]).read_text(encoding="utf-8")
    by_id = {m.id: m for m in generate(project["target"], text)}
    pool = [m for m in data["mutants"] if m["status"] not in ("Ignored", "CompileError", "RuntimeError")]
    chosen = random.Random(seed).sample(pool, min(sample, len(pool)))
    sandbox = Sandbox(SandboxConfig(timeout_s=60), protect=root)
    agree, mismatches = 0, []
    for m in chosen:
        disk = rerun_from_disk(root, by_id[m["id"]], text, [project["tests"]], sys.executable, sandbox, ["."],
                               timeout=30)
        if detected(disk) == detected(Status(m["status"])):
            agree += 1
        else:
            mismatches.append(f"{m['id']} {m['operator']} line {m['line']}: assay {m['status']}, disk {disk.value}")
    return {"sampled": len(chosen), "agree": agree, "mismatches": mismatches}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sample", type=int, default=30)
    parser.add_argument("--seed", type=int, default=20260601)
    parser.add_argument("--skip-mutmut", action="store_true")
    parser.add_argument("--tag", default="", help="suffix of the per-project assay JSON saved under bench/.cache")
    args = parser.parse_args()
    cores = os.cpu_count() or 1
    results = []
    for project in PROJECTS:
        root = fetch(project["spec"])
        mutmut = None if args.skip_mutmut else run_mutmut(root, project)
        assay, data = run_assay(root, project)
        name = project["spec"].replace("==", "-")
        (CACHE / f"assay-{name}{args.tag}.json").write_text(json.dumps(data, indent=1))
        durations = test_durations(root, project["tests"])
        bound = lower_bound(data, durations, cores)
        agree = agreement(root, project, data, args.sample, args.seed)
        row = {"project": project["spec"], "target": project["target"], "tests": project["tests"], "cores": cores,
               "assay": assay, "mutmut": mutmut, "lower_bound_s": round(bound, 2),
               "ratio_to_lower_bound": round(assay["wall_s"] / bound, 1) if bound else None,
               "speedup_vs_mutmut": round(mutmut["wall_s"] / assay["wall_s"], 1) if mutmut else None,
               "disk_agreement": agree}
        results.append(row)
        print(json.dumps(row, indent=2), flush=True)
    (CACHE / "mutation_vs_mutmut.json").write_text(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
