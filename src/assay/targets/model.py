"""What a writer is asked to test: a module, the functions in it, what of them no test runs yet, and
the task. Plain data (JSON in and out: `assay targets -f json` output is `assay generate` input)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

TASK_ID = re.compile(r"^\s*([A-Z][A-Z0-9_]*-\d+)\b")


@dataclass
class FunctionTarget:
    """One function or method (`Class.method`) and its coverage by the project's current tests."""

    name: str
    line: int  # first line (decorators included)
    end_line: int
    complexity: int = 1  # cyclomatic: 1 + branch points
    missing_lines: list[int] = field(default_factory=list)
    # (from line, to line); to < 0: exit
    missing_branches: list[tuple[int, int]] = field(default_factory=list)
    coverage: float | None = None  # percent of its statements run by the tests; None = not measured

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "line": self.line,
            "end_line": self.end_line,
            "complexity": self.complexity,
            "missing_lines": self.missing_lines,
            "missing_branches": [list(b) for b in self.missing_branches],
            "coverage": self.coverage,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> FunctionTarget:
        return cls(
            str(data["name"]),
            int(data.get("line", 0)),
            int(data.get("end_line", 0)),
            int(data.get("complexity", 1)),
            [int(x) for x in data.get("missing_lines", [])],
            [(int(a), int(b)) for a, b in data.get("missing_branches", [])],
            data.get("coverage"),
        )


@dataclass
class Target:
    """One writer job: tests for `functions` of `module` (all of the module's functions
    when empty)."""

    module: str  # project-relative path of the source file
    functions: list[FunctionTarget] = field(default_factory=list)
    task: str | None = None
    reason: str = "requested"  # requested | coverage | changed since REV
    dotted: str = ""  # import name of the module (shop.pricing)
    # of the source file (assay.languages.LANGUAGES); other languages have no AST facts
    language: str = "python"

    @property
    def id(self) -> str:
        return self.module + (
            "::" + ",".join(f.name for f in self.functions) if self.functions else ""
        )

    @property
    def task_id(self) -> str | None:
        """`SHOP-123` from a task such as "SHOP-123: discount must not exceed price"."""
        m = TASK_ID.match(self.task or "")
        return m.group(1) if m else None

    @property
    def missing_branches(self) -> int:
        return sum(len(f.missing_branches) for f in self.functions)

    def to_json(self) -> dict[str, Any]:
        return {
            "module": self.module,
            "dotted": self.dotted,
            "reason": self.reason,
            "task": self.task,
            "language": self.language,
            "functions": [f.to_json() for f in self.functions],
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Target:
        return cls(
            str(data["module"]),
            [FunctionTarget.from_json(f) for f in data.get("functions", [])],
            data.get("task"),
            data.get("reason", "requested"),
            data.get("dotted", ""),
            data.get("language", "python"),
        )
