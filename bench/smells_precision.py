"""Smell precision on well-kept human suites: findings per 1,000 tests, per project, rule
and profile.

    .venv/bin/python bench/smells_precision.py [--tag after] [--compare before] [--sample 40]

Fetches the pinned sdists (`bench/sdists.py`), runs the real `assay smells --format json` CLI over
each project's own test suite once per profile (`[smells] profile = ...` in a scratch `--config`
file), and prints: the figures per project and profile, every reject finding of the `suite` profile
(each must be a true positive by its rule: judge them by hand), and a seeded sample of warnings to
read by hand. Results go to bench/.cache/smells_precision-<tag>.json; `--compare TAG` prints
before/after side by side. `--assay-src DIR` runs another checkout's assay (e.g. a `git archive` of
main) for the "before" figures; an assay without profiles is run once, with its defaults, and
reported under every profile.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import random
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

from sdists import CACHE, fetch

PROJECTS = (
    "inflection==0.5.1",
    "toolz==1.2.0",
    "humanize==4.17.0",
    "more-itertools==11.2.1",
    "isodate==0.7.2",
)
PROFILES = ("suite", "generated")


def count_tests(root: Path) -> int:
    """Test functions as assay sees them (a parametrized test counts once)."""
    from assay.project import discover
    from assay.smells import decode
    from assay.smells.context import Module

    n = 0
    for f in discover([root], root):
        source = decode(f.read_bytes()).removeprefix("\ufeff")
        n += len(Module(ast.parse(source), str(f), source.splitlines()).tests)
    return n


def run_smells(root: Path, profile: str | None, src: str | None) -> dict | None:
    """The CLI's JSON report, or None when this assay does not know `profile`."""
    env = dict(os.environ, PYTHONPATH=src) if src else None
    with tempfile.TemporaryDirectory() as tmp:
        args = [
            sys.executable,
            "-m",
            "assay",
            "smells",
            str(root),
            "--root",
            str(root),
            "--format",
            "json",
        ]
        if profile:
            config = Path(tmp) / "assay.toml"
            config.write_text(f'[smells]\nprofile = "{profile}"\n')
            args += ["--config", str(config)]
        proc = subprocess.run(args, capture_output=True, text=True, env=env)
    if proc.returncode == 2 and "profile" in proc.stdout + proc.stderr:
        return None
    if proc.returncode not in (0, 1):
        raise SystemExit(f"assay smells failed ({proc.returncode}): {proc.stderr}")
    return json.loads(proc.stdout)


def measure(src: str | None) -> dict:
    results: dict = {}
    for spec in PROJECTS:
        root = fetch(spec)
        entry = results[spec] = {"tests": count_tests(root), "profiles": {}}
        for profile in PROFILES:
            data = run_smells(root, profile, src) or run_smells(root, None, src)
            entry["profiles"][profile] = data["findings"]
    return results


def _per_k(n: int, tests: int) -> str:
    return f"{1000 * n / tests:.1f}"


def _by_rule(findings: list[dict]) -> str:
    return ", ".join(f"{k} {v}" for k, v in sorted(Counter(f["rule"] for f in findings).items()))


def table(results: dict, label: str) -> None:
    print(f"\n## {label}\n")
    print(
        "| project | profile | tests | reject | per 1,000 | "
        "warn | per 1,000 | reject by rule | warn by rule |"
    )
    print("|---|---|---:|---:|---:|---:|---:|---|---|")
    for profile in PROFILES:
        tot_tests = tot_r = tot_w = 0
        for spec, entry in results.items():
            found = entry["profiles"][profile]
            r = [f for f in found if f["level"] == "reject"]
            w = [f for f in found if f["level"] == "warn"]
            tot_tests, tot_r, tot_w = tot_tests + entry["tests"], tot_r + len(r), tot_w + len(w)
            n = entry["tests"]
            print(
                f"| {spec.replace('==', ' ')} | {profile} | {n} "
                f"| {len(r)} | {_per_k(len(r), n)} | {len(w)} | "
                f"{_per_k(len(w), n)} | {_by_rule(r)} | {_by_rule(w)} |"
            )
        print(
            f"| **all** | {profile} | {tot_tests} | {tot_r} "
            f"| {_per_k(tot_r, tot_tests)} | {tot_w} | "
            f"{_per_k(tot_w, tot_tests)} | | |"
        )


def _source_line(spec: str, f: dict) -> str:
    try:
        return (
            (fetch(spec) / f["path"])
            .read_text(encoding="utf-8")
            .splitlines()[f["line"] - 1]
            .strip()
        )
    except (OSError, IndexError, UnicodeDecodeError):
        return ""


def listing(results: dict, level: str, sample: int | None) -> None:
    items = [
        (spec, f)
        for spec, e in results.items()
        for f in e["profiles"]["suite"]
        if f["level"] == level
    ]
    if sample is not None:
        items = random.Random(2026).sample(items, min(sample, len(items)))
        items.sort(key=lambda x: (x[0], x[1]["path"], x[1]["line"]))
    print(
        f"\n{level} findings of the suite "
        f"profile{f' (seeded sample of {len(items)})' if sample else ''}:"
    )
    for spec, f in items:
        print(
            f"- {spec.split('==')[0]} {f['path']}:{f['line']} "
            f"{f['rule']} {f['test']}: {f['message']}\n"
            f"      {_source_line(spec, f)[:110]}"
        )


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--tag", default="after", help="name of the results file in bench/.cache")
    ap.add_argument("--compare", help="tag of earlier results to print first")
    ap.add_argument("--sample", type=int, default=40, help="warnings to print for reading by hand")
    ap.add_argument(
        "--assay-src", help="PYTHONPATH of the assay to measure (default: this checkout's)"
    )
    args = ap.parse_args()
    results = measure(args.assay_src)
    out = CACHE / f"smells_precision-{args.tag}.json"
    out.write_text(json.dumps(results, indent=1))
    if args.compare:
        table(
            json.loads((CACHE / f"smells_precision-{args.compare}.json").read_text()), args.compare
        )
    table(results, args.tag)
    listing(results, "reject", None)
    listing(results, "warn", args.sample)
    print(f"\nresults: {out}")


if __name__ == "__main__":
    main()
