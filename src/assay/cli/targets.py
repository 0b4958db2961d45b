"""`assay targets`: what to write tests for next - uncovered lines and branches per
function, ranked."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from assay import api
from assay.cli.app import (
    ConfigFile,
    OutputFiles,
    RootDir,
    app,
    call,
    plan_outputs,
    usage_error,
    write,
)
from assay.report import TARGETS_FORMATS


@app.command("targets")
def targets(
    paths: Annotated[
        list[Path] | None, typer.Argument(help="source files or directories (default: all)")
    ] = None,
    since: Annotated[
        str | None, typer.Option(help="functions changed since this git revision")
    ] = None,
    limit: Annotated[int | None, typer.Option(help="show at most this many")] = None,
    format: Annotated[
        list[str] | None,
        typer.Option(
            "--format",
            "-f",
            metavar="FORMAT[=FILE]",
            help=f"{', '.join(TARGETS_FORMATS)}; repeatable, each to its own FILE (else stdout)",
        ),
    ] = None,
    output: OutputFiles = None,
    no_cache: Annotated[bool, typer.Option("--no-cache", help="measure coverage again")] = False,
    root: RootDir = None,
    config: ConfigFile = None,
) -> None:
    """Rank functions by what the project's tests leave unrun (coverage.py, branch mode, in
    the sandbox)."""
    plan = plan_outputs(format or ["text"], output or [], TARGETS_FORMATS)
    if limit is not None and limit < 1:
        usage_error("--limit must be at least 1")
    report = call(
        lambda: api.targets(
            paths or [], root=root, since=since, use_cache=not no_cache, config=config, limit=limit
        )
    )
    if plan.terminal:
        write(TARGETS_FORMATS["text"](report), None)
    for name, file in plan.files:
        write(TARGETS_FORMATS[name](report), file)
    if plan.stdout:
        write(TARGETS_FORMATS[plan.stdout](report), None)
    raise typer.Exit(0)
