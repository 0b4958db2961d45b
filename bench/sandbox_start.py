"""What one sandboxed run costs to start, per backend, against the same command run bare (what a
user running the test by hand pays): `true`, and `python -c pass` with assay's interpreter.

    python bench/sandbox_start.py [--runs N]     # default 40 runs per row

Each row runs the command N times through `Sandbox.run` (the scratch workspace, the view, the
unprivileged uid, cgroups and rlimits as gates 1-3 get them) with `sandbox.backend` forced; wall is
the median of one run, CPU is user + system of every process the runs started and of the
parent's own share (building the command line, the cgroups), per run (bench/cpuacct.py).
"""

from __future__ import annotations

import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from cpuacct import Meter

from assay.config import SandboxConfig
from assay.sandbox import Sandbox, bwrap
from assay.sandbox.view import hand_over_tree

METER = Meter()


def cpu() -> float:
    """CPU of this process and of everything it started (see cpuacct.py: bwrap's pid-1 helper is
    never waited for, so rusage misses the tests' CPU under that backend)."""
    if METER.group:
        return METER.seconds()
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def measure(run: object, runs: int) -> tuple[float, float]:
    walls = []
    start = cpu()
    for _ in range(runs):
        t = time.monotonic()
        run()  # type: ignore[operator]
        walls.append(time.monotonic() - t)
    return statistics.median(walls), (cpu() - start) / runs


def main(argv: list[str]) -> None:
    runs = int(argv[argv.index("--runs") + 1]) if "--runs" in argv else 40
    METER.join()
    print(f"CPU: {METER.method}")
    base = Path(tempfile.mkdtemp(prefix="assay-bench-start-"))
    project = base / "proj"
    project.mkdir()
    ws = base / "assay-ws-bench"
    (ws / "run").mkdir(parents=True)
    hand_over_tree(ws)
    commands = {"true": ["true"], "python -c pass": [sys.executable, "-c", "pass"]}
    print("| command | backend | wall per run (median) | CPU per run | runs |")
    print("|---|---|---:|---:|---:|")
    try:
        for label, argv_ in commands.items():
            bare = measure(lambda a=argv_: subprocess.run(a, cwd=ws, check=True), runs)
            wall, used = bare
            print(
                f"| `{label}` | none (bare) | {wall * 1e3:.1f} ms | {used * 1e3:.1f} ms | {runs} |"
            )
            for backend in ("builtin", "bwrap"):
                if backend == "bwrap" and (why := bwrap.usable()):
                    print(f"| `{label}` | bwrap | – | – | skipped: {why} |")
                    continue
                sandbox = Sandbox(SandboxConfig(backend=backend), protect=project)
                env = sandbox.env_for(ws / "home")

                def one(sandbox: Sandbox = sandbox, argv: list[str] = argv_, env=env) -> None:
                    result = sandbox.run(argv, cwd=ws / "run", env=env, timeout=60)
                    if result.returncode != 0:
                        raise SystemExit(f"{sandbox.info.backend}: {result.stderr}")

                one()  # warm: the probes, the interpreter's reach
                wall, used = measure(one, runs)
                print(
                    f"| `{label}` | {sandbox.info.backend} | {wall * 1000:.1f} ms | "
                    f"{used * 1000:.1f} ms | {runs} |",
                    flush=True,
                )
    finally:
        shutil.rmtree(base, ignore_errors=True)
        METER.close()


if __name__ == "__main__":
    main(sys.argv[1:])
