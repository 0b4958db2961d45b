"""Mutation testing outside Python: each language's own mature tool (PIT, StrykerJS,
cargo-mutants, a Go engine) run in assay's sandbox on the scratch copy, read back into the same
`MutationResult` the Python engine gives, so gate 4, `assay mutate`, the reports and the feedback
stay one code path whatever the language."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from assay.config import Settings
    from assay.mutation.model import MutationResult
    from assay.project import Project
    from assay.sandbox import Sandbox


@dataclass(frozen=True)
class ToolRequest:
    """What to mutate and with which tests, in a writable scratch copy (never the user's tree)."""

    root: Path  # the scratch copy
    project: Project
    settings: Settings
    sandbox: Sandbox
    tests: tuple[str, ...]  # project-relative test files whose tests judge the mutants
    targets: tuple[str, ...]  # project-relative source files to mutate
    lines: dict[str, frozenset[int]] | None = None  # only these lines of a target (diff scope)
    timeout_s: float = 60.0  # the whole tool run; each mutant's own timeout is the tool's rule


class MutationTool(Protocol):
    """One language's mutation tool: a module in this package plus one line in `REGISTRY`."""

    name: str  # the tool as users know it: "pit", "stryker", "cargo-mutants"
    language: str  # `Language.name` it serves

    def problem(self, request: ToolRequest) -> str | None:
        """One line naming what is missing to run here (toolchain, plugin, runner), or None.
        A problem makes the file `unvalidated`, never rejected, and is never cached."""
        ...

    def run(self, request: ToolRequest) -> MutationResult:
        """Run the tool scoped to `targets` and `tests` and return every mutant with its status
        (killed_by / covered_by filled where the tool reports them)."""
        ...
