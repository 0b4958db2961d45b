"""The `assay` command: a thin Typer shell over `assay.api`. Each sub-command lives in its own
module and registers itself on `app` when imported; importing this package registers them all."""

from assay.cli import (  # noqa: F401 - registration
    demo,
    generate,
    mutate,
    prism,
    smells,
    targets,
    verify,
)
from assay.cli.app import app, main

__all__ = ["app", "main"]
