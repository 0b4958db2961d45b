"""Scratch copies of one project, leased to candidates and reset between them."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator
from pathlib import Path

from assay.execution.workspace import Workspace
from assay.sandbox import Profile


class WorkspacePool:
    """Scratch copies of one project, reused: a candidate leases one, and it is reset to the
    pristine copy before the next lease, so N candidates on J threads cost J copies, not N.

    `role` keeps copies for one use apart from the others (gate 4's own copy, whose worker on
    standby lives there for the whole run), so each lease finds what its last one left running."""

    def __init__(self, root: Path):
        self.root = root
        self._free: dict[str, list[Workspace]] = {}
        self._all: list[Workspace] = []
        self._lock = threading.Lock()

    @contextlib.contextmanager
    def lease(self, profile: Profile, role: str = "") -> Iterator[Workspace]:
        kind = f"{profile.name}/{role}"
        with self._lock:
            free = self._free.setdefault(kind, [])
            ws = free.pop() if free else None
        if ws is None:
            ws = Workspace(self.root, links=profile.links, keep=profile.keep)
            with self._lock:
                self._all.append(ws)
        try:
            yield ws
        finally:
            ws.reset()
            with self._lock:
                self._free[kind].append(ws)

    @property
    def workspaces(self) -> tuple[Workspace, ...]:
        """Every workspace made so far (one per candidate in flight at once)."""
        return tuple(self._all)

    def close(self) -> None:
        with self._lock:
            for ws in self._all:
                ws.close()
            self._all.clear()
            self._free.clear()
