"""`assay generate`: tests written by a model, kept only when they pass every gate (and the review)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from assay import api
from assay.cli.app import app, call, shown, terminal, usage_error, write
from assay.report import GENERATE_FORMATS
from assay.report.generate_text import print_report


def _progress() -> tuple[Progress, api.EventSink]:
    progress = Progress(TextColumn("[bold]generating"), BarColumn(), MofNCompleteColumn(),
                        TextColumn("accepted {task.fields[kept]} tests · {task.fields[tokens]} tokens"),
                        TimeElapsedColumn(), console=Console(stderr=True), transient=True)
    task = progress.add_task("generating", total=None, kept=0, tokens="0")
    kept = [0]

    def on_event(event: str, target: str, detail: str) -> None:
        if event == "start":
            progress.update(task, total=int(target))
        elif event == "done":  # detail: "<outcome> <tests kept> <tokens so far>"
            _, n, tokens = detail.split()
            kept[0] += int(n)
            progress.update(task, advance=1, kept=kept[0], tokens=f"{int(tokens):,}")

    return progress, on_event


@app.command()
def generate(
    targets: Annotated[list[str] | None, typer.Argument(
        help="module (src/pkg/mod.py), function (mod.py::func[,func]) or targets JSON file")] = None,
    since: Annotated[str | None, typer.Option(help="also the functions changed since this git revision")] = None,
    task: Annotated[str | None, typer.Option(help="what the tests are for, e.g. 'SHOP-123: ...'")] = None,
    task_file: Annotated[Path | None, typer.Option(help="read the task from this file")] = None,
    writer: Annotated[str | None, typer.Option(help="provider:model that writes (openai, anthropic, command, "
                                                     "replay)")] = None,
    reviewer: Annotated[str | None, typer.Option(help="provider:model of gate 6 (review)")] = None,
    max_attempts: Annotated[int | None, typer.Option(help="writer answers per target (default 3)")] = None,
    max_tokens: Annotated[int | None, typer.Option(help="stop after this many tokens")] = None,
    max_cost: Annotated[float | None, typer.Option(help="stop after this cost in USD (needs prices)")] = None,
    jobs: Annotated[int | None, typer.Option(help="targets in flight at once")] = None,
    output_dir: Annotated[Path | None, typer.Option(help="where accepted tests go (default: beside the "
                                                         "module's tests)")] = None,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="write nothing, report what would be")] = False,
    no_cache: Annotated[bool, typer.Option("--no-cache", help="ask the model again; re-run the gates")] = False,
    record: Annotated[Path | None, typer.Option(help="write every model answer to this JSONL file "
                                                     "(for replay:FILE)")] = None,
    format: Annotated[str, typer.Option("--format", "-f", help=" | ".join(GENERATE_FORMATS))] = "text",
    output: Annotated[Path | None, typer.Option("--output", "-o", help="write the report here")] = None,
    root: Annotated[Path | None, typer.Option(help="project root (default: found from the first target)")] = None,
    config: Annotated[Path | None, typer.Option(help="assay.toml or pyproject.toml to use")] = None,
    timeout: Annotated[float | None, typer.Option(help="wall timeout of one test run, seconds")] = None,
) -> None:
    """Write tests with a model; keep only those that pass every gate, and say why for the rest."""
    if format not in GENERATE_FORMATS:
        usage_error(f"unknown format '{format}' (one of: {', '.join(GENERATE_FORMATS)})")
    if task is not None and task_file is not None:
        usage_error("give --task or --task-file, not both")
    if task_file is not None:
        try:
            task = task_file.read_text(encoding="utf-8").strip()
        except (OSError, UnicodeDecodeError) as err:
            usage_error(f"cannot read --task-file {task_file}: {err}")
    progress, on_event = _progress()
    overrides = {"generate.writer": writer, "review.reviewer": reviewer, "generate.max_attempts": max_attempts,
                 "generate.max_tokens": max_tokens, "generate.max_cost": max_cost, "generate.jobs": jobs,
                 "generate.output_dir": str(output_dir) if output_dir else None, "sandbox.timeout_s": timeout}

    def run():
        with shown(progress):
            return api.generate(targets or [], root=root, since=since, task=task, use_cache=not no_cache,
                                dry_run=dry_run, record=record, config=config, overrides=overrides,
                                on_event=on_event)

    report = call(run)
    if format == "text" or output is not None:
        print_report(terminal(), report)
    if format != "text" or output is not None:
        write(GENERATE_FORMATS[format](report), output)
    if report.fatal:
        typer.echo(f"assay: error: {report.stopped}", err=True)
    raise typer.Exit(report.exit_code)
