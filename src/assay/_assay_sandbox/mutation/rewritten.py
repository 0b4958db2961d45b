"""pytest's assertion rewriting, done once per file in the worker and shared with every child that
imports the tests again.

A mutant applied by a fresh import (`reimport`) starts a new pytest session in its child, which
imports the test modules and conftests again through pytest's rewriting hook. The sandbox sets
PYTHONDONTWRITEBYTECODE, so pytest keeps no rewritten pyc and each such child parsed, rewrote and
compiled every test module again: on toolz' test_functoolz.py, 1.0 s of a 1.8 s child, the largest
part of gate 4 there. What pytest makes of a file depends only on its content and the session's
options, the same in the worker and its children; a mutated module is never read from a file (the
child's `MutantFinder` serves it), so a file unchanged on disk gets the worker's code object.
"""

from __future__ import annotations

import os
from typing import Any

# (path, mtime_ns, size) -> what pytest's `_rewrite_test` returned for that file
_DONE: dict[tuple[str, int, int], Any] = {}


def share() -> None:
    """In the worker, before pytest starts: pytest's rewrite of a file is remembered, and a forked
    child that imports the file again gets it from memory. No-op on a pytest without the hook."""
    try:
        from _pytest.assertion import rewrite
    except ImportError:
        return
    rewrite_test = getattr(rewrite, "_rewrite_test", None)
    if rewrite_test is None or getattr(rewrite_test, "shared", False):
        return

    def remembered(fn: Any, config: Any) -> Any:
        try:
            st = os.stat(fn)
        except OSError:
            return rewrite_test(fn, config)  # pytest says why
        key = (os.fspath(fn), st.st_mtime_ns, st.st_size)
        found = _DONE.get(key)
        if found is None:
            found = _DONE[key] = rewrite_test(fn, config)
        return found

    remembered.shared = True  # type: ignore[attr-defined]
    rewrite._rewrite_test = remembered
