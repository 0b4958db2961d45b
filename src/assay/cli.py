"""The `assay` command: a thin Typer shell over the library."""

from __future__ import annotations

import importlib
import sys
from typing import NoReturn

import typer

app = typer.Typer(add_completion=False, no_args_is_help=True, help="Decide, with evidence, whether a test is worth keeping.")

# Modules that add their own sub-commands to `app` when imported.
COMMAND_MODULES: tuple[str, ...] = ()


def usage_error(message: str) -> NoReturn:
    """Bad input: one clear line on stderr, exit code 2."""
    typer.echo(f"assay: error: {message}", err=True)
    raise typer.Exit(2)


def main() -> None:
    for name in COMMAND_MODULES:
        importlib.import_module(name)
    try:
        app()
    except KeyboardInterrupt:
        typer.echo("assay: interrupted", err=True)
        sys.exit(130)
