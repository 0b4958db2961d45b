"""The project's pytest configuration, as far as assay reads it without running pytest: its ini
options (the offline writer's marks) and the paths its `addopts` tell pytest to ignore, which
`discover` leaves out of a directory as pytest does (asttokens' `--ignore=tests/testdata`, where
`*_test.py` files are data that does not even compile).
"""

from __future__ import annotations

import configparser
import fnmatch
import shlex
import sys
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib


def ini_lines(value: object) -> list[str]:
    """An ini value as its lines (a TOML list: its items)."""
    if isinstance(value, list):
        return [str(v) for v in value]
    return [line for line in str(value or "").splitlines() if line.strip()]


def ini_options(root: Path) -> list[dict]:
    """pytest's ini options from every file it may read them from (ini values as lists of lines)."""
    found = []
    try:
        data = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))
        if "ini_options" in data.get("tool", {}).get("pytest", {}):
            found.append(data["tool"]["pytest"]["ini_options"])
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        pass
    for name, section in (
        ("pytest.ini", "pytest"),
        ("tox.ini", "pytest"),
        ("setup.cfg", "tool:pytest"),
    ):
        parser = configparser.ConfigParser(interpolation=None)
        try:
            parser.read(root / name, encoding="utf-8")
        except (configparser.Error, UnicodeDecodeError):
            continue
        if parser.has_section(section):
            found.append(dict(parser.items(section)))
    return found


def addopts(root: Path) -> list[str]:
    """The project's `addopts`, split as a shell would (a value that does not split: left out)."""
    out: list[str] = []
    for opts in ini_options(root):
        for line in ini_lines(opts.get("addopts")):
            try:
                out += shlex.split(line)
            except ValueError:
                continue
    return out


def ignores(root: Path) -> tuple[list[Path], list[str]]:
    """The paths (`--ignore`) and globs (`--ignore-glob`) the project's addopts give pytest,
    relative to `root` (where pytest runs)."""
    paths: list[Path] = []
    globs: list[str] = []
    args = addopts(root)
    for i, arg in enumerate(args):
        for flag, into in (("--ignore", paths), ("--ignore-glob", globs)):
            value = None
            if arg.startswith(flag + "="):
                value = arg[len(flag) + 1 :]
            elif arg == flag and i + 1 < len(args):
                value = args[i + 1]
            if value:
                if into is paths:
                    paths.append((root / value).resolve())
                else:
                    globs.append(str(root / value))
    return paths, globs


def ignored(path: Path, rules: tuple[list[Path], list[str]]) -> bool:
    """Whether pytest, configured with `rules` (`ignores`), leaves `path` out of a directory."""
    paths, globs = rules
    resolved = path.resolve()
    if any(resolved == p or p in resolved.parents for p in paths):
        return True
    return any(fnmatch.fnmatch(str(path), g) for g in globs)
