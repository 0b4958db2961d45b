"""One test file, two checkouts, alternated (as `abfile.py`), each side's `-f json` report kept and
compared test by test (a speed change must move no file or test verdict); CPU of each run's
whole process tree by the bench's cpuacct meter (`measure._timed`).

    .venv/bin/python bench/field/abtests.py PROJECT_DIR FILE --before SRC --rounds 4 --out DIR
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import measure  # noqa: E402

OWN_SRC = HERE.parent.parent / "src"


def once(src: str, project: Path, test: str, out: Path) -> tuple[float, float]:
    saved = os.environ.get("PYTHONPATH")
    os.environ["PYTHONPATH"] = src
    try:
        cmd = [
            sys.executable,
            "-m",
            "assay",
            "verify",
            test,
            "--no-cache",
            "-q",
            "-f",
            f"json={out}",
        ]
        wall, _, _ = measure._timed(cmd, project)
    finally:
        os.environ.pop("PYTHONPATH")
        if saved is not None:
            os.environ["PYTHONPATH"] = saved
    return wall, measure.CPU_S["last"]


def facts(out: Path) -> tuple[str, dict[str, str], dict]:
    entry = json.loads(out.read_text())["files"][0]
    tests = {t["id"]: t["verdict"] for t in entry["tests"]}
    gate = next((g for g in entry["gates"] if g["gate"] == "mutation"), {})
    keys = ("score", "killed", "survived", "timeout", "unexercised", "early_stop")
    return entry["verdict"], tests, {k: gate.get(k) for k in keys}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("project", type=Path)
    parser.add_argument("test")
    parser.add_argument("--before", required=True, help="the other checkout's src/")
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    sides = {"before": args.before, "after": str(OWN_SRC)}
    rows: dict[str, list[tuple]] = {k: [] for k in sides}
    for i in range(args.rounds):
        for side in ("before", "after") if i % 2 == 0 else ("after", "before"):
            out = args.out / f"{Path(args.test).stem}.{side}.{i}.json"
            wall, cpu = once(sides[side], args.project, args.test, out)
            rows[side].append((wall, cpu, *facts(out), os.getloadavg()[0]))
    reference = rows["before"][0][3]
    for side, got in rows.items():
        walls, cpus = [r[0] for r in got], [r[1] for r in got]
        print(
            f"{side}: wall median {statistics.median(walls):.2f} s "
            f"({' '.join(f'{w:.2f}' for w in walls)}), CPU median {statistics.median(cpus):.2f} s, "
            f"files {sorted({r[2] for r in got})}, tests as before's first run: "
            f"{all(r[3] == reference for r in got)}, "
            f"load {min(r[5] for r in got):.1f}-{max(r[5] for r in got):.1f}"
        )
        for r in got:
            print(f"    {r[4]}")


if __name__ == "__main__":
    main()
