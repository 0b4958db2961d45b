"""Where the user's project and its test files are: the root above a path, the test files under a
directory (as pytest collects them, less what the project's configuration ignores), and a test
file's text."""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Iterator
from pathlib import Path

from assay.errors import InputError
from assay.execution.workspace import SKIP_DIRS
from assay.languages import LANGUAGES, Language
from assay.languages.pytest_ini import ignored, ignores

ROOT_MARKERS = ("pyproject.toml", "setup.cfg", "setup.py", ".git")
# Build files of other languages: the nearest one marks a module; the outermost directory above it
# (inside the repository) with a build file of the same name is the project (a Maven parent, a Cargo
# or npm workspace).
BUILD_MARKERS = (
    "assay.toml",
    "go.mod",
    "go.work",
    "Cargo.toml",
    "pom.xml",
    "build.gradle",
    "build.gradle.kts",
    "settings.gradle",
    "settings.gradle.kts",
    "package.json",
    "*.csproj",
    "*.sln",
)
MAX_TEST_FILE_BYTES = 2 * 1024 * 1024


def _has(d: Path, marker: str) -> bool:
    return any(d.glob(marker)) if "*" in marker else (d / marker).exists()


def find_root(start: Path) -> Path:
    """Walk up from `start` to the nearest directory holding a project marker; for another
    language's build file, on to the outermost directory of the repository that holds the same kind
    of build file."""
    start = start.resolve()
    here = start if start.is_dir() else start.parent
    for d in (here, *here.parents):
        if any((d / m).exists() for m in ROOT_MARKERS):
            return d
        found = [m for m in BUILD_MARKERS if _has(d, m)]
        if found:
            root = d
            for up in d.parents:
                if any(_has(up, m) for m in found) or _has(up, "assay.toml"):
                    root = up
                if (up / ".git").exists():
                    break
            return root
    markers = ", ".join((*ROOT_MARKERS, *BUILD_MARKERS))
    raise InputError(f"no project root above {start} (none of {markers}); pass --root")


def is_test_file(name: str) -> bool:
    return name.endswith(".py") and (name.startswith("test_") or name.endswith("_test.py"))


def walk(base: Path, extensions: set[str]) -> Iterator[Path]:
    """Files with one of `extensions` below `base`, outside build, VCS and virtualenv
    directories."""
    for dirpath, dirnames, filenames in os.walk(base):
        dirnames[:] = [
            d
            for d in dirnames
            if d not in SKIP_DIRS
            and not d.endswith(".egg-info")
            and not os.path.exists(os.path.join(dirpath, d, "pyvenv.cfg"))
        ]
        for name in filenames:
            if os.path.splitext(name)[1] in extensions:
                yield Path(dirpath) / name


def is_test_path(rel: Path) -> bool:
    return (
        is_test_file(rel.name)
        or rel.name == "conftest.py"
        or any(p in ("tests", "test", "testing") for p in rel.parts[:-1])
    )


def _taken(lang: Language, root: Path, f: Path) -> bool:
    """A test file of `lang`: by its runner's spec where the runner names its files, else by
    its name."""
    spec = lang.runner_spec(root, f)
    return lang.is_test_file(f.relative_to(root).as_posix()) if spec is None else spec


def discover(
    paths: list[Path], root: Path, languages: Iterable[Language] | None = None
) -> list[Path]:
    """Candidate test files under `paths` (of the given languages, default every known one);
    InputError for anything that is not usable input."""

    langs = list(languages or LANGUAGES.values())
    files: list[Path] = []
    for p in paths:
        if not p.exists():
            raise InputError(f"no such file or directory: {p}")
        rp = p.resolve()
        if rp != root and root not in rp.parents:
            raise InputError(f"{p} is outside the project root {root}")
        if p.is_dir():
            named = sorted(
                f
                for f in walk(rp, {e for lang in langs for e in lang.extensions})
                if any(_taken(lang, root, f) and lang.runs_alone(f) for lang in langs)
            )
            # what the project's pytest configuration ignores (`--ignore` in addopts), pytest does
            rules = ignores(root)
            found = [f for f in named if f.suffix != ".py" or not ignored(f, rules)]
            if not found:
                raise InputError(_none_found(p, rp, root, langs, len(named)))
            files.extend(found)
        elif not any(lang.owns(p.name) for lang in langs):
            first, *others = langs
            exts = ", ".join(first.extensions)
            more = f", nor {', '.join(lang.title for lang in others)}" if others else ""
            raise InputError(f"{p} is not a {first.title} test file ({exts}){more}")
        else:
            size = p.stat().st_size
            if size > MAX_TEST_FILE_BYTES:
                raise InputError(
                    f"{p} is {size // 1024} KiB; test files over {MAX_TEST_FILE_BYTES // 1024} KiB "
                    "are refused"
                )
            files.append(rp)
    return list(dict.fromkeys(files))


TESTS_INSIDE = re.compile(r"^\s*(def test|class Test|class \w+\(.*TestCase\))", re.MULTILINE)


def _none_found(p: Path, rp: Path, root: Path, langs: list[Language], ignored: int) -> str:
    """Why a directory gave no test file: the names assay (and pytest) look for, the files
    the project's pytest configuration ignores, and Python files that hold tests under other
    names (pytimeparse's `testtimeparse.py`), to name on the command line."""
    globs = ", ".join(g for lang in langs for g in lang.test_globs)
    said = f"no test files ({globs}) under {p}"
    if ignored:
        said += f"; {ignored} ignored by the project's pytest configuration (--ignore in addopts)"
    others = []
    for f in sorted(walk(rp, {".py"})):
        try:
            if TESTS_INSIDE.search(f.read_text(encoding="utf-8", errors="replace")):
                others.append(f.relative_to(root).as_posix())
        except OSError:
            continue
    if others:
        shown = " ".join(others[:5]) + (" ..." if len(others) > 5 else "")
        said += (
            f"; these files hold tests under other names (pytest does not collect them by default"
            f" either): name them on the command line: assay verify {shown}"
        )
    return said


def read_source(path: Path) -> str:
    """A test file's text; InputError for binary, non-UTF-8 or empty files."""
    data = path.read_bytes()
    if not data.strip():
        raise InputError(f"{path} is empty")
    if b"\0" in data:
        raise InputError(f"{path} is a binary file, not source code")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        raise InputError(f"{path} is not UTF-8 text (byte {err.start})") from None
