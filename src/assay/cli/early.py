"""The project interpreter's two questions (`assay.asked`), started as `assay verify` or `assay
mutate` starts: each is an interpreter start (`import pytest`: 0.15-0.5 s) that waited for assay's
own modules to load (0.25 s) and for the settings; now they run beside the load.

The interpreter is read here as `load_settings` will read it (the nearest project root above the
first path given, its `assay.toml` or `pyproject.toml`, a relative path anchored at that file),
with the standard library only. A guess, never an answer: the settings decide which interpreter
is asked, and a command line that differs from the one started here starts its own process
(`--root`, `--config`, `--set` and the like are not read: no guess).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

from assay import asked

# the commands whose settings ask the interpreter (`project_settings(runs_tests=True)`)
RUNS_TESTS = ("verify", "mutate")
# `project.discovery.ROOT_MARKERS`, and the build file that may send the root elsewhere
ROOT_MARKERS = ("pyproject.toml", "setup.cfg", "setup.py", ".git")
ELSEWHERE = "assay.toml"


def interpreter_of(args: list[str]) -> str | None:
    """The interpreter the command's settings will name, when the command line is plain enough
    to tell (`args`: the command's, without the program)."""
    words = [a for a in args if not a.startswith("-")]
    if not words or words[0] not in RUNS_TESTS:
        return None
    if any(a.startswith("--") and a not in ("--no-cache", "--quiet") for a in args):
        return None  # options that may move the root or the settings: not guessed
    paths = [Path(w) for w in words[1:] if os.path.exists(w)]
    start = (paths[0] if paths else Path.cwd()).resolve()
    here = start if start.is_dir() else start.parent
    for d in (here, *here.parents):
        if any((d / m).exists() for m in ROOT_MARKERS):
            return _configured(d)
        if (d / ELSEWHERE).exists():
            return None
    return None


def _configured(root: Path) -> str | None:
    for name in ("assay.toml", "pyproject.toml"):
        path = root / name
        if not path.is_file():
            continue
        try:
            data = tomllib.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
            return None
        tool = data.get("tool", {}).get("assay")
        section = tool if name == "pyproject.toml" else (tool or data)
        if section is None:
            continue
        python = (section.get("python") or {}).get("interpreter")
        if not isinstance(python, str) or not python:
            return None
        if "/" in python and not os.path.isabs(python):
            return os.path.normpath(root.absolute() / python)
        return python
    return None


def ask_ahead(args: list[str]) -> None:
    """Start the interpreter's pytest check and probe, when the command will ask them."""
    python = interpreter_of(args)
    if python is not None:
        asked.start(asked.pytest_check_argv(python))
        asked.start(asked.probe_argv(python))
