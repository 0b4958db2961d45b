"""The two scratch directories of a sandbox probe (a read-only project, a writable workspace).
Named after the process that made them, as workspaces are, so that when it dies without removing
them (SIGKILL, or a SIGTERM to a process that is not assay's CLI, which catches it and cleans up)
the next run's `sweep_stale` removes them."""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from collections.abc import Iterator

PROBE_PREFIX = "assay-probe-"


@contextlib.contextmanager
def probe_dirs() -> Iterator[tuple[str, str]]:
    """(project, writable): both removed on the way out, however it goes."""
    made: list[str] = []
    try:
        for kind in ("p", "w"):
            made.append(tempfile.mkdtemp(prefix=f"{PROBE_PREFIX}{os.getpid()}-{kind}-"))
        yield made[0], made[1]
    finally:
        for path in made:
            shutil.rmtree(path, ignore_errors=True)
