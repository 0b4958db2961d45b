"""The `assay` command: a thin Typer shell over `assay.api`. Each sub-command lives in its own
module and registers itself on `app` when imported.

`main` (the `assay` console script) imports only the module of the command it runs: all of them
together import the whole library (every gate, report and writer, the reviewer's pydantic
schemas), about a second that `assay smells` (milliseconds of work) or `assay --version` should not
pay. `load_commands()`
registers every command, for callers of `app` itself."""

from __future__ import annotations

import importlib
import os
import sys

from assay.cli.app import app

COMMANDS = (
    "verify",
    "demo",
    "generate",
    "mutate",
    "smells",
    "targets",
    "prism",
    "mcp",
    "integrity",
    "tasks",
    "stats",
)
__all__ = ["app", "load_commands", "main"]


def load_commands(names: tuple[str, ...] = COMMANDS) -> None:
    for name in names:
        importlib.import_module(f"assay.cli.{name}")


def main() -> None:
    from assay.cli.app import main as run
    from assay.cli.early import ask_ahead

    ask_ahead(sys.argv[1:])  # the project interpreter's two questions, while assay loads
    words = [arg for arg in sys.argv[1:] if not arg.startswith("-")]
    # pydantic (the reviewer's answer schemas, `generate`) looks for plugins of its own when a model
    # class is made: every installed distribution's entry points, through importlib.metadata;
    # assay's models need none (only while its modules load; a user's setting wins)
    quiet = "PYDANTIC_DISABLE_PLUGINS" not in os.environ
    if quiet:
        os.environ["PYDANTIC_DISABLE_PLUGINS"] = "__all__"
    try:
        if words and words[0] in COMMANDS:
            load_commands((words[0],))
        elif words or "--version" not in sys.argv[1:]:  # help or a usage error: every command
            load_commands()
    finally:
        if quiet:
            del os.environ["PYDANTIC_DISABLE_PLUGINS"]
    run()
