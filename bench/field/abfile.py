"""One test file, two checkouts, alternated: `assay verify FILE --no-cache -q` of `--before`'s src/
(first on PYTHONPATH) and of this checkout, in turn (ABBA), `--rounds` times each; the median wall,
the median CPU of the reaped process tree (RUSAGE_CHILDREN: sandboxed grandchildren their parents
reaped included) and the file verdicts of each side. For a change to the start of a file's run,
where a per-file run of the whole bench (`perfile.py --before`) at load says less than ten pairs.

    .venv/bin/python bench/field/abfile.py --before /tmp/base/src PROJECT_DIR TEST_FILE [--rounds N]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
OWN_SRC = HERE.parent.parent / "src"


def _once(src: str, project: str, test: str) -> tuple[float, float, str]:
    env = {**os.environ, "PYTHONPATH": src}
    with tempfile.TemporaryDirectory(prefix="abfile-") as tmp:
        report = Path(tmp) / "report.json"
        cmd = [sys.executable, "-m", "assay", "verify", test, "--no-cache", "-q"]
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.monotonic()
        subprocess.run([*cmd, "-f", f"json={report}"], cwd=project, env=env, capture_output=True)
        wall = time.monotonic() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        files = json.loads(report.read_text())["files"] if report.exists() else []
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    return wall, cpu, files[0]["verdict"] if files else "no report"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("project")
    parser.add_argument("test")
    parser.add_argument("--before", required=True, help="the other checkout's src/")
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    sides = {"before": args.before, "after": str(OWN_SRC)}
    rows: dict[str, list[tuple[float, float, str, float]]] = {k: [] for k in sides}
    for i in range(args.rounds):
        for side in ("before", "after") if i % 2 == 0 else ("after", "before"):
            wall, cpu, verdict = _once(sides[side], args.project, args.test)
            rows[side].append((wall, cpu, verdict, os.getloadavg()[0]))
    for side, got in rows.items():
        walls = [r[0] for r in got]
        print(
            f"{side}: wall median {statistics.median(walls):.2f} s "
            f"({' '.join(f'{w:.2f}' for w in walls)}), CPU median "
            f"{statistics.median(r[1] for r in got):.2f} s, "
            f"verdicts {sorted({r[2] for r in got})}, "
            f"load {min(r[3] for r in got):.1f}-{max(r[3] for r in got):.1f}"
        )


if __name__ == "__main__":
    main()
