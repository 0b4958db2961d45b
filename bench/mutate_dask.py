"""`assay mutate` on one machine vs on a two-worker Dask LocalCluster, in the same run, on a
real project.

Both runs use the same engine with no cache; only where the mutants run differs
(`mutation.distributed`). Cores are the same on both sides: locally the engine's own pool of `cores`
forked workers; on the cluster `cores` Dask worker processes of one thread, each running its batches
with one forked worker. Reported: the per-mutant verdict agreement, the wall of each (the cluster
already running, as a user's would be), per batch the seconds on the worker, the seconds since it
was submitted (queueing included) and the pickled result size, the shipped tree's size, and the
scheduler's overhead for a task that does nothing.

    .venv/bin/python bench/mutate_dask.py [--project inflection==0.5.1] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from sdists import fetch  # noqa: E402

from assay.config import Settings  # noqa: E402
from assay.execution.executor import Pool, open_executor  # noqa: E402
from assay.execution.shipping import cache_root, pack  # noqa: E402
from assay.execution.workspace import Workspace  # noqa: E402
from assay.languages.python import PYTHON, pytest_args  # noqa: E402
from assay.mutation.distributed import DistributedEngine  # noqa: E402
from assay.mutation.engine import Engine  # noqa: E402
from assay.mutation.model import MutationResult  # noqa: E402
from assay.project import Project  # noqa: E402
from assay.sandbox import Sandbox  # noqa: E402

PROJECTS = {
    "inflection==0.5.1": ("inflection/__init__.py", "test_inflection.py"),
    "toolz==1.2.0": ("toolz/itertoolz.py", "toolz/tests/test_itertoolz.py"),
}


def nothing() -> None:
    """A task that does no work: its round trip is the scheduler's overhead."""


def run(
    root: Path, target: str, tests: str, workers: int, pool: Pool | None
) -> tuple[MutationResult, float, Any]:
    settings = Settings()
    settings.mutation.workers = workers
    project = Project.load(root)
    start = time.monotonic()
    with Workspace(root) as ws:
        engine = Engine(
            ws,
            Sandbox(settings.sandbox, protect=root),
            PYTHON.python(settings),
            project.source_roots,
            settings.mutation,
            pytest_args(project, settings),
        )
        if pool is not None:
            engine = DistributedEngine.on(pool, settings, engine)
        done = engine.run([target], [tests])
    return done, time.monotonic() - start, engine


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--project", default="inflection==0.5.1", choices=sorted(PROJECTS))
    parser.add_argument("--cores", type=int, default=2)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    import distributed

    target, tests = PROJECTS[args.project]
    source = fetch(args.project)
    work = Path(tempfile.mkdtemp(prefix="bench-dask-")) / source.name
    shutil.copytree(
        source, work, ignore=shutil.ignore_patterns(".assay", "__pycache__", "*.egg-info")
    )
    local, local_s, _ = run(work, target, tests, args.cores, None)
    print(f"local: {local_s:.2f} s, {len(local.results)} mutants", file=sys.stderr)
    # the first cluster run unpacks it
    shutil.rmtree(cache_root() / pack(work).digest, ignore_errors=True)
    started = time.monotonic()
    with distributed.LocalCluster(
        n_workers=args.cores,
        threads_per_worker=1,
        processes=True,
        host="127.0.0.1",
        dashboard_address=None,
    ) as cluster:
        cluster_start_s = time.monotonic() - started
        with open_executor("dask", scheduler=cluster.scheduler_address) as pool:
            trips = []
            for _ in range(40):
                sent = time.monotonic()
                pool.submit(nothing).result()
                trips.append(time.monotonic() - sent)
            rows = []
            for label in (
                "first (tree shipped and unpacked)",
                "again (tree already on the workers)",
            ):
                remote, remote_s, engine = run(work, target, tests, 1, pool)
                rows.append((label, remote, remote_s, engine))
                print(f"dask {label}: {remote_s:.2f} s", file=sys.stderr)
    shutil.rmtree(work.parent, ignore_errors=True)
    verdicts = {k: r.status.value for k, r in local.results.items()}
    out: dict[str, Any] = {
        "project": args.project,
        "target": target,
        "cores": args.cores,
        "mutants": len(verdicts),
        "local_s": round(local_s, 2),
        "cluster_start_s": round(cluster_start_s, 2),
        "noop_task_ms": {
            "median": round(statistics.median(trips) * 1000, 2),
            "p90": round(sorted(trips)[int(len(trips) * 0.9)] * 1000, 2),
        },
        "runs": [],
    }
    for label, remote, remote_s, engine in rows:
        other = {k: r.status.value for k, r in remote.results.items()}
        out["runs"].append(
            {
                "run": label,
                "wall_s": round(remote_s, 2),
                "agree": sum(other.get(k) == v for k, v in verdicts.items()),
                "of": len(verdicts),
                "differ": sorted(k for k in verdicts if other.get(k) != verdicts[k]),
                "shipped_bytes": len(engine.tree.archive),
                "shipped_files": engine.tree.files,
                "batches": [
                    {
                        "mutants": c.mutants,
                        "worker_s": round(c.worker_s, 2),
                        "since_submit_s": round(c.total_s, 2),
                        "result_bytes": c.result_bytes,
                        "unpacked": c.unpacked,
                    }
                    for c in engine.costs
                ],
                "baseline_s": remote.baseline.get("traced_s"),
            }
        )
    text = json.dumps(out, indent=2)
    print(text)
    if args.json:
        args.json.write_text(text + "\n")


if __name__ == "__main__":
    main()
