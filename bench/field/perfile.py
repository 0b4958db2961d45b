"""The field bench file by file: issue 25's goal is "verify <= 10x plain pytest of the same file
(median), <= 30x (worst)", so each test file the bench verifies is judged alone (`assay verify
FILE --no-cache`, a fresh process) and run alone by plain pytest (the project's interpreter and
config), wall and CPU of each whole process tree (cpuacct where a group can be made).

Run by hand (not a test), from the repository root, after `run.py` has prepared the projects:
    .venv/bin/python bench/field/perfile.py --out /tmp/x [--only NAME ...] [--compare DIR]
    .venv/bin/python bench/field/perfile.py --out /tmp/x --table   # the tables again

Results go to <out>/perfile.json (merged by project). `--compare DIR` reads the directory run's
reports (DIR/reports/NAME/verify.json, as `run.py --out DIR` writes them) and lists every file
whose verdict alone differs from its verdict in the directory run, with both reasons.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import measure  # noqa: E402
from prepare import INTERPRETER, Project, load, prepare  # noqa: E402

from assay.project import discover  # noqa: E402


def files_of(project: Project, root: Path) -> list[str]:
    """The test files `assay verify <tests>` judges, as assay finds them (relative to the root)."""
    found = discover([root / project.tests], root.resolve())
    return [f.relative_to(root.resolve()).as_posix() for f in found]


def _verify(root: Path, rel: str, out: Path, src: Path | None) -> dict:
    """One `assay verify FILE` in a fresh process (`src`: another checkout's src/ first on
    PYTHONPATH, for a before/after in the same minutes)."""
    out.parent.mkdir(parents=True, exist_ok=True)
    cmd = [sys.executable, "-m", "assay", "verify", rel, "--no-cache", "-q", "-f", f"json={out}"]
    saved = os.environ.get("PYTHONPATH")
    if src is not None:
        os.environ["PYTHONPATH"] = str(src)
    try:
        wall, code, output = measure._timed(cmd, root)
    finally:
        if src is not None:
            os.environ.pop("PYTHONPATH")
            if saved is not None:
                os.environ["PYTHONPATH"] = saved
    row: dict = {"wall_s": wall, "cpu_s": measure.CPU_S["last"], "exit": code}
    if code in (0, 1) and out.exists():
        doc = json.loads(out.read_text())
        entry = doc["files"][0] if doc["files"] else None
        if entry:
            row["verdict"] = entry["verdict"]
            row["at"] = entry["rejected_at"]
            row["why"] = measure._why(entry)
            row["tests"] = dict(Counter(t["verdict"] for t in entry["tests"]))
    else:
        row["error"] = output.strip()[-300:]
    return row


def one_file(project: Project, root: Path, rel: str, out: Path, before: Path | None = None) -> dict:
    """`assay verify FILE` and plain `pytest FILE`, each in a fresh process, interleaved (with
    `before`: that checkout's verify first, then this one's)."""
    row: dict = {"file": rel, "load": measure.load_now()}
    if before is not None:
        old = _verify(root, rel, out.with_suffix(".before.json"), before)
        row["before"] = {k: old.pop(k) for k in ("wall_s", "cpu_s", "exit")}
        row["before"].update(old)
    done = _verify(root, rel, out, None)
    row["verify"] = {k: done.pop(k) for k in ("wall_s", "cpu_s", "exit")}
    row.update(done)
    py = [str(root / INTERPRETER), "-m", "pytest", "-q", "-p", "no:cacheprovider", rel]
    wall, code, output = measure._timed([*py, *project.pytest_args], root)
    tail = [line for line in output.strip().splitlines() if line.strip()]
    row["pytest"] = {
        "wall_s": wall,
        "cpu_s": measure.CPU_S["last"],
        "exit": code,
        "summary": tail[-1].strip("= ") if tail else "",
    }
    return row


def ratios(rows: list[dict], kind: str) -> list[float]:
    return [
        r["verify"][f"{kind}_s"] / r["pytest"][f"{kind}_s"]
        for r in rows
        if "verdict" in r and r["pytest"][f"{kind}_s"]
    ]


def _spread(values: list[float]) -> str:
    if not values:
        return "-"
    return f"median {statistics.median(values):.1f}x, worst {max(values):.1f}x"


def differences(name: str, rows: list[dict], compare: Path) -> list[str]:
    """Files whose verdict alone differs from the directory run's, with both reasons."""
    report = compare / "reports" / name / "verify.json"
    if not report.exists():
        return [f"{name}: no directory report at {report}"]
    doc = json.loads(report.read_text())
    seen = {e["path"]: e for e in doc["files"]}
    found = []
    for row in rows:
        entry = next((e for p, e in seen.items() if p.endswith(row["file"])), None)
        if entry is None:
            found.append(f"{name}/{row['file']}: not in the directory run")
            continue
        alone = (row.get("verdict"), row.get("at"))
        together = (entry["verdict"], entry["rejected_at"])
        tests = dict(Counter(t["verdict"] for t in entry["tests"]))
        if alone != together or tests != row.get("tests"):
            found.append(
                f"{name}/{row['file']}: alone {alone} {row.get('tests')} ({row.get('why')}); "
                f"in the directory {together} {tests} ({measure._why(entry)})"
            )
    return found


