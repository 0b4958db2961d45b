"""Whether an interpreter can run pytest: asked before any run, so that a configured interpreter
that cannot is a configuration error (one line, exit 2), never a verdict on a test."""

from __future__ import annotations

import json
import os
import subprocess
import threading
from collections.abc import Callable

from assay import asked
from assay.dependencies.installed import interpreter_key, probe_all

# interpreter (`interpreter_key`) -> what its `import pytest` rests on, and their stamps
_pytest_found: dict[tuple[str, int, int], tuple[tuple[str, ...], tuple[int, ...]]] = {}


def _stamps(paths: tuple[str, ...]) -> tuple[int, ...]:
    out = []
    for path in paths:
        try:
            out.append(os.stat(path).st_mtime_ns)
        except OSError:
            out.append(0)
    return tuple(out)


def interpreter_problem(python: str, later: Callable[[], None] | None = None) -> str | None:
    """Why `python` cannot run pytest here, or None. A success is remembered while the
    interpreter file, pytest's file and the directories it rests on are unchanged: one `verify`
    asked twice (0.12 s each), and an installation or removal asks again. The interpreter's
    `Installed` probe runs beside it: both were interpreter starts one after the other. `later`
    (the probes of the other interpreters its sandboxed runs name) starts beside them too, and
    is not waited for: the first sandboxed start is."""
    key = interpreter_key(python)
    seen = _pytest_found.get(key)
    if seen is not None and _stamps(seen[0]) == seen[1]:
        return None
    if later is not None:
        threading.Thread(target=later, daemon=True).start()
    # what every sandboxed run of it needs next (`Installed`), asked while pytest imports
    ahead = threading.Thread(target=probe_all, args=([python],), daemon=True)
    ahead.start()
    try:
        proc = asked.run(asked.pytest_check_argv(python), timeout=60)
    except (OSError, subprocess.SubprocessError) as err:
        return f"cannot run {python}: {err}"
    finally:
        ahead.join()
    if proc.returncode:
        return f"pytest is not importable by {python}"
    try:
        found = json.loads((proc.stdout.splitlines() or ["null"])[-1])
    except ValueError:  # something printed over it: asked again next time
        found = None
    if isinstance(found, list) and all(isinstance(p, str) for p in found):
        paths = tuple(found)
        _pytest_found[key] = (paths, _stamps(paths))
    return None
