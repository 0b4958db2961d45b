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
import shutil
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
# top-level directories a bwrap view binds as they are (`sandbox.bwrap.SYSTEM`, `FRESH`)
SYSTEM: tuple[str, ...] = ("/usr", "/etc", "/sys", "/bin", "/sbin", "/lib", "/lib32", "/lib64")
SYSTEM += ("/libx32", "/proc", "/dev")
# the roots the built-in view hides (`sandbox.namespaces.HIDDEN`)
BUILTIN_HIDDEN = ("/tmp", "/run", "/home", "/root")
BUILTIN_HIDDEN_DEEP = ("/var/tmp/", "/var/run/", "/dev/shm/")


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


def path_pythons(python: str) -> list[str]:
    """The `python` and `python3` of each PATH directory a sandboxed run of `python` hides (its
    venv's scripts first, as `environment.venv_path`), which its view probes
    (`sandbox.shown.named_pythons`; a pyenv shim: 0.3 s quiet, 2 s at load 15): bwrap's hidden
    roots, every top-level directory but the base system's, or the built-in view's where it is
    asked for or bwrap is missing."""
    dirs = os.environ.get("PATH", "").split(os.pathsep)
    scripts = os.path.dirname(python)
    venv = os.path.isabs(python) and os.path.isfile(os.path.join(scripts, "..", "pyvenv.cfg"))
    if venv and scripts not in dirs:
        dirs = [scripts, *dirs]
    builtin = os.environ.get("ASSAY_SANDBOX_BACKEND") == "builtin" or not shutil.which("bwrap")
    out = []
    for d in dirs:
        top = "/" + d.strip("/").split("/")[0]
        hidden = top in BUILTIN_HIDDEN or d.startswith(BUILTIN_HIDDEN_DEEP)
        if not d.startswith("/") or (not hidden if builtin else top in SYSTEM):
            continue
        for name in ("python", "python3"):
            path = os.path.join(d, name)
            if path not in out and path != python and os.access(path, os.X_OK):
                out.append(path)
    return out


def ask_ahead(args: list[str]) -> None:
    """Start the interpreter's pytest check and probe, and the probes of the interpreters on its
    runs' PATH, when the command will ask them."""
    python = interpreter_of(args)
    if python is not None:
        asked.start(asked.pytest_check_argv(python))
        asked.start(asked.probe_argv(python))
        for other in path_pythons(python):
            asked.start(asked.probe_argv(other))
