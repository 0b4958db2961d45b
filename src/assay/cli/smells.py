"""`assay smells`: lint test files for smells and low value (gate 5 on its own, without running anything)."""

from __future__ import annotations

from pathlib import Path

import typer

from assay import api
from assay.cli.app import app, call, usage_error, write
from assay.report import SMELLS_FORMATS


@app.command("smells")
def smells(
    paths: list[Path] = typer.Argument(..., help="test files or directories"),
    fmt: str = typer.Option("text", "--format", "-f", help="text | json | sarif"),
    output: Path | None = typer.Option(None, "--output", "-o", help="write the report here instead of stdout"),
    root: Path | None = typer.Option(None, "--root", help="project root (default: found from the first path)"),
    config: Path | None = typer.Option(None, "--config", help="assay.toml or pyproject.toml to read"),
) -> None:
    """Report test smells and low-value tests: `path:line:col RULE-ID message`. Exit 1 on any reject."""
    if fmt not in SMELLS_FORMATS:
        usage_error(f"unknown format '{fmt}' (choose from {', '.join(SMELLS_FORMATS)})")
    report = call(lambda: api.lint(paths, root=root, config=config))
    write(SMELLS_FORMATS[fmt](report), output)
    raise typer.Exit(report.exit_code)
