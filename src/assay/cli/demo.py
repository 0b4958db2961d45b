"""`assay demo`: the bundled example project through every gate, checked against its
expected verdicts."""

from __future__ import annotations

from typing import Annotated

import typer

from assay.cli.app import app, call, shown, terminal
from assay.cli.verify import progress_display
from assay.demo import DemoRun, example_for, run_demo
from assay.report.text import print_report


@app.command()
def demo(
    keep: Annotated[bool, typer.Option(help="keep the temp copy and print its path")] = False,
    language: Annotated[
        str, typer.Option("--language", "-l", help="python (default), java, go, rust, typescript")
    ] = "python",
) -> None:
    """Verify the bundled example project (a copy in a temp dir) and print the verdict table."""
    progress, on_event, ticker = progress_display()

    def run() -> DemoRun:
        with shown(progress, ticker):
            return run_demo(keep, on_event, example_for(language))

    result = call(run)
    console = terminal()
    print_report(console, result.report)
    for line in result.surprises:
        console.print(f"[red]unexpected:[/red] {line}")
    if not result.surprises:
        console.print(f"demo: all {len(result.report.files)} example verdicts as expected")
    if keep:
        typer.echo(f"example project kept at {result.project}")
    raise typer.Exit(1 if result.surprises else 0)
