"""`assay mutate`: mutation score of source files against tests, with survivors and reports."""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, TextColumn, TimeElapsedColumn
from rich.progress import Progress as Progress_

from assay import api
from assay._assay_sandbox.mutation.protocol import Event, Progress
from assay.cli.app import (
    ConfigFile,
    OutputFiles,
    Quiet,
    RootDir,
    Ticker,
    app,
    call,
    plan_outputs,
    shown,
    usage_error,
    write,
)
from assay.mutation.summary import MutateReport
from assay.report import MUTATE_FORMATS
from assay.report.mutation_text import print_report


def _progress(
    console: Console, quiet: bool
) -> tuple[Progress_, Callable[[Event], None], Callable[[], str], Ticker]:
    """The engine's `progress` events as a live bar on a terminal; elsewhere a line per phase, every
    10% of mutants, and every 5 s between them, unless quiet."""
    progress = Progress_(
        TextColumn("[bold]{task.fields[phase]}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn(
            "killed {task.fields[killed]} survived {task.fields[survived]} "
            "timeouts {task.fields[timeouts]} no coverage {task.fields[no_coverage]}"
        ),
        TextColumn("{task.fields[eta]}"),
        TimeElapsedColumn(),
        console=console,
        transient=True,
    )
    task = progress.add_task(
        "mutating",
        total=None,
        phase="starting",
        killed=0,
        survived=0,
        timeouts=0,
        no_coverage=0,
        eta="",
    )
    said = _Said()
    logged = not console.is_terminal and not quiet

    def say(text: str) -> None:
        if logged:
            print(f"mutate: {text}", file=sys.stderr, flush=True)
            ticker.said()

    ticker = Ticker(say)

    def on_event(ev: Event) -> None:
        if not isinstance(ev, Progress):
            return
        said.last = ev
        eta = "" if ev.eta_s is None else f"about {ev.eta_s:.0f} s left"
        progress.update(
            task,
            total=ev.total or None,
            completed=ev.done,
            phase=ev.phase,
            killed=ev.killed,
            survived=ev.survived,
            timeouts=ev.timeouts,
            no_coverage=ev.no_coverage,
            eta=eta,
        )
        counts = (
            f"killed {ev.killed}, timeouts {ev.timeouts}, survived {ev.survived}, "
            f"no coverage {ev.no_coverage}"
        )
        ticker.set(
            "mutate",
            f"{ev.done}/{ev.total}: {counts}" if ev.phase == "mutants" else f"{ev.phase}",
        )
        if ev.phase != said.phase and not ev.phase.startswith("baseline "):
            said.phase = ev.phase
            say(f"{ev.phase}: {ev.done}/{ev.total} mutants done")
        step = ev.done * 10 // max(ev.total, 1)
        if ev.phase == "mutants" and step > said.step:
            said.step = step
            say(f"{ev.done}/{ev.total} ({step * 10}%): {counts}" + (f"; {eta}" if eta else ""))

    def partial() -> str:
        """What finished before an interrupt (a partial run has no score: the survivors are not
        all known)."""
        ev = said.last
        if ev is None or ev.phase != "mutants":
            return f"interrupted during {ev.phase if ev else 'start-up'}: no mutant finished"
        return (
            f"interrupted: {ev.done} of {ev.total} mutants finished: killed {ev.killed}, "
            f"timeouts {ev.timeouts}, survived {ev.survived}, no coverage {ev.no_coverage} "
            "(no score for a partial run)"
        )

    return progress, on_event, partial, ticker


@dataclass
class _Said:
    """What the non-terminal lines said last."""

    phase: str = ""
    step: int = -1
    last: Progress | None = None


