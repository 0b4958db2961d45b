"""The gate protocol: what every gate receives and returns."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from assay.config import Settings
from assay.model import Candidate, GateResult
from assay.sandbox import Sandbox
from assay.workspace import Workspace


@dataclass
class GateContext:
    """Everything a gate may use for one candidate file.

    `state` carries facts one gate learns for later gates (e.g. `passing_tests`, `test_durations`
    from the green run); `results` holds the earlier gates' results for this file.
    """

    root: Path
    settings: Settings
    workspace: Workspace
    sandbox: Sandbox
    python: str
    source_roots: list[str]  # project-relative dirs that hold importable code ("." or "src")
    results: dict[str, GateResult] = field(default_factory=dict)
    state: dict[str, Any] = field(default_factory=dict)


class Gate(Protocol):
    name: str

    def run(self, candidate: Candidate, ctx: GateContext) -> GateResult: ...
