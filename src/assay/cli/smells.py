"""`assay smells`: lint test files for smells and low value (gate 5 on its own, without
running anything)."""

from __future__ import annotations

from pathlib import Path

import typer

from assay import api
from assay.cli.app import ConfigFile, OutputFiles, RootDir, app, call, plan_outputs, write
from assay.report import SMELLS_FORMATS


@app.command("smells")
def smells(
    paths: list[Path] = typer.Argument(..., metavar="PATH", help="test files or directories"),
    fmt: list[str] | None = typer.Option(
        None,
        "--format",
        "-f",
        metavar="FORMAT[=FILE]",
        help="text, json, sarif; repeatable, each to its own FILE (else stdout)",
    ),
    output: OutputFiles = None,
    root: RootDir = None,
    config: ConfigFile = None,
    profile: str | None = typer.Option(
        None,
        "--profile",
        metavar="auto|generated|suite",
        help="generated: strict, for written tests; suite: a project's own tests",
    ),
) -> None:
    """Report test smells and low-value tests: `path:line:col RULE-ID message`. Exit 1 on
    any reject."""
    plan = plan_outputs(fmt or ["text"], output or [], SMELLS_FORMATS)
    report = call(
        lambda: api.lint(paths, root=root, config=config, overrides={"smells.profile": profile})
    )
    if plan.terminal and (not plan.files or (fmt or ["text"]).count("text")):
        write(SMELLS_FORMATS["text"](report), None)
    for name, file in plan.files:
        write(SMELLS_FORMATS[name](report), file)
    if plan.stdout:
        write(SMELLS_FORMATS[plan.stdout](report), None)
    raise typer.Exit(report.exit_code)
