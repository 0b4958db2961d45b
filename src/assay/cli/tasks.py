"""`assay tasks`: a sprint's tasks from the tracker, classified (core, frontend, adapters,
technical, incident), with their commits and the functions those changed."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from assay import api
from assay.cli.app import ConfigFile, OutputFiles, app, call, plan_outputs, write
from assay.sprint.render import TASKS_FORMATS

TRACKER_HELP = "file:PATH (JSON/CSV export), github:OWNER/REPO, gitlab:GROUP/PROJECT, jira:URL"


@app.command("tasks")
def tasks(
    tracker: Annotated[str, typer.Option(metavar="SPEC", help=TRACKER_HELP)],
    sprint: Annotated[str, typer.Option(metavar="NAME", help="the sprint (milestone, iteration)")],
    range: Annotated[
        str, typer.Option("--range", metavar="REVS", help="git revisions the commits are in")
    ] = "HEAD",
    writer: Annotated[
        str | None,
        typer.Option(metavar="PROVIDER:MODEL", help="a model for what no rule classifies"),
    ] = None,
    no_coverage: Annotated[
        bool, typer.Option("--no-coverage", help="rank targets without running the tests")
    ] = False,
    format: Annotated[
        list[str] | None,
        typer.Option("--format", "-f", metavar="FORMAT[=FILE]", help="text, json; repeatable"),
    ] = None,
    output: OutputFiles = None,
    root: Annotated[Path | None, typer.Option(help="project root (default: from here)")] = None,
    config: ConfigFile = None,
) -> None:
    """List a sprint's tasks with a class each, decided by rules (files, labels, type, title)
    and by a model only where rules cannot (with --writer)."""
    plan = plan_outputs(format or ["text"], output or [], TASKS_FORMATS)
    report = call(
        lambda: api.tasks(
            tracker,
            sprint,
            root=root,
            rev_range=range,
            writer=writer,
            coverage=not no_coverage,
            config=config,
        )
    )
    if plan.terminal:
        write(TASKS_FORMATS["text"](report), None)
    for name, file in plan.files:
        write(TASKS_FORMATS[name](report), file)
    if plan.stdout:
        write(TASKS_FORMATS[plan.stdout](report), None)
    raise typer.Exit(0)