@app.command("mutate")
def mutate(
    paths: Annotated[
        list[Path] | None,
        typer.Argument(
            metavar="PATH",
            help="source files or directories to mutate (with --since: default the project)",
        ),
    ] = None,
    tests: Annotated[
        list[Path] | None,
        typer.Option("--tests", "-t", metavar="PATH", help="test files/dirs (repeatable)"),
    ] = None,
    root: RootDir = None,
    format: Annotated[
        list[str] | None,
        typer.Option(
            "--format",
            "-f",
            metavar="FORMAT[=FILE]",
            help=f"{', '.join(MUTATE_FORMATS)}; repeatable, "
            f"each to its own FILE (else the terminal)",
        ),
    ] = None,
    output: OutputFiles = None,
    threshold: Annotated[
        float | None, typer.Option(metavar="PERCENT", help="least score (default: by code class)")
    ] = None,
    workers: Annotated[
        int | None,
        typer.Option(metavar="N", help="mutants run at once; 0 = one per core (the default)"),
    ] = None,
    timeout: Annotated[
        float | None,
        typer.Option(metavar="SECONDS", help="wall timeout of the worker's start and baseline"),
    ] = None,
    test_timeout: Annotated[
        float | None,
        typer.Option(
            metavar="SECONDS",
            help="CPU seconds added to each test's deadline under a mutant (default 0.25)",
        ),
    ] = None,
    timeout_factor: Annotated[
        float | None,
        typer.Option(
            metavar="X",
            help="a test's CPU deadline under a mutant: X times its time without mutants "
            "(default 2)",
        ),
    ] = None,
    deselect: Annotated[
        list[str] | None,
        typer.Option(
            metavar="ID", help="leave a test out (node id, file::function or glob; repeatable)"
        ),
    ] = None,
    no_cache: Annotated[bool, typer.Option("--no-cache", help="ignore cached verdicts")] = False,
    config: ConfigFile = None,
    quiet: Quiet = False,
    scheduler: Annotated[
        str | None,
        typer.Option(
            metavar="tcp://HOST:PORT",
            help="run the mutants in batches on this Dask cluster's workers",
        ),
    ] = None,
    since: Annotated[
        str | None,
        typer.Option(
            metavar="REV|auto",
            help="only code changed since REV, its mutants on changed lines; tests default to "
            "the test files that touch or import it (auto: merge base with the default branch)",
        ),
    ] = None,
    scope: Annotated[
        str,
        typer.Option(metavar="lines|function", help="with --since: changed lines or functions"),
    ] = "lines",
    witness: Annotated[
        bool,
        typer.Option(
            "--witness",
            help="for each survivor, a call (inputs from the tests first) on which it and the "
            "original differ, and the assertion a killing test needs (runs the code)",
        ),
    ] = False,
) -> None:
    """Mutate source files in memory and report which mutants the tests kill."""
    plan = plan_outputs(format or ["text"], output or [], MUTATE_FORMATS)
    if threshold is not None and not 0 <= threshold <= 100:
        usage_error("--threshold is a percentage between 0 and 100")
    if not paths and since is None:
        usage_error("Missing argument 'PATH...' (source files or directories, or --since REV)")
    if workers is not None and workers < 0:
        usage_error("--workers must be 0 (one per core) or more")
    console = Console(stderr=True)
    progress, on_event, partial, ticker = _progress(console, quiet)

    def run() -> MutateReport:
        with shown(progress, ticker):
            return api.mutate(
                paths or [],
                tests or [],
                root=root,
                threshold=threshold,
                use_cache=not no_cache,
                progress=on_event,
                config=config,
                overrides={
                    "mutation.workers": workers,
                    "sandbox.timeout_s": timeout,
                    "mutation.timeout_s": test_timeout,
                    "mutation.timeout_factor": timeout_factor,
                    "mutation.deselect": deselect,
                    "scheduler": scheduler,
                },
                since=since,
                scope=scope,
                witness=witness,
            )

    try:
        report = call(run)
    # Ctrl-C or SIGTERM: say what finished; main() exits with the signal's code
    except KeyboardInterrupt:
        print(partial(), file=sys.stderr, flush=True)
        raise
    if plan.terminal:
        print_report(Console(), report)
    for fmt, file in plan.files:
        write(MUTATE_FORMATS[fmt](report), file)
        console.print(f"[dim]{fmt} report written to {file}[/dim]")
    if plan.stdout:
        write(MUTATE_FORMATS[plan.stdout](report), None)
    raise typer.Exit(report.exit_code)
