"""What the worker records: the lines of target files that run, and the JSON-lines events it reports.

Events go to a file, never stdout: pytest captures stdout, and children write theirs to /dev/null.
"""

from __future__ import annotations

import json
import os
import sys
import threading


class Events:
    def __init__(self, path: str):
        self.fh = open(path, "a", buffering=1, encoding="utf-8")  # noqa: SIM115 - lives as long as the worker

    def emit(self, **data) -> None:
        self.fh.write(json.dumps(data) + "\n")

    def mutant(self, m, status, covered, killed_by=(), completed=0, duration=0.0, reason="") -> None:
        """One mutant's verdict."""
        self.emit(event="mutant", id=m.id, status=status, covered_by=covered, killed_by=list(killed_by),
                  tests_completed=completed, duration_s=round(duration, 4), reason=reason)


class LineTracer:
    """Records (target file, line) pairs executed; other files cost one dict lookup per call."""

    def __init__(self, targets: dict[str, str]):
        self.targets = targets  # realpath -> project-relative path
        self.names: dict[str, str | None] = {}
        self.lines: set = set()
        self.call_lines: set = set()
        self.in_call = False  # set by the pytest hooks: lines run in a test's call phase go to call_lines too

    def _rel(self, filename: str) -> str | None:
        rel = self.names.get(filename, 0)
        if rel == 0:
            rel = self.names[filename] = self.targets.get(os.path.realpath(filename))
        return rel

    def _global(self, frame, event, arg):
        rel = self._rel(frame.f_code.co_filename)
        if rel is None:
            return None
        local = self._local_for(rel)
        return local(frame, event, arg)

    def _local_for(self, rel: str):
        def local(frame, event, arg):
            if event == "line":
                key = (rel, frame.f_lineno)
                self.lines.add(key)
                if self.in_call:
                    self.call_lines.add(key)
            return local

        return local

    def start(self) -> None:
        threading.settrace(self._global)
        sys.settrace(self._global)

    def stop(self) -> None:
        sys.settrace(None)
        threading.settrace(None)

    def take(self) -> tuple[set, set]:
        """Lines recorded since the last take (all, call phase only); starts afresh."""
        lines, call = self.lines, self.call_lines
        self.lines, self.call_lines = set(), set()
        return lines, call
