"""`assay mcp`: serve assay's tools to a coding agent over MCP (stdio)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from assay.cli.app import app, usage_error


@app.command()
def mcp(
    root: Annotated[
        Path | None,
        typer.Option(metavar="DIR", help="project root the tools work in (default: here)"),
    ] = None,
) -> None:
    """Serve verify, mutate, survivors and generate to a coding agent (MCP over stdio)."""
    try:
        from assay.agents.server import serve
    except ImportError as err:
        if err.name is None or not err.name.startswith("mcp"):
            raise
        usage_error("assay mcp needs the MCP SDK: pip install 'assay[mcp]'")
    if root is not None and not root.is_dir():
        usage_error(f"project root {root} is not a directory")
    serve(root)
