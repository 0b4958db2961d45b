"""The field bench: assay on real PyPI projects it was not written against, set up as README.md
tells a user, timed against plain pytest and mutmut on the same files.

Run by hand (not a test), from the repository root:
    .venv/bin/python bench/field/run.py [--only NAME ...] [--jobs 1] [--skip-mutmut]
    .venv/bin/python bench/field/run.py --table      # the table again from the last results

Per project: the pinned sdist is fetched and unpacked into the work dir (cached), given its own
.venv with `pip install -e` and its test dependencies, and the assay config; then `assay verify`
(cold), pytest, `assay mutate` and mutmut run one after another. One project failing is a row
with its error. Results go to <work dir>/results.json (merged by project, so `--only` updates
rows); read.toml next to this file holds the lead's reading of the files rejected at gate 4.
"""

from __future__ import annotations

import argparse
import json
import sys
import traceback
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import measure  # noqa: E402
from prepare import Project, SetupError, load, prepare  # noqa: E402
from table import load_reading, render  # noqa: E402


def bench(project: Project, workdir: Path, args: argparse.Namespace) -> dict:
    """One row; a failing step is recorded where it happened and the later steps still run
    when they can."""
    row: dict = {"project": project.name, "version": project.version, "load": measure.load_now()}
    try:
        root, config = prepare(project, workdir)
    except SetupError as exc:
        return {**row, "error": f"setup: {exc}"}
    row["config"] = config
    reports = (args.out or workdir) / "reports" / project.name
    reports.mkdir(parents=True, exist_ok=True)
    try:
        row["verify"] = measure.verify(project, root, reports / "verify.json")
    except measure.RunError as exc:
        return {**row, "error": str(exc)}
    row["pytest"] = measure.pytest(project, root)
    steps = [("mutate", lambda: measure.mutate(project, root, reports / "mutate.json"))]
    if not args.skip_mutmut:
        steps.append(("mutmut", lambda: measure.mutmut(project, root, workdir, args.mutmut_limit)))
    for name, step in steps:
        try:
            row[name] = step()
        except measure.RunError as exc:
            row[name] = {"error": str(exc)}
    return row


def guarded(project: Project, workdir: Path, args: argparse.Namespace) -> dict:
    """A bug of the bench on one project is that project's row, not the end of the run."""
    try:
        row = bench(project, workdir, args)
    except Exception as exc:  # noqa: BLE001 - the row carries it
        traceback.print_exc()
        row = {"project": project.name, "version": project.version, "error": repr(exc)}
    print(f"done: {project.spec}" + (f" ({row['error']})" if row.get("error") else ""), flush=True)
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", action="append", metavar="NAME", help="only this project")
    parser.add_argument(
        "--jobs", type=int, default=1, help="projects at once (timings are comparable only at 1)"
    )
    parser.add_argument("--skip-mutmut", action="store_true")
    parser.add_argument(
        "--mutmut-limit", type=float, default=900.0, metavar="SECONDS", help="stop mutmut after"
    )
    parser.add_argument("--workdir", type=Path, default=Path("/tmp/assay-field"))
    parser.add_argument("--projects", type=Path, default=HERE / "projects.toml")
    parser.add_argument("--table", action="store_true", help="print the last results, run nothing")
    parser.add_argument(
        "--out",
        type=Path,
        help="results.json and reports/ here (default: the work dir), so "
        "two runs sharing the set-up projects do not overwrite each other's figures",
    )
    args = parser.parse_args()
    projects = load(args.projects)
    unknown = set(args.only or []) - {p.name for p in projects}
    if unknown:
        raise SystemExit(f"not in {args.projects}: {', '.join(sorted(unknown))}")
    chosen = [p for p in projects if not args.only or p.name in args.only]
    saved = (args.out or args.workdir) / "results.json"
    rows = json.loads(saved.read_text()) if saved.exists() else {}
    if not args.table:
        args.workdir.mkdir(parents=True, exist_ok=True)
        (args.out or args.workdir).mkdir(parents=True, exist_ok=True)
        with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
            for row in pool.map(lambda p: guarded(p, args.workdir, args), chosen):
                rows[row["project"]] = row
                saved.write_text(json.dumps(rows, indent=1))
    order = [p.name for p in projects]
    shown = [
        rows[n] for n in order if n in rows and (args.table or not args.only or n in args.only)
    ]
    print(render(shown, load_reading(HERE / "read.toml")))


if __name__ == "__main__":
    main()
