"""Gate 5 on real test suites: reject findings per 1,000 tests and per rule, timing, and a
1,000-file run.

    python bench/smells_real.py [--sample 20]

Fetches the pinned sdists of five small, well-tested projects (`bench/sdists.py`, cached in
bench/.cache), runs the real `assay smells` CLI over each project's tests with the default profile
("auto": their tests are unmarked, so "suite"), and prints a seeded sample of reject findings to
hand-check. Per-profile figures and every finding: `bench/smells_precision.py`.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import random
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

from sdists import fetch as fetch_sdist
from smells_precision import PROJECTS  # pinned versions shared by the smell benches


def fetch() -> list[Path]:
    return [fetch_sdist(spec) for spec in PROJECTS]


def count_tests(root: Path) -> tuple[int, int]:
    """(test files, test functions) as assay sees them."""
    from assay.project import discover
    from assay.smells import decode
    from assay.smells.context import Module

    files = discover([root], root)
    n = 0
    for f in files:
        source = decode(f.read_bytes())
        n += len(
            Module(ast.parse(source.removeprefix("\ufeff")), str(f), source.splitlines()).tests
        )
    return len(files), n


def smells(paths: list[Path], root: Path) -> tuple[dict, float, float]:
    """Report, wall seconds, CPU seconds (the CLI and its workers: independent of other load)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.monotonic()
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "assay",
            "smells",
            *map(str, paths),
            "--root",
            str(root),
            "--format",
            "json",
        ],
        capture_output=True,
        text=True,
    )
    elapsed = time.monotonic() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    if proc.returncode not in (0, 1):
        raise SystemExit(f"assay smells failed ({proc.returncode}): {proc.stderr}")
    return json.loads(proc.stdout), elapsed, cpu


def speed(
    roots: list[Path], n_files: int = 1000, max_bytes: int | None = None
) -> tuple[int, int, float, float]:
    """Real test files (at most `max_bytes` each) replicated to `n_files` in a scratch project,
    linted by one `assay smells` call."""
    from assay.project import discover

    originals = [
        f
        for r in roots
        for f in discover([r], r)
        if max_bytes is None or f.stat().st_size <= max_bytes
    ]
    with tempfile.TemporaryDirectory() as tmp:
        proj = Path(tmp)
        (proj / "pyproject.toml").write_text('[project]\nname = "bench"\nversion = "0"\n')
        for i in range(n_files):
            src = originals[i % len(originals)]
            dest = proj / "tests" / f"d{i // 100}" / f"test_{i}_{src.stem.removeprefix('test_')}.py"
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(src, dest)
        size = sum(f.stat().st_size for f in (proj / "tests").rglob("*.py"))
        data, elapsed, cpu = smells([proj / "tests"], proj)
        return data["files"], size, elapsed, cpu


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument(
        "--sample", type=int, default=20, help="reject findings to print for hand-checking"
    )
    args = ap.parse_args()
    roots = fetch()
    all_rejects = []
    total_tests = 0
    print(
        f"{'project':<24}{'files':>6}{'tests':>7}{'reject':>8}"
        f"{'/1k tests':>11}{'warn':>6}{'time s':>8}"
    )
    per_rule: Counter[str] = Counter()
    for root in roots:
        n_files, n_tests = count_tests(root)
        data, elapsed, _ = smells([root], root)
        rejects = [f for f in data["findings"] if f["level"] == "reject"]
        per_rule.update(f["rule"] for f in rejects)
        all_rejects += [(root.name, f) for f in rejects]
        total_tests += n_tests
        print(
            f"{root.name:<24}{n_files:>6}{n_tests:>7}{len(rejects):>8}"
            f"{1000 * len(rejects) / n_tests:>11.1f}"
            f"{data['summary']['warn']:>6}{elapsed:>8.2f}"
        )
        print("    by rule:", dict(sorted(Counter(f["rule"] for f in rejects).items())))
    print(
        f"all: {len(all_rejects)} reject findings in {total_tests} tests = "
        f"{1000 * len(all_rejects) / total_tests:.1f} per "
        f"1,000 tests; by rule {dict(sorted(per_rule.items()))}"
    )
    for label, limit in (("all files", None), ("files <= 64 KB", 64 * 1024)):
        load = os.getloadavg()[0]
        files, size, elapsed, cpu = speed(roots, max_bytes=limit)
        print(
            f"speed ({label}): {files} files ({size / 1e6:.1f} "
            f"MB) in {elapsed:.2f} s wall, {cpu:.2f} s CPU "
            f"({os.cpu_count()} cores, load before {load:.1f}), one `assay smells` call"
        )
    sample = random.Random(2026).sample(all_rejects, min(args.sample, len(all_rejects)))
    print(f"\nsample of {len(sample)} reject findings (seed 2026) to hand-check:")
    for i, (proj, f) in enumerate(sample, 1):
        print(f"{i:2}. {proj}/{f['path']}:{f['line']} {f['rule']} {f['test']}: {f['message']}")


if __name__ == "__main__":
    main()
