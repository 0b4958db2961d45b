"""`assay mutate`: mutation score of source files against tests, with survivors and reports."""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from assay import api
from assay.cli.app import app, call, plan_outputs, shown, usage_error, write
from assay.report import MUTATE_FORMATS
from assay.report.mutation_text import print_report


def _progress(console: Console, quiet: bool):
    """A live bar on a terminal; elsewhere a line for each step and every 10% of mutants, unless quiet."""
    progress = Progress(TextColumn("[bold]mutating"), BarColumn(), MofNCompleteColumn(),
                        TextColumn("killed {task.fields[killed]} survived {task.fields[survived]}"),
                        TextColumn("{task.fields[rate]}"), TimeElapsedColumn(), console=console, transient=True)
    task = progress.add_task("mutating", total=None, killed=0, survived=0, rate="")
    tally = {"killed": 0, "survived": 0, "timeout": 0, "done": 0, "total": 0, "step": 0}
    started = time.monotonic()

    def say(text: str) -> None:
        if not console.is_terminal and not quiet:
            print(f"mutate: {text}", file=sys.stderr, flush=True)

    def on_event(ev: dict[str, Any]) -> None:
        kind = ev.get("event")
        if kind == "plan":
            tally["total"], tally["done"] = ev["total"], ev["cached"]
            progress.update(task, total=ev["total"], completed=ev["cached"])
            say(f"{ev['total']} mutants, {ev['cached']} from the cache; collecting the tests")
        elif kind == "collected":
            say(f"collected {ev.get('tests', '?')} tests; running the baseline")
        elif kind == "baseline":
            say(f"baseline done in {ev.get('duration_s', 0):.1f} s; running mutants")
        elif kind == "mutant":
            tally["done"] += 1
            status = ev["status"]
            if status in ("Killed", "Timeout"):
                tally["killed"] += 1
                tally["timeout"] += status == "Timeout"
            elif status in ("Survived", "NoCoverage"):
                tally["survived"] += 1
            elapsed = time.monotonic() - started
            rate = f"{tally['done'] / elapsed:.0f}/s" if elapsed > 0 else ""
            progress.update(task, advance=1, killed=tally["killed"], survived=tally["survived"], rate=rate)
            total = max(tally["total"], 1)
            step = tally["done"] * 10 // total
            if step > tally["step"]:
                tally["step"] = step
                left = elapsed / max(tally["done"], 1) * (total - tally["done"])
                say(f"{tally['done']}/{total} ({step * 10}%): killed {tally['killed']} (timeouts "
                    f"{tally['timeout']}), survived {tally['survived']}; about {left:.0f} s left")

    return progress, on_event


@app.command("mutate")
def mutate(
    paths: Annotated[list[Path], typer.Argument(metavar="PATH", help="source files or directories to mutate")],
    tests: Annotated[list[Path] | None, typer.Option("--tests", "-t", metavar="PATH",
                                                     help="test files/dirs (repeatable)")] = None,
    root: Annotated[Path | None, typer.Option(metavar="DIR",
                                              help="project root (default: found from the first path)")] = None,
    format: Annotated[list[str] | None, typer.Option(
        "--format", "-f", metavar="FORMAT[=FILE]",
        help=f"{', '.join(MUTATE_FORMATS)}; repeatable, each to its own FILE (else the terminal)")] = None,
    output: Annotated[list[Path] | None, typer.Option("--output", "-o", metavar="FILE",
                                                      help="file for the one --format given without a file")] = None,
    threshold: Annotated[float | None, typer.Option(metavar="PERCENT",
                                                    help="least score (default: by code class)")] = None,
    workers: Annotated[int | None, typer.Option(metavar="N", help="mutants run at once (default: cores)")] = None,
    timeout: Annotated[float | None, typer.Option(metavar="SECONDS",
                                                  help="wall timeout of the worker's start and baseline")] = None,
    no_cache: Annotated[bool, typer.Option("--no-cache", help="ignore cached verdicts")] = False,
    config: Annotated[Path | None, typer.Option(metavar="FILE",
                                                help="config file (default: assay.toml / pyproject.toml)")] = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="no progress lines on stderr")] = False,
) -> None:
    """Mutate source files in memory and report which mutants the tests kill."""
    plan = plan_outputs(format or ["text"], output or [], MUTATE_FORMATS)
    if threshold is not None and not 0 <= threshold <= 100:
        usage_error("--threshold is a percentage between 0 and 100")
    if workers is not None and workers < 1:
        usage_error("--workers must be at least 1")
    console = Console(stderr=True)
    progress, on_event = _progress(console, quiet)

    def run():
        with shown(progress):
            return api.mutate(paths, tests or [], root=root, threshold=threshold, use_cache=not no_cache,
                              progress=on_event, config=config,
                              overrides={"mutation.workers": workers, "sandbox.timeout_s": timeout})

    report = call(run)
    if plan.terminal:
        print_report(Console(), report)
    for fmt, file in plan.files:
        write(MUTATE_FORMATS[fmt](report), file)
        console.print(f"[dim]{fmt} report written to {file}[/dim]")
    if plan.stdout:
        write(MUTATE_FORMATS[plan.stdout](report), None)
    raise typer.Exit(report.exit_code)
