"""`assay mutate`: mutation score of source files against tests, with survivors and reports."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from assay.cli import app, usage_error
from assay.config import ConfigError, load_settings
from assay.project import InputError, Project, find_root, is_test_file

FORMATS = ("text", "json", "mutation-testing-elements", "html")


def _targets(project: Project, paths: list[Path]) -> list[str]:
    found: list[str] = []
    for p in paths:
        if not p.exists():
            raise InputError(f"no such file or directory: {p}")
        rel = project.rel(p)
        if p.is_dir():
            found += sorted(path for path in project.modules.values()
                            if rel == "." or path == rel or path.startswith(rel.rstrip("/") + "/"))
        elif p.suffix != ".py":
            raise InputError(f"{p} is not a Python source file (.py)")
        elif is_test_file(p.name):
            raise InputError(f"{p} is a test file; pass it with --tests")
        else:
            found.append(rel)
    found = list(dict.fromkeys(found))
    if not found:
        raise InputError("no Python source files to mutate under the given paths")
    return found


def _tests(project: Project, paths: list[Path]) -> list[str]:
    if not paths:
        raise InputError("no tests given: pass --tests tests/test_x.py (or a directory)")
    rels = []
    for p in paths:
        file = Path(str(p).split("::")[0])
        if not file.exists():
            raise InputError(f"no such test file or directory: {file}")
        rels.append(project.rel(file) + str(p)[len(str(file)):])
    return rels


def _text(run, threshold: float, code_class: str, ok: bool, console: Console) -> None:
    from assay.mutation.summary import details

    d = details(run, threshold, code_class, max_survivors=20)
    score = "n/a" if d["score"] is None else f"{d['score']:.1f}%"
    colour = "green" if ok else "red"
    console.print(f"[bold {colour}]mutation score {score}[/] (threshold {threshold:g}%, code class {code_class})")
    console.print(f"killed {d['killed']}, timeout {d['timeout']}, survived {d['survived']}, "
                  f"no coverage {d['no_coverage']}, ignored {d['ignored']}, runtime error {d['runtime_error']}, "
                  f"compile error {d['compile_error']} — {len(run.results)} mutants in {run.duration_s:.1f}s")
    for i, s in enumerate(d["survivors"], 1):
        console.print(f"{i}. {s['file']}:{s['line']} [dim]({s['operator']})[/dim]", highlight=False)
        console.print(f"   `{s['original']}` → `{s['mutated']}`", highlight=False, markup=False, soft_wrap=True)
    more = d["survived"] + d["no_coverage"] - len(d["survivors"])
    if more > 0:
        console.print(f"… and {more} more (--format json or html lists them all)")
    for m, r in [(m, r) for m, r in run.scored if r.status.value in ("RuntimeError", "Timeout")][:10]:
        why = (r.reason.splitlines() or ["?"])[-1]
        console.print(f"{r.status.value} {m.file}:{m.line} `{m.before}` → `{m.after}`: {why}",
                      highlight=False, markup=False, soft_wrap=True)


def _render(fmt: str, run, threshold: float, code_class: str, ok: bool) -> str:
    if fmt == "json":
        from assay.mutation.summary import details

        data = {"schema": "assay.mutate/1", "passed": ok, **details(run, threshold, code_class, 10_000),
                "duration_s": round(run.duration_s, 3), "baseline": run.baseline, "slowest": run.slowest,
                "longest_mutant": run.longest_mutant, "deselected": run.deselected,
                "mutants": [{**m.to_json(), **run.results[m.id].to_json()} for m, _ in run.scored]}
        return json.dumps(data, indent=2) + "\n"
    if fmt == "mutation-testing-elements":
        from assay.report.mutation_elements import render

        return render(run)
    from assay.report.mutation_html import render as render_html

    return render_html(run)


@app.command("mutate")
def mutate(
    paths: Annotated[list[Path], typer.Argument(help="source files or directories to mutate")],
    tests: Annotated[list[Path] | None, typer.Option("--tests", "-t", help="test files/dirs (repeatable)")] = None,
    root: Annotated[Path | None, typer.Option(help="project root (default: found from the first path)")] = None,
    format: Annotated[str, typer.Option("--format", "-f", help=" | ".join(FORMATS))] = "text",
    output: Annotated[Path | None, typer.Option("--output", "-o", help="write the report here")] = None,
    threshold: Annotated[float | None, typer.Option(help="least score in percent (default: by code class)")] = None,
    workers: Annotated[int | None, typer.Option(help="mutants run at once (default: cores)")] = None,
    no_cache: Annotated[bool, typer.Option("--no-cache", help="ignore cached verdicts")] = False,
    config: Annotated[Path | None, typer.Option(help="config file (default: assay.toml / pyproject.toml)")] = None,
) -> None:
    """Mutate source files in memory and report which mutants the tests kill."""
    from assay.mutation.codeclass import classify
    from assay.mutation.engine import Engine, MutationError
    from assay.mutation.summary import passes
    from assay.sandbox import Sandbox
    from assay.store import Store
    from assay.workspace import Workspace

    if format not in FORMATS:
        usage_error(f"unknown format '{format}' (one of: {', '.join(FORMATS)})")
    if threshold is not None and not 0 <= threshold <= 100:
        usage_error("--threshold is a percentage between 0 and 100")
    if workers is not None and workers < 1:
        usage_error("--workers must be at least 1")
    try:
        project_root = (root or find_root(paths[0])).resolve()
        if not project_root.is_dir():
            raise InputError(f"project root {project_root} is not a directory")
        settings = load_settings(project_root, config)
        project = Project.load(project_root)
        targets = _targets(project, paths)
        test_args = _tests(project, tests or [])
    except (InputError, ConfigError) as err:
        usage_error(str(err))
    mconf = settings.mutation
    if workers is not None:
        mconf.workers = workers
    top_packages = {name.split(".")[0] for name in project.modules}
    classes = {rel: classify(rel, (project_root / rel).read_text(encoding="utf-8", errors="replace"), mconf,
                             top_packages) for rel in targets}
    code_class = max(classes.values(), key=lambda c: mconf.thresholds[c])
    limit = threshold if threshold is not None else mconf.thresholds[code_class]

    console = Console(stderr=True)
    progress = Progress(TextColumn("[bold]mutating"), BarColumn(), MofNCompleteColumn(),
                        TextColumn("killed {task.fields[killed]} survived {task.fields[survived]}"),
                        TextColumn("{task.fields[rate]}"), TimeElapsedColumn(), console=console, transient=True)
    task = progress.add_task("mutating", total=None, killed=0, survived=0, rate="")
    tally = {"killed": 0, "survived": 0, "done": 0}

    def on_event(ev: dict) -> None:
        if ev["event"] == "plan":
            progress.update(task, total=ev["total"], completed=ev["cached"])
        elif ev["event"] == "mutant":
            tally["done"] += 1
            if ev["status"] in ("Killed", "Timeout"):
                tally["killed"] += 1
            elif ev["status"] in ("Survived", "NoCoverage"):
                tally["survived"] += 1
            elapsed = progress.tasks[0].elapsed or 0.0
            rate = f"{tally['done'] / elapsed:.0f}/s" if elapsed > 0 else ""
            progress.update(task, advance=1, killed=tally["killed"], survived=tally["survived"], rate=rate)

    python = settings.python.interpreter or sys.executable
    store = Store(project_root) if settings.cache and not no_cache else None
    try:
        with progress, Workspace(project_root) as ws:
            engine = Engine(ws, Sandbox(settings.sandbox, protect=project_root), python, project.source_roots,
                            mconf, settings.python.pytest_args, store)
            run = engine.run(targets, test_args, progress=on_event)
    except MutationError as err:
        console.print(f"assay: mutation run failed: {err}", markup=False, highlight=False)
        raise typer.Exit(1) from None
    finally:
        if store:
            store.close()
    ok = passes(run, limit)
    if format == "text" and output is None:
        _text(run, limit, code_class, ok, Console())
    else:
        text = _render(format, run, limit, code_class, ok) if format != "text" else None
        if output is not None:
            if text is None:
                with output.open("w", encoding="utf-8") as fh:
                    _text(run, limit, code_class, ok, Console(file=fh, width=120))
            else:
                output.write_text(text, encoding="utf-8")
            _text(run, limit, code_class, ok, Console())
            console.print(f"[dim]{format} report written to {output}[/dim]")
        else:
            sys.stdout.write(text or "")
    raise typer.Exit(0 if ok else 1)
