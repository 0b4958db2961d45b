"""The worker's typed events, appended to a file as JSON lines (never stdout: pytest captures it,
children drop theirs)."""

from __future__ import annotations

from .protocol import Event


class Events:
    def __init__(self, path: str) -> None:
        # lives as long as the worker
        self.fh = open(path, "a", buffering=1, encoding="utf-8")  # noqa: SIM115

    def send(self, event: Event) -> None:
        self.fh.write(event.to_json() + "\n")
