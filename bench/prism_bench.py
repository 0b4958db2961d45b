"""Wall time of the bundled prism benchmark on each executor, and what reusing a scratch tree saves.

The benchmark is examples/prism judged with each of its three suite sets (3 x 29 = 87 sandboxed
pytest runs), without the cache. Configurations: local processes with 1 and 2 workers, 2 workers
copying every tree afresh (no reuse), 2 threads, and a 2-worker Dask LocalCluster (processes,
loopback; its start-up is timed apart). Then the cost of one scratch tree: a fresh copy
(`Workspace(root)`) against `reset()` after a member's overlays, on a bundled task and on a
synthetic 2,000-file tree. The machine is shared: the load average is printed before and after
each configuration.

Run by hand:  .venv/bin/python bench/prism_bench.py [--only local-1,dask-2] [--no-trees]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
BENCH = REPO / "examples" / "prism"
SUITES = REPO / "examples" / "prism-suites"
CONFIGS = {
    "local-1": {"executor": "local", "workers": 1},
    "local-2": {"executor": "local", "workers": 2},
    "local-2-no-reuse": {"executor": "local", "workers": 2, "reuse": False},
    "threads-2": {"executor": "threads", "workers": 2},
    "dask-2": {"executor": "dask"},
}


def load() -> str:
    return "/".join(f"{x:.1f}" for x in os.getloadavg())


def run_benchmark(**kw) -> tuple[float, int, dict]:
    from assay.prism.api import prism_run

    start = time.monotonic()
    runs = 0
    jsf = {}
    for kind in ("strong", "overfit", "weak"):
        report = prism_run(BENCH, SUITES / kind, use_cache=False, **kw)
        runs += report.runs["executed"]
        jsf[kind] = round(report.aggregate["jsf"], 3)
    return time.monotonic() - start, runs, jsf


def _cpu() -> float:
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def bench_executors(only: set[str] | None) -> None:
    cpu_note = ""
    print("| configuration | runs | wall s | s per run | load before | load after |")
    print("|---|---:|---:|---:|---|---|")
    for name, kw in CONFIGS.items():
        if only and name not in only:
            continue
        before = load()
        if name.startswith("dask"):
            from distributed import LocalCluster

            t = time.monotonic()
            with LocalCluster(
                n_workers=2,
                threads_per_worker=1,
                processes=True,
                host="127.0.0.1",
                dashboard_address=None,
            ) as cluster:
                started = time.monotonic() - t
                wall, runs, jsf = run_benchmark(
                    executor="dask", scheduler=cluster.scheduler_address
                )
            name += f" (+{started:.1f} s cluster start)"
        else:
            cpu = _cpu()
            wall, runs, jsf = run_benchmark(**kw)
            # the sandboxed runs are this process's children: all CPU is counted
            if name.startswith("threads"):
                cpu_note = (
                    f"{name}: {_cpu() - cpu:.1f} CPU-s for {runs} "
                    f"runs, assay and sandboxed pytest together"
                )
        print(
            f"| {name} | {runs} | {wall:.1f} | {wall / runs:.2f} | {before} | {load()} |",
            flush=True,
        )
        assert jsf == {"strong": 1.0, "overfit": 0.0, "weak": 0.0}, jsf
    if cpu_note:
        print(f"\n{cpu_note} (independent of the load)")


def tree_costs() -> None:
    from assay.execution.workspace import Workspace
    from assay.prism.task import load_task

    def measure(root: Path, overlays: dict) -> tuple[float, float]:
        copies, resets = [], []
        for _ in range(5):
            t = time.monotonic()
            ws = Workspace(root)
            copies.append(time.monotonic() - t)
            for _ in range(3):
                ws.apply(overlays)
                t = time.monotonic()
                ws.reset()
                resets.append(time.monotonic() - t)
            ws.close()
        return statistics.median(copies) * 1000, statistics.median(resets) * 1000

    task = load_task(BENCH / "roman-numerals")
    member = task.faulty[0]
    print("\n| tree | files | fresh copy ms | reset ms |")
    print("|---|---:|---:|---:|")
    copy_ms, reset_ms = measure(task.original, dict(member.overlays))
    print(
        f"| roman-numerals original/ | {len(task.original_files)} "
        f"| {copy_ms:.1f} | {reset_ms:.1f} |"
    )
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "big"
        for i in range(2000):
            path = root / f"pkg{i // 100}" / f"mod{i}.py"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(f"VALUE = {i}\n" * 40)
        copy_ms, reset_ms = measure(
            root, {"pkg0/mod0.py": "VALUE = -1\n", "pkg1/new.py": "X = 1\n"}
        )
        print(f"| synthetic | 2000 | {copy_ms:.1f} | {reset_ms:.1f} |")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--only", help="comma-separated configurations: " + ", ".join(CONFIGS))
    parser.add_argument("--no-trees", action="store_true", help="skip the copy/reset measurement")
    args = parser.parse_args()
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} cores, load {load()}\n")
    bench_executors(set(args.only.split(",")) if args.only else None)
    if not args.no_trees:
        tree_costs()
    return 0


if __name__ == "__main__":
    sys.exit(main())
