"""Per project, from `perfile.py --before SRC` output: verify/pytest of the same file, wall and CPU,
median / worst of the project's files, before and after, and the sum of verify CPU seconds.

    .venv/bin/python bench/field/pftable.py /tmp/x/perfile.json
"""

from __future__ import annotations

import argparse
import json
import statistics
from pathlib import Path


def ratios(rows: list[dict], side: str, kind: str) -> list[float]:
    return [
        row[side][f"{kind}_s"] / row["pytest"][f"{kind}_s"]
        for row in rows
        if row.get(side, {}).get(f"{kind}_s") and row["pytest"].get(f"{kind}_s")
    ]


def spread(values: list[float]) -> str:
    return f"{statistics.median(values):.1f} / {max(values):.1f}" if values else "-"


def line(name: str, rows: list[dict], load: str) -> str:
    cpu_before = sum(r["before"]["cpu_s"] for r in rows)
    cpu_after = sum(r["verify"]["cpu_s"] for r in rows)
    cells = [spread(ratios(rows, s, k)) for k in ("wall", "cpu") for s in ("before", "verify")]
    total = f"{cpu_before:.1f} -> {cpu_after:.1f}"
    return f"| {name} | {len(rows)} | {' | '.join(cells)} | {total} | {load} |"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("perfile", type=Path, help="perfile.json of a `perfile.py --before` run")
    path = parser.parse_args().perfile
    if not path.is_file():
        parser.error(f"no such file: {path}")
    results = json.loads(path.read_text())
    print(
        "| project | files | wall x before | wall x after | CPU x before | CPU x after "
        "| verify CPU s, sum: before -> after | load |"
    )
    print("|---|---|---|---|---|---|---|---|")
    every: list[dict] = []
    for name, rows in results.items():
        rows = [r for r in rows if "before" in r and r["before"].get("cpu_s")]
        if rows:
            every += rows
            loads = [r["load"] for r in rows]
            print(line(name, rows, f"{min(loads):.1f}-{max(loads):.1f}"))
    print(line(f"**these {len(every)} files**", every, ""))


if __name__ == "__main__":
    main()
