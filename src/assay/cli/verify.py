"""`assay verify`: test files through the gates, a verdict per file and per test."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from assay import api
from assay.cli.app import (
    ConfigFile,
    OutputFiles,
    Outputs,
    Quiet,
    RootDir,
    Ticker,
    app,
    call,
    interrupted_code,
    plan_outputs,
    shown,
    terminal,
    usage_error,
    write,
)
from assay.events import FileDone, GateProgress, GateStarted, Preparing, ProgressEvent, Started
from assay.model import Report
from assay.report import VERIFY_FORMATS
from assay.report.text import print_report


def progress_display(quiet: bool = False) -> tuple[Progress, api.EventSink, Ticker]:
    """A transient progress bar on a terminal; elsewhere (CI logs) one line per finished file on
    stderr and, every 5 s, where the files in flight are (gate, mutants done), unless quiet."""
    console = Console(stderr=True)
    progress = Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.fields[current]}"),
        TimeElapsedColumn(),
        console=console,
        transient=True,
    )
    task = progress.add_task("verifying", total=None, current="")
    count = {"done": 0, "total": 0}
    logged = not console.is_terminal and not quiet
    ticker = Ticker(lambda line: print(line, file=sys.stderr, flush=True) if logged else None)

    def at(file: str, where: str) -> None:
        progress.update(task, current=f"{file}: {where}")
        ticker.set(file, f"[{count['done']}/{count['total']}] {file}: {where}")

    def on_event(event: ProgressEvent) -> None:
        if isinstance(event, Started):
            count["total"] = event.total
            progress.update(task, total=event.total)
        elif isinstance(event, Preparing):  # no file in flight yet: the step's own line
            if event.what:
                at(f"{event.language} dependencies", event.what)
            else:
                ticker.clear(f"{event.language} dependencies")
                progress.update(task, current="")
        elif isinstance(event, GateStarted):
            at(event.file, event.gate)
        elif isinstance(event, GateProgress):
            at(event.file, f"{event.gate}, {event.done}/{event.total} {event.unit}")
        elif isinstance(event, FileDone):
            count["done"] += 1
            progress.advance(task)
            ticker.clear(event.file)
            if logged:
                print(
                    f"[{count['done']}/{count['total']}] {event.file}: {event.describe()}",
                    file=sys.stderr,
                    flush=True,
                )
                ticker.said()

    return progress, on_event, ticker


def write_outputs(report: Report, plan: Outputs, verbose: bool = False) -> None:
    console = terminal()
    if plan.terminal:
        print_report(console, report, verbose)
    for fmt, file in plan.files:
        write(VERIFY_FORMATS[fmt](report), file)
        # stderr: stdout may carry a data format
        Console(stderr=True).print(f"[dim]{fmt} report written to {file}[/dim]")
    if plan.stdout:
        sys.stdout.write(VERIFY_FORMATS[plan.stdout](report))


@app.command()
def verify(
    paths: Annotated[
        list[Path] | None,
        typer.Argument(
            metavar="PATH", help="test files or directories (with --since: default the project)"
        ),
    ] = None,
    root: RootDir = None,
    target: Annotated[
        list[Path] | None, typer.Option(metavar="FILE", help="source file under test (repeatable)")
    ] = None,
    format: Annotated[
        list[str] | None,
        typer.Option(
            "--format",
            "-f",
            metavar="FORMAT[=FILE]",
            help="text, json, junit, markdown, sarif; repeatable, "
            "each to its own FILE (else the terminal)",
        ),
    ] = None,
    output: OutputFiles = None,
    junit_xml: Annotated[
        Path | None,
        typer.Option(
            "--junit-xml", metavar="FILE", help="also write JUnit XML here (like pytest's option)"
        ),
    ] = None,
    no_cache: Annotated[bool, typer.Option("--no-cache", help="ignore cached verdicts")] = False,
    config: ConfigFile = None,
    jobs: Annotated[int | None, typer.Option(metavar="N", help="files verified at once")] = None,
    timeout: Annotated[
        float | None, typer.Option(metavar="SECONDS", help="wall timeout of one test run")
    ] = None,
    quiet: Quiet = False,
    verbose: Annotated[
        bool,
        typer.Option("--verbose", "-v", help="every test's verdict and reason, after the table"),
    ] = False,
    profile: Annotated[
        str | None,
        typer.Option(
            metavar="auto|generated|suite",
            help="smells profile: generated is strict (written tests), suite is for a "
            "project's own tests; auto picks by the assay_generated marker",
        ),
    ] = None,
    review: Annotated[
        str | None, typer.Option(metavar="PROVIDER:MODEL", help="gate 6: review by a model")
    ] = None,
    language: Annotated[
        list[str] | None,
        typer.Option(
            "--language",
            "-l",
            metavar="NAME",
            help="only test files of this language (repeatable): python, java, go, "
            "rust, typescript, javascript, csharp",
        ),
    ] = None,
    require_toolchain: Annotated[
        bool,
        typer.Option(
            "--require-toolchain",
            help="a missing compiler or runner is an error (exit 2), not 'unvalidated'",
        ),
    ] = False,
    offline: Annotated[
        bool,
        typer.Option(
            "--offline",
            help="no network at all: skip the prepare step that fetches dependencies",
        ),
    ] = False,
    scheduler: Annotated[
        str | None,
        typer.Option(
            metavar="tcp://HOST:PORT", help="verify the files on this Dask cluster's workers"
        ),
    ] = None,
    since: Annotated[
        str | None,
        typer.Option(
            metavar="REV|auto",
            help="diff scope: only test files the change since REV touched or whose tests import "
            "changed code, mutants on changed lines, and the integrity check of the test diff "
            "(auto: the merge base with the default branch)",
        ),
    ] = None,
) -> None:
    """Put test files through the gates and give a verdict per file and per test."""
    if not paths and since is None:
        usage_error("Missing argument 'PATH...' (test files or directories, or --since REV)")
    formats = (format or ["text"]) + ([f"junit={junit_xml}"] if junit_xml else [])
    plan = plan_outputs(formats, output or [], VERIFY_FORMATS)
    progress, on_event, ticker = progress_display(quiet)

    def run() -> Report:
        with shown(progress, ticker):
            report = api.verify(
                paths or [],
                root=root,
                targets=target or None,
                use_cache=not no_cache,
                config=config,
                on_event=on_event,
                languages=language,
                review=review,
                overrides={
                    "jobs": jobs,
                    "sandbox.timeout_s": timeout,
                    "smells.profile": profile,
                    "require_toolchain": require_toolchain or None,
                    "offline": offline or None,
                    "scheduler": scheduler,
                },
                since=since,
            )
        write_outputs(report, plan, verbose)
        return report

    report = call(run)
    # the partial report is printed; main() says so and exits with the signal's code
    if report.interrupted:
        raise typer.Exit(interrupted_code())
    # a change that puts no test file in scope and weakens none: nothing to judge, nothing wrong
    raise typer.Exit(0 if since is not None and not report.files else report.exit_code)
