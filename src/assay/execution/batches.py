"""Which test files share one process for their first gates, and each such batch run once: by the
first thread that needs one of its files, while the threads that need its other files wait.

A batch is files of one directory (they load the same conftests), at most `MAX_FILES`, dealt
round-robin into as many batches as there are jobs: the threads that start on the first files
start different batches, so the cores stay busy, and no batch keeps its files silent for long.
A file alone in its batch is not batched (nothing to share).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import PurePosixPath

MAX_FILES = 8


@dataclass
class Batch:
    files: list[str]
    started: bool = False
    done: threading.Event = field(default_factory=threading.Event)


class Batches:
    """`plan` the batches once; `settle(file)` before a file's first gate. `run` gets a batch's
    files; what it learns it keeps itself (the runner, for its `compile`)."""

    def __init__(self, run: Callable[[list[str]], object]) -> None:
        self._run = run
        self._of: dict[str, Batch] = {}
        self._lock = threading.Lock()

    def plan(self, files: Sequence[str], jobs: int) -> list[list[str]]:
        """Group `files` (project-relative, in the order they will start) into batches."""
        by_dir: dict[PurePosixPath, list[str]] = {}
        for rel in files:
            by_dir.setdefault(PurePosixPath(rel).parent, []).append(rel)
        planned = []
        for group in by_dir.values():
            count = max(min(jobs, len(group)), -(-len(group) // MAX_FILES))
            for part in (group[i::count] for i in range(count)):
                if len(part) > 1:
                    planned.append(part)
                    batch = Batch(part)
                    with self._lock:
                        self._of.update(dict.fromkeys(part, batch))
        return planned

    def holds(self, rel: str) -> bool:
        """`rel` has a batch still to settle."""
        with self._lock:
            return rel in self._of

    def settle(self, rel: str) -> None:
        """Run the batch of `rel` when no thread has yet, or wait for the one that does."""
        with self._lock:
            batch = self._of.pop(rel, None)
            if batch is None:
                return
            first, batch.started = not batch.started, True
        if not first:
            batch.done.wait()
            return
        try:
            self._run(batch.files)
        finally:
            batch.done.set()
