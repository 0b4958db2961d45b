"""What a sandboxed run must see through the hidden roots (/tmp, /home, /root ...): the directories
its command and environment name, everything its Python interpreter imports from, and the real
targets of the project's links; and whether the test's uid can reach them.

Without these a run in a CI clone under /tmp, or a project whose venv lives under /home, could not
import pytest (a `.pth` file pointing at another site-packages, an editable install) or start its
tools (a `node_modules` linked from elsewhere). All of it is shown read-only.
"""

from __future__ import annotations

import functools
import os
import re
from collections.abc import Iterable, Mapping
from pathlib import Path

from assay.dependencies.installed import Installed, probe_all
from assay.sandbox.namespaces import HIDDEN, TEST_GID, TEST_UID

_INTERPRETER = re.compile(r"(python|pypy)[0-9.]*")


def _under(path: str, roots: Iterable[str]) -> bool:
    return any(path == r or path.startswith(r.rstrip("/") + "/") for r in roots)


def _candidates(token: str) -> list[list[str]]:
    """The directories one absolute path named by the run stands for, as named and resolved (a
    venv's python links to its base interpreter): a directory itself (its prefix first when it is
    a `bin`), a file's directory (the prefix when it sits in a `bin`)."""
    path = Path(token)
    out = []
    for p in dict.fromkeys((path, path.resolve())):
        if p.is_dir():
            out.append([str(p.parent), str(p)] if p.name == "bin" else [str(p)])
        elif p.exists():
            out.append([str(p.parent.parent)] if p.parent.name == "bin" else [str(p.parent)])
    return out


def _stamp(path: str) -> int:
    try:
        return os.stat(path).st_mtime_ns
    except OSError:
        return 0


def links_in(directory: str) -> list[str]:
    """The real targets of the links directly in a directory on a module search path (a package
    linked into a directory of links, as assay lends its coverage.py to a project's Python)."""
    try:
        with os.scandir(directory) as entries:
            links = [e.path for e in entries if e.is_symlink()]
    except OSError:
        return []
    return [os.path.realpath(link) for link in links]


@functools.lru_cache(maxsize=32)
def _interpreter_reach(python: str, stamp: int) -> tuple[str, ...]:
    installed = Installed(python)
    dirs = [*installed.dirs, *installed.editable, *installed.homes]
    return (*dirs, *(t for d in installed.dirs for t in links_in(d)))


def interpreter_reach(python: str) -> tuple[str, ...]:
    """Every directory `python` imports from: its `sys.path` after site processing (so the targets
    of `.pth` files, and of links in those directories) and the roots its editable-install finders
    map modules to. Asked once per interpreter file and mtime, outside the sandbox."""
    return _interpreter_reach(python, _stamp(python))


def _package_dir(target: Path) -> Path:
    """The package directory (the nearest one with a package.json) holding a linked executable."""
    return next((p for p in target.parents if (p / "package.json").is_file()), target.parent)


@functools.lru_cache(maxsize=32)
def _linked(project: str, stamps: tuple[int, int]) -> tuple[str, ...]:
    root = Path(project)
    out: list[str] = []
    bins = root / "node_modules" / ".bin"
    entries = [*_entries(root), *_entries(bins)]
    for entry in entries:
        if not entry.is_symlink():
            continue
        try:
            target = entry.resolve(strict=True)
        except (OSError, RuntimeError):
            continue
        if entry.parent == bins and target.is_file():
            target = _package_dir(target)
        out.append(str(target if target.is_dir() else target.parent))
    return tuple(out)


def _entries(directory: Path) -> list[Path]:
    try:
        return list(directory.iterdir())
    except OSError:
        return []


def linked_targets(project: Path) -> tuple[str, ...]:
    """The real targets of links at the top of the project and in its `node_modules/.bin` (a
    `node_modules` linked from a shared checkout, a tool linked from another package)."""
    bins = project / "node_modules" / ".bin"
    return _linked(str(project), (_stamp(str(project)), _stamp(str(bins))))


def named_pythons(
    argv: list[str], env: Mapping[str, str], hidden: Iterable[str], pythons_on_path: bool = True
) -> list[str]:
    """The Python interpreters a run names, each of which `shown_dirs` asks what it imports from:
    those of its command, and (`pythons_on_path`) the `python` and `python3` of each PATH
    directory under a hidden root, which a command may start by name (`sh -c "python -m pytest"`
    in a venv's bin)."""
    hidden = tuple(hidden)
    on_path = [
        os.path.join(d, name)
        for d in env.get("PATH", "").split(os.pathsep)
        if pythons_on_path and d.startswith("/") and _under(d, hidden)
        for name in ("python", "python3")
    ]
    return [
        token
        for token in [*argv, *on_path]
        if token.startswith("/")
        and _INTERPRETER.fullmatch(os.path.basename(token))
        and os.access(token, os.X_OK)
    ]


