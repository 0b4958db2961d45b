"""assay mutate vs mutmut 3.8.1 on real projects, same machine, same run, same module and test file.

Run by hand (not a test):  .venv/bin/python bench/mutation_vs_mutmut.py [--sample 30]

Per project it reports: wall time, mutants, killed, survived of both tools; the lower bound for
assay's work (sum over mutants of the fastest killing test, or of all covering tests for survivors,
untraced durations, divided by cores) and assay's ratio to it; and the verdict agreement between
assay's in-memory run and a fresh-process rerun with the mutant written to disk in a scratch copy,
for a random sample of mutants. mutmut 3.8.1 lives in its own venv under bench/.cache (installed
from PyPI on first use).
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
from diskcheck import detected, rerun_from_disk  # noqa: E402
from mutmut_runner import mutmut_venv  # noqa: E402
from mutmut_runner import run_mutmut as run_mutmut_on  # noqa: E402
from sdists import CACHE, fetch  # noqa: E402

from assay.config import SandboxConfig  # noqa: E402
from assay.mutation.model import Status  # noqa: E402
from assay.mutation.mutants import generate  # noqa: E402
from assay.sandbox import Sandbox  # noqa: E402

PROJECTS = [
    {
        "spec": "inflection==0.5.1",
        "target": "inflection/__init__.py",
        "tests": "test_inflection.py",
        "mutmut_path": "inflection/",
        "also_copy": [],
    },
    {
        "spec": "toolz==1.2.0",
        "target": "toolz/itertoolz.py",
        "tests": "toolz/tests/test_itertoolz.py",
        "mutmut_path": "toolz/itertoolz.py",
        "also_copy": ["tlz/", "toolz/"],
    },
    # a slow suite: one test (test_primes) takes 10-20 s untraced, the whole file 12-25 s
    {
        "spec": "more-itertools==11.2.1",
        "target": "more_itertools/recipes.py",
        "tests": "tests/test_recipes.py",
        "mutmut_path": "more_itertools/recipes.py",
        "also_copy": ["more_itertools/"],
        # the disk check leaves test_primes out for a mutant it does not cover (it runs for those
        # it covers)
        "disk_skip_unless_covering": ["tests/test_recipes.py::PrimeFunctionTests::test_primes"],
    },
    # module state: DATE_REGEX_CACHE filled by the first test of each kind; parameters from a set
    {
        "spec": "isodate==0.7.2",
        "target": "src/isodate/isodates.py",
        "tests": "tests/test_date.py",
        "mutmut_path": "src/isodate/isodates.py",
        "also_copy": ["src/isodate/"],
    },
    # the same project, another module: more survivors for the disk check (isodates.py has 13
    # in all)
    {
        "spec": "isodate==0.7.2",
        "name": "isodate-0.7.2-duration",
        "target": "src/isodate/isoduration.py",
        "tests": "tests/test_duration.py",
        "mutmut_path": "src/isodate/isoduration.py",
        "also_copy": ["src/isodate/"],
    },
    # tests that sleep and a 2 s statistical test; one test needs typeguard (not
    # installed): deselected
    {
        "spec": "tenacity==9.0.0",
        "target": "tenacity/wait.py",
        "tests": "tests/test_tenacity.py",
        "mutmut_path": "tenacity/wait.py",
        "also_copy": ["tenacity/"],
        "deselect": ["tests/test_tenacity.py::TestRetryTyping::test_retry_type_annotations"],
    },
]
DURATIONS_PLUGIN = """
import json, os
_d = {}
def pytest_runtest_logreport(report):
    _d[report.nodeid] = _d.get(report.nodeid, 0.0) + report.duration
def pytest_sessionfinish(session):
    with open(os.environ["BENCH_DURATIONS"], "w") as fh:
        json.dump(_d, fh)
