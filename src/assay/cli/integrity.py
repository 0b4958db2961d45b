"""`assay integrity`: the test-diff integrity check alone (no test runs): what a change did to
the tests since a revision, or (`--staged`, the pre-commit hook) what the index does to them."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from assay import api
from assay.cli.app import OutputFiles, app, call, plan_outputs, write
from assay.report import INTEGRITY_FORMATS


@app.command("integrity")
def integrity(
    since: Annotated[
        str,
        typer.Option(
            metavar="REV|auto", help="compare with REV (auto: merge base with the default branch)"
        ),
    ] = "HEAD",
    staged: Annotated[
        bool, typer.Option("--staged", help="the index, not the working tree (pre-commit)")
    ] = False,
    root: Annotated[
        Path | None, typer.Option(metavar="DIR", help="project root (default: found from .)")
    ] = None,
    format: Annotated[
        list[str] | None,
        typer.Option(
            "--format",
            "-f",
            metavar="FORMAT[=FILE]",
            help="text, json, sarif; repeatable, each to its own FILE (else stdout)",
        ),
    ] = None,
    output: OutputFiles = None,
) -> None:
    """Flag deleted, skipped and loosened tests and edited expectations in a change (AI001…);
    exit 1 on any `reject` finding."""
    plan = plan_outputs(format or ["text"], output or [], INTEGRITY_FORMATS)
    report = call(lambda: api.integrity(root, since=since, staged=staged))
    if plan.terminal:
        write(INTEGRITY_FORMATS["text"](report), None)
    for name, file in plan.files:
        write(INTEGRITY_FORMATS[name](report), file)
    if plan.stdout:
        write(INTEGRITY_FORMATS[plan.stdout](report), None)
    raise typer.Exit(report.exit_code)