def before_after(rows: list[dict]) -> str:
    """The files run by both checkouts: CPU before and after, the ratios, verdicts that differ."""
    before = [{**r, "verify": r["before"]} for r in rows if r["before"].get("cpu_s")]
    moved = [
        f"{r['file']}: {r['before'].get('verdict')} {r['before'].get('tests')} -> "
        f"{r.get('verdict')} {r.get('tests')}"
        for r in rows
        if (r["before"].get("verdict"), r["before"].get("tests")) != (r.get("verdict"), r["tests"])
    ]
    return (
        f"- before/after, {len(rows)} files: verify CPU "
        f"{sum(r['before']['cpu_s'] for r in rows):.1f} -> "
        f"{sum(r['verify']['cpu_s'] for r in rows):.1f} s; CPU ratio before "
        f"{_spread(ratios(before, 'cpu'))}, after {_spread(ratios(rows, 'cpu'))}; verdicts "
        + ("; ".join(moved) if moved else "the same")
    )


def render(results: dict, order: list[str], compare: Path | None) -> str:
    lines = [
        "| project | file | verdict | tests | verify wall s | pytest wall s | wall x "
        "| verify CPU s | pytest CPU s | CPU x | load |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    every: list[dict] = []
    summary = []
    notes: list[str] = []
    for name in order:
        rows = results.get(name, [])
        every += rows
        for r in rows:
            v, p = r["verify"], r["pytest"]
            counts = "/".join(f"{k[0]}{n}" for k, n in sorted((r.get("tests") or {}).items()))
            lines.append(
                f"| {name} | {r['file']} | {r.get('verdict', 'error')} | {counts} "
                f"| {v['wall_s']:.1f} | {p['wall_s']:.2f} "
                f"| {v['wall_s'] / p['wall_s']:.1f}x | {v['cpu_s']:.1f} | {p['cpu_s']:.2f} "
                f"| {v['cpu_s'] / p['cpu_s']:.1f}x | {r['load']} |"
            )
        if rows:
            summary.append(
                f"- {name} ({len(rows)} files): wall {_spread(ratios(rows, 'wall'))}; "
                f"CPU {_spread(ratios(rows, 'cpu'))}"
            )
        if compare is not None and rows:
            notes += differences(name, rows, compare)
    summary.append(
        f"- **all {len(every)} files: wall {_spread(ratios(every, 'wall'))}; "
        f"CPU {_spread(ratios(every, 'cpu'))}**"
    )
    paired = [r for r in every if "before" in r and "verdict" in r]
    if paired:
        summary.append(before_after(paired))
    text = "\n".join(lines) + "\n\n" + "\n".join(summary)
    if compare is not None:
        text += "\n\nVerdict alone vs in the directory run:\n" + (
            "\n".join(f"- {n}" for n in notes) or "- the same for every file"
        )
    return text


def directory(chosen: list[Project], args: argparse.Namespace) -> None:
    """The per-project figures run.py takes (verify and pytest only), in <out>/directory.json."""
    saved = args.out / "directory.json"
    done = json.loads(saved.read_text()) if saved.exists() else {}
    for project in chosen:
        root, _ = prepare(project, args.workdir)
        report = args.out / "reports" / project.name / "verify.json"
        report.parent.mkdir(parents=True, exist_ok=True)
        row = {"load": measure.load_now(), "verify": measure.verify(project, root, report)}
        row["pytest"] = measure.pytest(project, root)
        done[project.name] = row
        saved.write_text(json.dumps(done, indent=1))
        v, p = row["verify"], row["pytest"]
        print(
            f"{project.name}: verify {v['wall_s']} s / {v['cpu_s']} CPU s, pytest {p['wall_s']} s"
            f" / {p['cpu_s']} CPU s: {v['wall_s'] / p['wall_s']:.1f}x wall, "
            f"{v['cpu_s'] / p['cpu_s']:.1f}x CPU, load {row['load']}",
            flush=True,
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", action="append", metavar="NAME", help="only this project")
    parser.add_argument("--workdir", type=Path, default=Path("/tmp/assay-field"))
    parser.add_argument("--projects", type=Path, default=HERE / "projects.toml")
    parser.add_argument("--out", type=Path, required=True, help="perfile.json and reports here")
    parser.add_argument("--compare", type=Path, help="a run.py --out DIR to compare verdicts with")
    parser.add_argument("--table", action="store_true", help="print the last results, run nothing")
    parser.add_argument(
        "--before", type=Path, help="another checkout's src/: its verify of each file runs too"
    )
    parser.add_argument(
        "--directory",
        action="store_true",
        help="instead: `assay verify <tests>` and `pytest <tests>` once per project, as run.py "
        "does (its reports are what --compare reads: pass the same --out)",
    )
    args = parser.parse_args()
    projects = load(args.projects)
    chosen = [p for p in projects if not args.only or p.name in args.only]
    saved = args.out / "perfile.json"
    results = json.loads(saved.read_text()) if saved.exists() else {}
    if args.directory:
        directory(chosen, args)
        return
    if not args.table:
        args.out.mkdir(parents=True, exist_ok=True)
        for project in chosen:
            root, _ = prepare(project, args.workdir)
            rows = []
            for rel in files_of(project, root):
                out = args.out / "reports" / project.name / (rel.replace("/", "__") + ".json")
                rows.append(one_file(project, root, rel, out, args.before))
                r = rows[-1]
                print(
                    f"{project.name}/{rel}: {r.get('verdict', 'error')} "
                    f"verify {r['verify']['wall_s']} s / {r['verify']['cpu_s']} CPU s, "
                    f"pytest {r['pytest']['wall_s']} s / {r['pytest']['cpu_s']} CPU s, "
                    f"load {r['load']}"
                    + (
                        f"; before {r['before']['cpu_s']} CPU s, {r['before'].get('verdict')}"
                        if "before" in r
                        else ""
                    ),
                    flush=True,
                )
                results[project.name] = rows
                saved.write_text(json.dumps(results, indent=1))
    print(render(results, [p.name for p in projects], args.compare))


if __name__ == "__main__":
    main()