"""


def mutmut_python() -> Path:
    return mutmut_venv(CACHE / "mutmut-venv")


def fresh_copy(root: Path) -> Path:
    dest = Path(tempfile.mkdtemp(prefix="bench-mut-")) / root.name
    shutil.copytree(
        root, dest, ignore=shutil.ignore_patterns("mutants", ".assay", "__pycache__", "*.egg-info")
    )
    return dest


def run_mutmut(root: Path, project: dict, limit: float | None = None) -> dict:
    """mutmut 3.8.1 on a fresh copy, in its own venv (the projects here need nothing else)."""
    work = fresh_copy(root)
    deselect = [arg for d in project.get("deselect", []) for arg in ("--deselect", d)]
    result = run_mutmut_on(
        work,
        mutmut_python(),
        [project["mutmut_path"]],
        [project["tests"]],
        project["also_copy"],
        deselect,
        limit,
    )
    shutil.rmtree(work.parent, ignore_errors=True)
    return result


def run_assay(root: Path, project: dict) -> tuple[dict, dict]:
    work = fresh_copy(root)
    if project.get("deselect"):
        (work / "pyproject.toml").open("a").write(
            f"\n[tool.assay.mutation]\ndeselect = {json.dumps(project['deselect'])}\n"
        )
    out = work.parent / "assay.json"
    start = time.monotonic()
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "assay",
            "mutate",
            project["target"],
            "--tests",
            project["tests"],
            "--root",
            str(work),
            "--no-cache",
            "--threshold",
            "0",
            "-f",
            "json",
            "-o",
            str(out),
        ],
        cwd=work,
        capture_output=True,
        text=True,
    )
    wall = time.monotonic() - start
    if proc.returncode not in (0, 1):
        raise SystemExit(f"assay failed on {project['spec']}: {proc.stderr[-2000:]}")
    data = json.loads(out.read_text())
    shutil.rmtree(work.parent, ignore_errors=True)
    base = data.get("baseline") or {}
    ratio = (
        round(base["traced_s"] / base["untraced_s"], 2)
        if base.get("traced_s") and base.get("untraced_s")
        else None
    )
    per_test = (
        round(base["tests_traced_s"] / base["tests_untraced_s"], 2)
        if base.get("tests_traced_s") and base.get("tests_untraced_s")
        else None
    )
    return {
        "wall_s": round(wall, 2),
        "mutants": len(data["mutants"]) - data["ignored"],
        "ignored": data["ignored"],
        "killed": data["killed"] + data["timeout"],
        "survived": data["survived"],
        "no_coverage": data["no_coverage"],
        "timeout": data["timeout"],
        "runtime_error": data["runtime_error"],
        "score": data["score"],
        "tracer": base.get("tracer"),
        "traced_s": base.get("traced_s"),
        "untraced_s": base.get("untraced_s"),
        "traced_untraced": ratio,
        "tests_traced_untraced": per_test,
        "traced_overhead": base.get("overhead"),
        "longest_mutant": data.get("longest_mutant"),
        "slowest": data.get("slowest", [])[:5],
    }, data


def test_durations(root: Path, tests: str) -> dict[str, float]:
    """Untraced per-test durations (setup + call + teardown) from one plain pytest run."""
    work = fresh_copy(root)
    (work.parent / "bench_durations.py").write_text(DURATIONS_PLUGIN)
    out = work.parent / "durations.json"
    env = {**os.environ, "PYTHONPATH": f"{work.parent}:{work}", "BENCH_DURATIONS": str(out)}
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "bench_durations",
            "-p",
            "no:cacheprovider",
            tests,
        ],
        cwd=work,
        env=env,
        capture_output=True,
        check=False,
    )
    durations = json.loads(out.read_text())
    shutil.rmtree(work.parent, ignore_errors=True)
    return durations


def lower_bound(data: dict, durations: dict[str, float], cores: int) -> float:
    """The tests any tool must run: a killer per killed mutant, every covering test per survivor. A
    Timeout adds nothing: what a hang costs depends on the deadline, and the tests after it need
    not run."""
    total = 0.0
    for m in data["mutants"]:
        if m["status"] == "Killed":
            total += durations.get(m["killed_by"][0], 0.0)
        elif m["status"] == "Survived":
            total += sum(durations.get(t, 0.0) for t in m["covered_by"])
    return total / cores


def agreement(
    root: Path,
    project: dict,
    data: dict,
    sample: int,
    seed: int,
    survivors: int,
    file_s: float = 60.0,
) -> dict:
    """A fresh-process rerun from disk of `sample` mutants, `survivors` of them survivors (or all
    there are). A rerun gets 10 x the test file's untraced time (at least 60 s): a mutant that hangs
    on disk costs that, not a fixed 10 minutes."""
    text = (root / project["target"]).read_text(encoding="utf-8")
    by_id = {m.id: m for m in generate(project["target"], text)}
    pool = [
        m for m in data["mutants"] if m["status"] not in ("Ignored", "CompileError", "RuntimeError")
    ]
    rng = random.Random(seed)
    alive = [m for m in pool if m["status"] == "Survived"]
    chosen = rng.sample(alive, min(survivors, len(alive)))
    rest = [m for m in pool if m not in chosen]
    chosen += rng.sample(rest, max(0, min(sample - len(chosen), len(rest))))
    sandbox = Sandbox(SandboxConfig(timeout_s=120), protect=root)
    tests = [
        project["tests"],
        *(arg for d in project.get("deselect", []) for arg in ("--deselect", d)),
    ]
    roots = ["src"] if (root / "src").is_dir() else ["."]
    agree, mismatches = 0, []
    for m in chosen:
        skip = [
            arg
            for t in project.get("disk_skip_unless_covering", [])
            if t not in m["covered_by"]
            for arg in ("--deselect", t)
        ]
        disk = rerun_from_disk(
            root,
            by_id[m["id"]],
            text,
            tests + skip,
            sys.executable,
            sandbox,
            roots,
            timeout=max(60.0, 10 * file_s),
        )
        if detected(disk) == detected(Status(m["status"])):
            agree += 1
        else:
            mismatches.append(
                f"{m['id']} {m['operator']} line {m['line']}: "
                f"assay {m['status']}, disk {disk.value}"
            )
    return {
        "sampled": len(chosen),
        "survivors": sum(m["status"] == "Survived" for m in chosen),
        "agree": agree,
        "mismatches": mismatches,
    }


def determinism(a: dict, b: dict) -> dict:
    """Per-mutant statuses of two --no-cache runs compared."""
    first = {m["id"]: m["status"] for m in a["mutants"]}
    second = {m["id"]: m["status"] for m in b["mutants"]}
    differ = sorted(k for k in first.keys() | second.keys() if first.get(k) != second.get(k))
    return {
        "mutants": len(first),
        "identical": not differ,
        "differences": [f"{k}: {first.get(k)} / {second.get(k)}" for k in differ][:20],
    }


def unchanged(before: dict, spec: str, data: dict) -> dict | None:
    """Per-mutant statuses against a `bench/behaviour.py` snapshot taken with an earlier assay
    (None: not in it)."""
    old = before.get("mutate", {}).get(spec)
    if old is None:
        return None
    now = {m["id"]: m["status"] for m in data["mutants"]}
    differ = sorted(
        k
        for k in old["mutants"].keys() | now.keys()
        if old["mutants"].get(k, {}).get("status") != now.get(k)
    )
    return {
        "compared": len(old["mutants"]),
        "same": not differ,
        "differences": [
            f"{k}: {old['mutants'].get(k, {}).get('status')} -> {now.get(k)}" for k in differ
        ][:30],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sample", type=int, default=60)
    parser.add_argument(
        "--survivors", type=int, default=25, help="survivors among the sampled mutants (at most)"
    )
    parser.add_argument("--seed", type=int, default=20260601)
    parser.add_argument("--skip-mutmut", action="store_true")
    parser.add_argument(
        "--mutmut-only", action="store_true", help="run mutmut alone, keep its figures"
    )
    parser.add_argument(
        "--reuse-mutmut",
        action="store_true",
        help="take mutmut's figures from an earlier --mutmut-only run instead of running it",
    )
    parser.add_argument(
        "--mutmut-limit",
        type=float,
        metavar="SECONDS",
        help="stop mutmut after this long (its figures and the speed-up become lower bounds)",
    )
    parser.add_argument(
        "--once",
        action="store_true",
        help="one assay run per project: no second run, so no determinism check (long projects)",
    )
    parser.add_argument("--project", action="append", help="only these specs (default: all)")
    parser.add_argument(
        "--before", type=Path, help="a bench/behaviour.py snapshot: compare per-mutant statuses"
    )
    parser.add_argument(
        "--tag", default="", help="suffix of the per-project assay JSON saved under bench/.cache"
    )
    args = parser.parse_args()
    cores = os.cpu_count() or 1
    results = []
    for project in PROJECTS:
        if (
            args.project
            and project["spec"] not in args.project
            and project.get("name") not in args.project
        ):
            continue
        root = fetch(project["spec"])
        name = project.get("name") or project["spec"].replace("==", "-")
        saved = CACHE / f"mutmut-{name}.json"
        if args.mutmut_only:
            load = os.getloadavg()[0]
            mutmut = {**run_mutmut(root, project, args.mutmut_limit), "load_before": round(load, 2)}
            saved.write_text(json.dumps(mutmut, indent=1))
            print(json.dumps({"project": project["spec"], "mutmut": mutmut}), flush=True)
            continue
        load = os.getloadavg()[0]
        if args.reuse_mutmut and saved.exists():
            mutmut = {**json.loads(saved.read_text()), "reused": True}
        else:
            mutmut = (
                None
                if args.skip_mutmut
                else {**run_mutmut(root, project, args.mutmut_limit), "load_before": round(load, 2)}
            )
        load = os.getloadavg()[0]
        assay, data = run_assay(root, project)
        assay["load_before"] = round(load, 2)
        again, data2 = (None, None) if args.once else run_assay(root, project)
        (CACHE / f"assay-{name}{args.tag}.json").write_text(json.dumps(data, indent=1))
        durations = test_durations(root, project["tests"])
        bound = lower_bound(data, durations, cores)
        agree = agreement(
            root, project, data, args.sample, args.seed, args.survivors, sum(durations.values())
        )
        row = {
            "project": project.get("name") or project["spec"],
            "target": project["target"],
            "tests": project["tests"],
            "cores": cores,
            "assay": assay,
            "assay_second_run_wall_s": again["wall_s"] if again else None,
            "mutmut": mutmut,
            "lower_bound_s": round(bound, 2),
            "ratio_to_lower_bound": round(assay["wall_s"] / bound, 1) if bound else None,
            # mutmut stopped at --mutmut-limit: its time, and so the speed-up, is a lower bound
            "speedup_vs_mutmut": round(mutmut["wall_s"] / assay["wall_s"], 1) if mutmut else None,
            "speedup_is_lower_bound": bool(mutmut) and not mutmut.get("finished", True),
            "disk_agreement": agree,
            "determinism": determinism(data, data2) if data2 else None,
            "vs_before": None
            if not args.before
            else unchanged(json.loads(args.before.read_text()), project["spec"], data),
        }
        results.append(row)
        print(json.dumps(row, indent=2), flush=True)
    if not args.mutmut_only:
        (CACHE / f"mutation_vs_mutmut{args.tag}.json").write_text(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
