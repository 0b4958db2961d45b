"""Gate 4's worker on standby against a cold worker per run: the same mutation run of a small file,
alternately, in one scratch workspace, as `verify DIR` does for each of its files.

Run by hand (not a test), from the repository root:
    .venv/bin/python bench/standby.py [--runs 10] [--python PATH]

Prints, per side, the median wall and CPU seconds of one gate-4 run (CPU of every process, through
a cpuacct group where the machine has one: under the bwrap backend no process the bench waits for
reaps the tests), and checks that both sides give the same mutant statuses.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from cpuacct import Meter  # noqa: E402

from assay.config import SandboxConfig  # noqa: E402
from assay.config.mutation import MutationConfig  # noqa: E402
from assay.execution.workspace import Workspace  # noqa: E402
from assay.mutation.engine import Engine  # noqa: E402
from assay.mutation.standby import StandbyWorkers  # noqa: E402
from assay.sandbox import Sandbox  # noqa: E402

FILES = {
    "pyproject.toml": '[project]\nname = "calc"\nversion = "0"\n',
    "src/calc/__init__.py": "",
    "src/calc/ops.py": (
        "def clamp(x, low, high):\n"
        "    if x < low:\n"
        "        return low\n"
        "    if x > high:\n"
        "        return high\n"
        "    return x\n"
    ),
    "tests/test_ops.py": (
        "from calc.ops import clamp\n\n\n"
        "def test_clamp():\n"
        "    assert clamp(5, 0, 10) == 5\n"
        "    assert clamp(-1, 0, 10) == 0\n"
        "    assert clamp(11, 0, 10) == 10\n"
        "    assert clamp(10, 0, 10) == 10\n"
        "    assert clamp(0, 0, 10) == 0\n"
    ),
}


def one(engine: Engine, meter: Meter | None) -> tuple[float, float | None, dict[str, str]]:
    cpu = meter.seconds() if meter else None
    start = time.monotonic()
    run = engine.run(["src/calc/ops.py"], ["tests/test_ops.py"], scoped=True, observe=True)
    wall = time.monotonic() - start
    used = meter.seconds() - cpu if meter and cpu is not None else None
    return wall, used, {k: r.status.value for k, r in run.results.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10, help="runs per side")
    parser.add_argument("--python", default=sys.executable, help="the tests' interpreter")
    args = parser.parse_args()
    meter = Meter()
    if meter.group is not None:
        meter.join()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "calc"
        for rel, text in FILES.items():
            (root / rel).parent.mkdir(parents=True, exist_ok=True)
            (root / rel).write_text(text)
        sandbox = Sandbox(SandboxConfig(), protect=root)
        standby = StandbyWorkers(sandbox)
        config = MutationConfig(workers=2)
        times: dict[str, list[tuple[float, float | None]]] = {"cold": [], "standby": []}
        statuses: dict[str, dict[str, str]] = {}
        with Workspace(root) as ws:
            for i in range(args.runs * 2):
                side = ("cold", "standby")[(i + i // 2) % 2]  # cold, standby, standby, cold, ...
                engine = Engine(
                    ws,
                    sandbox,
                    args.python,
                    ["src"],
                    config,
                    standby=standby if side == "standby" else None,
                )
                wall, cpu, found = one(engine, meter if meter.group else None)
                ws.reset()
                times[side].append((wall, cpu))
                if statuses.setdefault(side, found) != found:
                    raise SystemExit(f"{side}: statuses changed between runs")
            standby.close()
    print(f"one gate-4 run of a one-function file, median of {args.runs} ({meter.method}):")
    for side, rows in times.items():
        wall = statistics.median(w for w, _ in rows)
        cpus = [c for _, c in rows if c is not None]
        cpu = f"{statistics.median(cpus):.3f} CPU s" if cpus else "CPU not measured"
        print(f"  {side:8s} {wall:.3f} s wall, {cpu}")
    same = statuses["cold"] == statuses["standby"]
    print(f"same mutant statuses on both sides: {same} ({len(statuses['cold'])} mutants)")
    meter.close()


if __name__ == "__main__":
    main()
