"""Gate 2's outcomes as soon as the pytest process of gates 1-2 has them, not when it ends.

That process runs the tests, then gate 3's plan in a fork of the session collected before them
(`_assay_sandbox.reserve`), then pytest's own end: about half a second more for a small file. Once
the tests have run it writes their outcomes beside its result (`GREEN_SUFFIX`); a caller who needs
only them (gate 4, in a scratch copy of its own) may start then. The run handed over is read from
that file as the result itself is read; the gates still judge the process's final result, and a
caller compares what it started from with what they found.
"""

from __future__ import annotations

import contextlib
import json
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

from assay._assay_sandbox.protocol import GREEN_SUFFIX
from assay.execution.runner import TestRun
from assay.languages.pytest_results import read_run

POLL_S = 0.005  # between looks for the file (a stat each: no cost worth counting)

GreenListener = Callable[[TestRun], None]


class GreenWatch:
    """While a `checked` process runs (a context manager around it): hands the run its green
    file holds to `listener`, once, when the file appears."""

    def __init__(
        self, out: Path, paths: list[str], roots: tuple[str, ...], listener: GreenListener
    ) -> None:
        self.path = Path(f"{out}{GREEN_SUFFIX}")
        self.paths = paths
        self.roots = roots
        self.listener = listener
        self._over = threading.Event()
        self._thread = threading.Thread(target=self._watch, name="green-watch", daemon=True)

    def __enter__(self) -> GreenWatch:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._over.set()
        self._thread.join()

    def _watch(self) -> None:
        while not self._over.wait(POLL_S):
            if not self.path.exists():
                continue
            try:
                data = json.loads(self.path.read_text())
            except (OSError, ValueError):
                return  # written whole (a rename): unreadable means gone with a reset
            run = TestRun()
            read_run(run, data, self.paths, self.roots)
            self.listener(run)
            return


class GreenListeners:
    """Per scratch root, who takes gate 2's outcomes of the next `checked` process there."""

    def __init__(self) -> None:
        self._by_root: dict[str, GreenListener] = {}
        self._lock = threading.Lock()

    def set(self, root: str, listener: GreenListener | None) -> None:
        with self._lock:
            if listener is None:
                self._by_root.pop(root, None)
            else:
                self._by_root[root] = listener

    @contextlib.contextmanager
    def watch(
        self, root: str | None, out: Path, paths: list[str], roots: tuple[str, ...]
    ) -> Iterator[None]:
        """Around a process writing `out` in `root` (None: not a `checked` one): its green file
        handed to the root's listener, if there is one."""
        with self._lock:
            listener = self._by_root.get(root) if root is not None else None
        if listener is None:
            yield
            return
        with GreenWatch(out, paths, roots, listener):
            yield
