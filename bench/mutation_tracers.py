"""Baseline recorders of `assay mutate` compared: traced / untraced wall time per project
and interpreter.

Run by hand:
  .venv/bin/python bench/mutation_tracers.py [--python /path/to/python3.12 ...] [--repeat 2]

For each bench project (sdists from PyPI, `bench/sdists.py`) and each interpreter (which needs
pytest, and coverage for the `coverage` recorder), one process collects the tests once, then runs
them all in forked children, one after the other: untraced, and under each recorder the interpreter
has (`settrace`, `coverage` - coverage.py's C tracer with a dynamic context per test phase - and
`monitoring`, 3.12+), with the worker's own code
(`_assay_sandbox.mutation.baseline_child.run_tests`). Prints seconds and the ratio to the untraced
run; writes bench/.cache/mutation_tracers.json.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from sdists import CACHE, fetch  # noqa: E402

PROJECTS = {
    "inflection==0.5.1": ("inflection/__init__.py", "test_inflection.py"),
    "toolz==1.2.0": ("toolz/itertoolz.py", "toolz/tests/test_itertoolz.py"),
    "more-itertools==11.2.1": ("more_itertools/recipes.py", "tests/test_recipes.py"),
    "isodate==0.7.2": ("src/isodate/isodates.py", "tests/test_date.py"),
}
SANDBOX_PARENT = HERE.parent / "src" / "assay"

# Runs under the measured interpreter: collect once, then time each recorder in a forked child.
PROBE = r"""
import json, os, sys, time
sys.path.insert(0, sys.argv[1])
from _assay_sandbox.fork import fork, watch
from _assay_sandbox.mutation.baseline_child import run_tests
from _assay_sandbox.protocol import MutationJob
import pytest
del sys.path[0]
root, target, tests, repeat = sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5])
sys.path.insert(0, os.path.join(root, "src") if os.path.isdir(os.path.join(root, "src")) else root)
cfg = MutationJob(user_root=root, scratch_root=root, events="", tests=[tests], mutants=[],
                  targets={target: os.path.join(root, target)})
wanted = os.environ.get("BENCH_KINDS", "settrace,coverage").split(",")
kinds = ["untraced", "probes"] + [k for k in wanted if k]
kinds += ["monitoring"] if hasattr(sys, "monitoring") else []
out = {}

class Probe:
    def pytest_collection_modifyitems(self, items):
        skip = [s for s in os.environ.get("BENCH_DESELECT", "").split(",") if s]
        items[:] = [i for i in items if not any(s in i.nodeid for s in skip)]

    def pytest_runtestloop(self, session):
        for _ in range(repeat):
            for kind in kinds:
                if kind != "untraced":
                    os.environ["ASSAY_MUTATION_TRACER"] = kind
                items = list(session.items)
                child = fork(lambda report, k=kind: run_tests(items, report, k != "untraced", cfg))
                deadline = lambda c: c.started + 900  # noqa: E731
                state, result = watch([child], deadline, lambda c, m: None)[child.pid]
                took = child.ended - child.started
                if state != "exited" or "crash" in result:
                    out.setdefault(kind, []).append(None)
                    print(kind, result.get("crash", state), file=sys.stderr)
                else:
                    out.setdefault(kind, []).append(round(took, 3))
                    out.setdefault(kind + " overhead", []).append(result["result"]["overhead"])
        return True

pytest.main([tests, "-q", "-p", "no:cacheprovider", "-p", "no:randomly"], plugins=[Probe()])
print("RESULT " + json.dumps({"python": sys.version.split()[0], "seconds": out}))
"""


def measure(python: str, root: Path, target: str, tests: str, repeat: int) -> dict:
    work = Path(tempfile.mkdtemp(prefix="bench-tracers-")) / root.name
    shutil.copytree(root, work, ignore=shutil.ignore_patterns("mutants", ".assay", "__pycache__"))
    try:
        proc = subprocess.run(
            [python, "-c", PROBE, str(SANDBOX_PARENT), str(work), target, tests, str(repeat)],
            cwd=work,
            capture_output=True,
            text=True,
            env={**os.environ, "PYTHONHASHSEED": "0"},
        )
    finally:
        shutil.rmtree(work.parent, ignore_errors=True)
    line = next((x for x in proc.stdout.splitlines() if x.startswith("RESULT ")), None)
    if line is None:
        raise SystemExit(f"probe failed under {python}: {proc.stderr[-2000:]}")
    data = json.loads(line[len("RESULT ") :])
    best = {
        k: min((v for v in vals if v is not None), default=None)
        for k, vals in data["seconds"].items()
        if not k.endswith("overhead")
    }
    data["overhead"] = {k: vals for k, vals in data["seconds"].items() if k.endswith("overhead")}
    base = best["untraced"]
    data["best_s"] = best
    data["ratio"] = {k: round(v / base, 2) for k, v in best.items() if v is not None and base}
    return data


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--python", action="append", help="interpreters to measure (default: this one)"
    )
    parser.add_argument(
        "--repeat", type=int, default=2, help="runs of each recorder; the fastest counts"
    )
    parser.add_argument("--project", action="append", help="only these specs (default: all)")
    args = parser.parse_args()
    rows = []
    for spec, (target, tests) in PROJECTS.items():
        if args.project and spec not in args.project:
            continue
        for python in args.python or [sys.executable]:
            data = measure(python, fetch(spec), target, tests, args.repeat)
            row = {
                "project": spec,
                "python": data["python"],
                "best_s": data["best_s"],
                "ratio": data["ratio"],
                "overhead": data["overhead"],
            }
            rows.append(row)
            print(json.dumps(row), flush=True)
    (CACHE / "mutation_tracers.json").write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
