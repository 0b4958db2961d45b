"""Real paths of the files of loaded modules and functions, each resolved once per worker.

Before its plan the worker asks which loaded module or function comes from the scratch copy four
times over (changed globals, module state, test modules to re-collect, readers): about 1400
modules in a pytest session, each `os.path.realpath` an lstat per path component (cachetools:
0.05-0.09 CPU s of a file's gate 4, more than its plan). The worker on standby resolves the
modules it has loaded (pytest's, the stdlib's) before it forks, so each job resolves only what it
imported itself. Only absolute paths are kept (a relative one depends on the working directory);
the files of a session do not move while it runs.
"""

from __future__ import annotations

import os
import sys

_REAL: dict[str, str] = {}


def real(path: str) -> str:
    """`os.path.realpath(path)`, remembered for an absolute path."""
    found = _REAL.get(path)
    if found is None:
        found = os.path.realpath(path)
        if os.path.isabs(path):
            _REAL[path] = found
    return found


def module_file(mod: object) -> str:
    """The real path of a module's file ("/nonexistent" for a module without one)."""
    return real(getattr(mod, "__file__", None) or "/nonexistent")


def remember_loaded() -> None:
    """Resolve the files of every module loaded now (the worker on standby, before it forks)."""
    for mod in list(sys.modules.values()):
        path = getattr(mod, "__file__", None)
        if isinstance(path, str):
            real(path)
