"""Types the worker's modules share (stdlib only, like the worker)."""

from __future__ import annotations

import types
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

# a forked child's line to the parent: `next` / `done` of a test
Report = Callable[[dict[str, Any]], None]
# what a child's body returns: killed_by and tests_completed, or why there are none
ChildResult = dict[str, Any]
# live functions by (real path, name, first line)
Functions = dict[tuple[str, str, int], list[types.FunctionType]]


@dataclass(frozen=True)
class Outcome:
    """What a mutant's child came to, read once from the line it ended with (`fork`: result
    or crash)."""

    crash: str | None = None  # the child died: its traceback
    import_error: str | None = None  # the mutated module body raised at import
    equivalent: str | None = None  # re-running the module body left its namespace unchanged
    unapplied: str | None = None  # the code that runs is not the mutant (`rebuilt`)
    killed_by: list[str] = field(default_factory=list)
    tests_completed: int = 0
    # the tests it picked to run (rebind), when it ran fewer than given
    selected: list[str] | None = None

    @classmethod
    def of(cls, ended: dict[str, Any]) -> Outcome:
        if "crash" in ended:
            return cls(crash=ended["crash"])
        result = ended["result"]
        if "crash" in result:  # the child's pytest session ended abnormally (reimport)
            return cls(crash=result["crash"])
        if "import_error" in result:
            return cls(import_error=result["import_error"])
        if "equivalent" in result:
            return cls(equivalent=result["equivalent"])
        if "unapplied" in result:
            return cls(unapplied=result["unapplied"])
        return cls(
            killed_by=result["killed_by"],
            tests_completed=result["tests_completed"],
            selected=result.get("selected"),
        )
