"""`assay verify`: test files through the gates, a verdict per file and per test."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from assay import api
from assay.cli.app import app, call, shown, terminal, usage_error
from assay.model import Report
from assay.report import VERIFY_FORMATS
from assay.report.text import print_report


def progress_display() -> tuple[Progress, api.EventSink]:
    """A transient progress bar on stderr and the event sink that drives it."""
    progress = Progress(TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
                        TextColumn("{task.fields[current]}"), TimeElapsedColumn(),
                        console=Console(stderr=True), transient=True)
    task = progress.add_task("verifying", total=None, current="")

    def on_event(event: str, file: str, detail: str) -> None:
        if event == "start":
            progress.update(task, total=int(file))
        elif event == "gate":
            progress.update(task, current=f"{file}: {detail}")
        elif event == "done":
            progress.advance(task)

    return progress, on_event


def write_outputs(report: Report, formats: list[str], outputs: list[Path]) -> None:
    """The i-th format goes to the i-th output; formats without an output go to the terminal."""
    console = terminal()
    if not any(f != "text" or i < len(outputs) for i, f in enumerate(formats)) or len(outputs) >= len(formats):
        print_report(console, report)
    for i, fmt in enumerate(formats):
        if i < len(outputs):
            outputs[i].write_text(VERIFY_FORMATS[fmt](report), encoding="utf-8")
            console.print(f"[dim]{fmt} report written to {outputs[i]}[/dim]")
        elif fmt != "text":
            sys.stdout.write(VERIFY_FORMATS[fmt](report))


@app.command()
def verify(
    paths: Annotated[list[Path], typer.Argument(help="test files or directories")],
    root: Annotated[Path | None, typer.Option(help="project root (default: found from the first path)")] = None,
    target: Annotated[list[Path] | None, typer.Option(help="source file under test (repeatable)")] = None,
    format: Annotated[list[str] | None, typer.Option("--format", "-f",
                                                     help="text, json, junit, markdown (repeatable)")] = None,
    output: Annotated[list[Path] | None, typer.Option("--output", "-o",
                                                      help="file for the matching --format")] = None,
    no_cache: Annotated[bool, typer.Option("--no-cache", help="ignore cached verdicts")] = False,
    config: Annotated[Path | None, typer.Option(help="assay.toml or pyproject.toml to use")] = None,
    jobs: Annotated[int | None, typer.Option(help="files verified at once")] = None,
    timeout: Annotated[float | None, typer.Option(help="wall timeout of one test run, seconds")] = None,
    language: Annotated[list[str] | None, typer.Option(
        "--language", "-l", help="only test files of this language (repeatable): python, java, go, rust, "
                                 "typescript, javascript, csharp")] = None,
    require_toolchain: Annotated[bool, typer.Option(
        "--require-toolchain", help="a missing compiler or runner is an error (exit 2), not 'unvalidated'")] = False,
) -> None:
    """Put test files through the gates and give a verdict per file and per test."""
    formats = format or ["text"]
    outputs = output or []
    bad = [f for f in formats if f not in VERIFY_FORMATS]
    if bad:
        usage_error(f"unknown format '{bad[0]}' (choose from {', '.join(VERIFY_FORMATS)})")
    if len(outputs) > len(formats):
        usage_error("more --output than --format options")
    progress, on_event = progress_display()

    def run() -> Report:
        with shown(progress):
            report = api.verify(paths, root=root, targets=target or None, use_cache=not no_cache, config=config,
                                on_event=on_event, languages=language,
                                overrides={"jobs": jobs, "sandbox.timeout_s": timeout,
                                           "require_toolchain": require_toolchain or None})
        write_outputs(report, formats, outputs)
        return report

    raise typer.Exit(call(run).exit_code)