def shown_dirs(
    argv: list[str],
    env: Mapping[str, str],
    taken: Iterable[str],
    home: str = "",
    reached: Iterable[str] = (),
    hidden: tuple[str, ...] = HIDDEN,
    pythons_on_path: bool = True,
) -> tuple[str, ...]:
    """Directories under a hidden root (/home, /root, /tmp ...) to bind back read-only: those the
    command or its environment names (toolchains, the interpreter, assay's own package, dependency
    caches), all a Python interpreter it runs imports from, and `reached` (link targets). Never a
    hidden root or the real home itself, never what `taken` (project, workspace, caches) shows.
    `hidden`: the roots the view lacks (bwrap's: every top-level directory but the system's).
    `pythons_on_path`: also what the interpreters on a hidden PATH directory import from (a Python
    run's shell commands start them by name); asking costs an interpreter start each, a pyenv
    shim's 0.3 s, on every assay run of every language, so other toolchains' runs do not ask."""
    home = home or os.path.expanduser("~")
    refused = {*HIDDEN, *hidden, home, "/"}
    taken = list(taken)
    # every word of the command (assay builds it: no test can add to it), e.g. assay's own package
    # directory when it is installed under /home or /tmp, and its environment
    tokens = [
        token
        for value in [*argv, *env.values()]
        for token in value.replace("=", " ").replace(os.pathsep, " ").split()
        if token.startswith("/")  # a path outside may lead inside: a venv's python
    ]
    pythons = named_pythons(argv, env, hidden, pythons_on_path)
    probe_all(pythons)  # at once, not one interpreter start after another
    for token in pythons:
        tokens += interpreter_reach(token)
    for name in ("PYTHONPATH", "NODE_PATH"):
        for entry in env.get(name, "").split(os.pathsep):
            tokens += links_in(entry) if entry.startswith("/") else []
    found: list[str] = []
    for token in [*tokens, *reached]:
        try:
            found_here = _candidates(token)
        except OSError:  # a directory we cannot read ourselves: not ours to show
            continue
        for form in found_here:  # as named, and resolved: the first directory each stands for
            for d in form:
                if d not in refused and _under(d, hidden) and not _under(d, taken):
                    found.append(d)
                    break
    kept = sorted(set(found), key=len)
    out: list[str] = []
    for d in kept:
        if not _under(d, out) and not any(_under(t, [d]) for t in taken):
            out.append(d)
    return tuple(out)


# variables that name a toolchain's home: a toolchain reached only through one (`go` on PATH as a
# link, GOROOT under a 0700 directory) is as needed as one the command names
TOOLCHAIN_HOMES = (
    "GOROOT",
    "JAVA_HOME",
    "MAVEN_HOME",
    "M2_HOME",
    "GRADLE_HOME",
    "CARGO_HOME",
    "RUSTUP_HOME",
    "DOTNET_ROOT",
)


def needed_dirs(
    argv: list[str], taken: Iterable[str], env: Mapping[str, str] | None = None
) -> list[str]:
    """The directories the command itself runs from and, for a Python interpreter, imports from,
    and the toolchain homes its environment names (wherever they are): those uid nobody must be
    able to reach, or the run cannot start."""
    taken = list(taken)
    homes = [(env or {}).get(name, "") for name in TOOLCHAIN_HOMES]
    tokens = [t for t in [*argv, *homes] if t.startswith("/")]
    for token in list(tokens):
        if _INTERPRETER.fullmatch(os.path.basename(token)) and os.access(token, os.X_OK):
            tokens += interpreter_reach(token)
    out = []
    for token in tokens:
        for form in _candidates(token):
            out += [form[0]] if form[0] != "/" and not _under(form[0], taken) else []
    return list(dict.fromkeys(out))


def _lets_in(st: os.stat_result, bits: int) -> bool:
    """Whether the test's uid gets `bits` (of r=4, w=2, x=1) on a file with this stat."""
    if st.st_uid == TEST_UID:
        return (st.st_mode >> 6) & bits == bits
    if st.st_gid == TEST_GID:
        return (st.st_mode >> 3) & bits == bits
    return st.st_mode & bits == bits


def blocked(dirs: Iterable[str], hidden: Iterable[str] = HIDDEN) -> str | None:
    """The first directory that keeps the test's uid (nobody) out of one of `dirs` (an ancestor it
    cannot traverse, or the directory itself it cannot read), or None. Under a hidden root the
    view makes the way itself (a traversable tmpfs), so only what lies outside them counts."""
    hidden = tuple(hidden)
    for d in dirs:
        path = Path(d)
        for p in [path] if _under(d, hidden) else [*reversed(path.parents), path]:
            try:
                st = p.stat()
            except OSError:
                break
            if not _lets_in(st, 5 if p == path else 1):
                return str(p)
    return None
