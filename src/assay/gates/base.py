"""The gate protocol: what every gate receives and returns."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from assay.config import Settings
from assay.model import Candidate, GateResult
from assay.project import Project
from assay.sandbox import Sandbox
from assay.workspace import Workspace


@dataclass
class GateContext:
    """Everything a gate may use for one candidate file.

    `state` carries facts one gate learns for later gates (e.g. `passing_tests`, `test_durations`
    from the green run); `results` holds the earlier gates' results for this file.
    """

    project: Project  # the user's project (read-only): root, source roots, module index, dependencies
    settings: Settings
    workspace: Workspace
    sandbox: Sandbox
    python: str
    results: dict[str, GateResult] = field(default_factory=dict)
    state: dict[str, Any] = field(default_factory=dict)

    @property
    def root(self) -> Path:
        return self.project.root

    @property
    def source_roots(self) -> list[str]:
        """Project-relative dirs that hold importable code ("." or "src")."""
        return self.project.source_roots


class Gate(Protocol):
    name: str

    def run(self, candidate: Candidate, ctx: GateContext) -> GateResult: ...
