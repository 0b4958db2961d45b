"""assay for coding agents and CI: the MCP server (`assay mcp`, server.py: it needs the `mcp` SDK)
and the compact typed answers its tools give (answers.py). The tools call the same `assay.api`
functions as the CLI, so an agent gets the CLI's verdicts."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any


def diff_scoped(fn: Callable[..., Any]) -> bool:
    """Whether this assay's `fn` (`api.verify`, `api.mutate`) takes `since`, the diff scope of
    issue 29: callers pass the parameter through only then, and say so otherwise."""
    return "since" in inspect.signature(fn).parameters
