"""Before/after on the field bench: `assay verify --no-cache` of each project by two checkouts of
assay, interleaved (before, after, before, after...), and whether their facts are the same.

Run by hand (not a test), from the repository root, once the projects are set up (`run.py`):
    .venv/bin/python bench/field/ab.py --before /tmp/main-archive/src --out /tmp/X --only toolz
    .venv/bin/python bench/field/ab.py --compare A.json B.json   # two reports' facts

"Facts" are what a user reads as a verdict: each file's verdict and deciding gate, each test's
verdict and reason, and gate 4's details without what depends on the run (times, processes
started), the tests of a survivor's brief in any order (they come in the order of their run
times). A difference is printed path by path, an early-stop shift (one sampled mutant more or
fewer settled before the verdict was certain: varies between two runs of one checkout) named as
such; the exit code is 1 when there is any.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import measure  # noqa: E402
from prepare import load  # noqa: E402

# gate-4 details that vary between two runs of one checkout
RUN_DEPENDENT = {"worker_starts", "duration_s"}


def facts(report: dict) -> dict[str, dict]:
    """Per file: its verdict, deciding gate, tests' verdicts and reasons, gate 4's details."""
    out = {}
    for entry in report["files"]:
        gate4 = next((g for g in entry["gates"] if g["gate"] == "mutation"), None)
        details = {k: v for k, v in (gate4 or {}).items() if k not in RUN_DEPENDENT}
        # the tests a survivor's brief names come in the order of their run times
        for brief in details.get("briefs") or []:
            if isinstance(brief.get("tests"), list):
                brief["tests"] = sorted(brief["tests"])
        out[entry["path"]] = {
            "verdict": entry["verdict"],
            "rejected_at": entry["rejected_at"],
            "tests": sorted((t["id"], t["verdict"], t["reason"]) for t in entry["tests"]),
            "gate4": details,
        }
    return out


# what moves together when the early stop settles one more or one fewer sampled mutant (which ones
# are left once the verdict is certain depends on which finish first: main against itself shows it)
EARLY_STOP_SHIFT = {"early_stop", "killed", "survived", "ignored", "score", "modules", "survivors"}


def differences(a: dict, b: dict) -> list[str]:
    fa, fb = facts(a), facts(b)
    out = [f"only in one: {p}" for p in sorted(set(fa) ^ set(fb))]
    for path in sorted(set(fa) & set(fb)):
        for key in fa[path]:
            if fa[path][key] == fb[path][key]:
                continue
            if key == "gate4":
                ga, gb = fa[path][key], fb[path][key]
                moved = {k for k in set(ga) | set(gb) if ga.get(k) != gb.get(k)}
                if "early_stop" in moved and moved <= EARLY_STOP_SHIFT | {"briefs"}:
                    out.append(
                        f"{path}: early-stop shift only: early_stop {ga.get('early_stop')} -> "
                        f"{gb.get('early_stop')}, killed {ga.get('killed')} -> {gb.get('killed')}"
                    )
                    continue
                out += [f"{path}: gate4 {k}: {ga.get(k)!r} != {gb.get(k)!r}"[:600] for k in moved]
                continue
            out.append(f"{path}: {key}: {fa[path][key]!r} != {fb[path][key]!r}"[:600])
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", action="append", metavar="NAME", default=[])
    parser.add_argument("--before", type=Path, help="the other checkout's src/ (PYTHONPATH)")
    parser.add_argument("--out", type=Path, help="reports and results.json here")
    parser.add_argument("--workdir", type=Path, default=Path("/tmp/assay-field"))
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--compare", nargs=2, type=Path, metavar="JSON")
    args = parser.parse_args()
    if args.compare:
        a, b = (json.loads(p.read_text()) for p in args.compare)
        found = differences(a, b)
        print("\n".join(found) or f"facts identical on {len(facts(a))} files")
        return 1 if found else 0
    if args.before is None or args.out is None:
        parser.error("--before and --out, or --compare")
    projects = [p for p in load(HERE / "projects.toml") if p.name in args.only]
    rows, same = [], True
    for project in projects:
        root = next((args.workdir / "projects").glob(f"{project.name}-{project.version}"))
        for n in range(args.rounds):
            for side in ("before", "after"):
                out = args.out / project.name / f"{side}-{n}.json"
                out.parent.mkdir(parents=True, exist_ok=True)
                saved = os.environ.get("PYTHONPATH")
                if side == "before":
                    os.environ["PYTHONPATH"] = str(args.before)
                try:
                    load_at = measure.load_now()
                    row = measure.verify(project, root, out)
                finally:
                    if saved is None:
                        os.environ.pop("PYTHONPATH", None)
                    else:
                        os.environ["PYTHONPATH"] = saved
                rows.append(
                    {"project": project.name, "side": side, "round": n, "load": load_at, **row}
                )
                print(
                    f"{project.name} {side} {n}: wall {row['wall_s']} s, CPU {row['cpu_s']} s, "
                    f"load {load_at}",
                    flush=True,
                )
        reports = sorted((args.out / project.name).glob("*.json"))
        first = json.loads(reports[0].read_text())
        for other in reports[1:]:
            found = differences(first, json.loads(other.read_text()))
            same &= not found
            print(
                f"{project.name}: {reports[0].name} vs {other.name}: "
                + ("; ".join(found) or f"facts identical on {len(facts(first))} files")
            )
    (args.out / "results.json").write_text(json.dumps(rows, indent=1))
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
