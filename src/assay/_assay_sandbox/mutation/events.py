"""The worker's JSON-lines events, appended to a file (never stdout: pytest captures it, children drop theirs)."""

from __future__ import annotations

import json


class Events:
    def __init__(self, path: str):
        self.fh = open(path, "a", buffering=1, encoding="utf-8")  # noqa: SIM115 - lives as long as the worker

    def emit(self, **data) -> None:
        self.fh.write(json.dumps(data) + "\n")

    def mutant(self, m, status, covered, killed_by=(), completed=0, duration=0.0, reason="") -> None:
        """One mutant's verdict."""
        self.emit(event="mutant", id=m.id, status=status, covered_by=covered, killed_by=list(killed_by),
                  tests_completed=completed, duration_s=round(duration, 4), reason=reason)
