"""Type names the worker's modules share (stdlib only, like the worker)."""

from __future__ import annotations

import types
from collections.abc import Callable
from typing import Any

Report = Callable[[dict[str, Any]], None]  # a forked child's line to the parent: `next` / `done` of a test
ChildResult = dict[str, Any]  # what a child's body returns: killed_by and tests_completed, or why there are none
Functions = dict[tuple[str, str, int], list[types.FunctionType]]  # live functions by (real path, name, first line)
