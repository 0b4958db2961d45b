"""Does the offline writer keep at least one test on each field project's main module?

Run by hand (not a test), after bench/field/prepare.py set the projects up under
/tmp/assay-field/projects:
  .venv/bin/python bench/offline_field_coverage.py [--budget 30] [--only semver]

Per project of bench/field/projects.toml, its main module (`module`), on a fresh copy (the
project's .venv linked, as its assay configuration names it): `generate_offline` with the budget,
nothing written (`dry_run`): the tests kept through gates 1-5, the module's mutants they kill as
the probe saw them, the verdict, and for a module with no test the writer's own words for each
function (the true cause: no inputs, all inputs raise, no kill, not probed). The goal of issue 28:
at least one kept test on >= 90% of the modules. There is no other tool to compare against here:
the comparison with Pynguin is bench/offline_vs_pynguin.py --set field.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import tomllib

from assay.writers.offline import generate_offline

HERE = Path(__file__).resolve().parent
FIELD = Path("/tmp/assay-field/projects")
RUNS = HERE / ".cache" / "offline_field_coverage"


def copy_of(name: str, version: str) -> Path:
    src = FIELD / f"{name}-{version}"
    dest = RUNS / name
    if dest.exists():
        shutil.rmtree(dest)
    dest.parent.mkdir(parents=True, exist_ok=True)
    skip = shutil.ignore_patterns(".assay", "__pycache__", "*.egg-info", ".venv", ".tox", "mutants")
    shutil.copytree(src, dest, ignore=skip)
    if (src / ".venv").is_dir():
        (dest / ".venv").symlink_to(src / ".venv")
    return dest


def one(name: str, version: str, module: str, budget: float) -> dict:
    root = copy_of(name, version)
    start = time.monotonic()
    try:
        report = generate_offline([root / module], budget_s=budget, root=root, dry_run=True)
    except Exception as err:  # noqa: BLE001 - a module the writer cannot take is a row too
        return {"project": name, "module": module, "tests": 0, "verdict": f"error: {err}"[:200]}
    [result] = report.modules
    causes = Counter(f.status for f in result.functions if not f.tests)
    return {
        "project": name,
        "module": module,
        "tests": len(result.tests or []),
        "functions": len(result.functions),
        "tested": sum(1 for f in result.functions if f.tests),
        "killed": result.killed,
        "mutants": result.mutants,
        "verdict": result.verdict,
        "causes": dict(causes),
        # the causes that are not a skip first: a skip is the writer's choice, not a failure
        "why": [
            f"{f.name}: {f.reason}"
            for f in sorted(result.functions, key=lambda f: f.status == "skipped")
            if not f.tests
        ][:4],
        "notes": result.notes[:2],
        "wall_s": round(time.monotonic() - start, 1),
        # the machine's slowdown as the writer last read it (capped at `pace.MAX_SLOWDOWN`)
        "slowdown": round(result.timings.get("slowdown", 0.0), 1),
        "load": round(os.getloadavg()[0], 1),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--budget", type=float, default=30.0, help="seconds per module")
    parser.add_argument("--only", action="append")
    args = parser.parse_args()
    projects = tomllib.loads((HERE / "field" / "projects.toml").read_text())["project"]
    rows = []
    for p in projects:
        if args.only and p["name"] not in args.only:
            continue
        if not (FIELD / f"{p['name']}-{p['version']}").is_dir():
            print(f"{p['name']}: not set up (bench/field/prepare.py)", file=sys.stderr)
            continue
        print(f"{p['name']} {p['module']} ...", file=sys.stderr, flush=True)
        rows.append(one(p["name"], p["version"], p["module"], args.budget))
        print(json.dumps(rows[-1]), file=sys.stderr, flush=True)
    print(
        "| project | module | tests kept | functions tested | kills (probe) | verdict "
        "| wall s | slowdown (load) | why not |"
    )
    print("|---|---|---:|---:|---:|---|---:|---:|---")
    for r in rows:
        why = "" if r["tests"] else "; ".join(r.get("notes", []) + r.get("why", []))[:240]
        print(
            f"| {r['project']} | `{r['module']}` | {r['tests']} | "
            f"{r.get('tested', 0)}/{r.get('functions', 0)} | "
            f"{r.get('killed', 0)}/{r.get('mutants', 0)} | {r['verdict']} | {r.get('wall_s', '')} "
            f"| {r.get('slowdown', '')} ({r.get('load', '')}) | {why} |"
        )
    kept = sum(1 for r in rows if r["tests"])
    uptime = re.sub(r"\s+", " ", subprocess.run(["uptime"], capture_output=True, text=True).stdout)
    print(
        f"\n{kept} of {len(rows)} modules with at least one kept test "
        f"({100 * kept / max(1, len(rows)):.0f}%; goal 90%); budget {args.budget:g} s per module; "
        f"{os.cpu_count()} cores, {uptime.strip()}"
    )
    (RUNS / f"results-{args.budget:g}.json").write_text(json.dumps(rows, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
