"""Which files of the project the tests themselves wrote, apart from what the pytest session around
them wrote: a plugin's or the project config's session-end artefacts (`--junitxml` in addopts,
pytest-html, a conftest's `pytest_sessionfinish` report) are not the test file's doing, and the
green gate must not blame it for them.

The tree is looked at when collection starts (test modules are imported there, so their import-time
writes count) and when the test loop ends, before any plugin's session-end code runs. Stdlib +
pytest: runs under the interpreter of the user's tests.
"""

from __future__ import annotations

import os
from collections.abc import Generator

import pytest


def snapshot(root: str) -> dict[str, tuple[int, int, int]]:
    """Size, mtime and ctime of every file under `root` (`__pycache__` left out, as the parent's
    snapshot does)."""
    snap = {}
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if d != "__pycache__"]
        for name in filenames:
            path = os.path.join(dirpath, name)
            try:
                st = os.lstat(path)
            except OSError:
                continue
            snap[os.path.relpath(path, root)] = (st.st_size, st.st_mtime_ns, st.st_ctime_ns)
    return snap


class TreeWatch:
    """pytest plugin: `writes` holds the project-relative paths created, changed or deleted between
    the start of collection and the end of the test loop; None when the loop never ended (the run
    was killed), so that the parent blames every change as before."""

    def __init__(self, root: str) -> None:
        self.root = root
        self.before: dict[str, tuple[int, int, int]] | None = None
        self.writes: list[str] | None = None

    @pytest.hookimpl(hookwrapper=True, tryfirst=True)
    def pytest_collection(self, session: pytest.Session) -> Generator[None, None, None]:
        self.before = snapshot(self.root)
        yield

    # innermost wrapper: what runs after it (pytest-cov's data file) is the session's own
    @pytest.hookimpl(hookwrapper=True, trylast=True)
    def pytest_runtestloop(self, session: pytest.Session) -> Generator[None, None, None]:
        yield
        if self.before is not None:
            after = snapshot(self.root)
            before = self.before
            self.writes = sorted(p for p in {*before, *after} if before.get(p) != after.get(p))
