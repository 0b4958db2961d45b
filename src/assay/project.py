"""The user's project as assay sees it: its root, its importable code, its test files and
their targets."""

from __future__ import annotations

import ast
import os
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

from assay.config import Settings, apply_overrides, load_settings
from assay.dependencies import Dependencies
from assay.errors import ConfigError, InputError
from assay.execution.workspace import SKIP_DIRS
from assay.languages import LANGUAGES, Language, language_of
from assay.languages.pytest_ini import ignored, ignores
from assay.model import Candidate

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


def _walk(base: Path, extensions: set[str]) -> Iterator[Path]:
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


def _is_test_path(rel: Path) -> bool:
    return (
        is_test_file(rel.name)
        or rel.name == "conftest.py"
        or any(p in ("tests", "test", "testing") for p in rel.parts[:-1])
    )


@dataclass
class Project:
    root: Path
    source_roots: list[str] = field(default_factory=list)
    modules: dict[str, str] = field(default_factory=dict)  # dotted name -> project-relative path
    # parsed once per run: every test file's cache key follows the imports of every module its
    # targets reach, each name through the modules that pass it on (glom: 20 test files over
    # a 2,500-line core.py parsed for every name imported from it took minutes, in silence)
    _trees: dict[str, ast.Module | None] = field(default_factory=dict, repr=False, compare=False)
    _found: dict[tuple[str, str], str | None] = field(
        default_factory=dict, repr=False, compare=False
    )
    _targets: dict[tuple[str, str], list[str]] = field(
        default_factory=dict, repr=False, compare=False
    )

    @classmethod
    def load(cls, root: Path) -> Project:
        root = root.resolve()
        roots = ["src"] if (root / "src").is_dir() else []
        roots.append(".")
        proj = cls(root=root, source_roots=roots)
        for sr in roots:
            base = root / sr
            for path in _walk(base, {".py"}):
                rel_to_sr = path.relative_to(base)
                if sr == "." and rel_to_sr.parts[0] == "src" and "src" in roots:
                    continue
                if _is_test_path(rel_to_sr):
                    continue
                parts = list(rel_to_sr.with_suffix("").parts)
                if parts[-1] == "__init__":
                    parts.pop()
                if parts and all(p.isidentifier() for p in parts):
                    proj.modules.setdefault(".".join(parts), path.relative_to(root).as_posix())
        return proj

    @cached_property
    def packages(self) -> set[str]:
        """Top-level names of the project's own packages and modules."""
        return {name.split(".")[0] for name in self.modules}

    @cached_property
    def dependencies(self) -> Dependencies:
        return Dependencies(
            self.root, list(self.modules.values()), {m.split(".")[0] for m in self.modules}
        )

    def rel(self, path: Path) -> str:
        """Project-relative posix path; InputError when `path` lies outside the project."""
        try:
            return path.resolve().relative_to(self.root).as_posix()
        except ValueError:
            raise InputError(f"{path} is outside the project root {self.root}") from None

    def _resolve(self, dotted: str) -> str | None:
        parts = dotted.split(".")
        while parts:
            name = ".".join(parts)
            if name in self.modules:
                return name
            parts.pop()
        return None

    def _reexport(self, module: str, name: str, seen: frozenset[str] = frozenset()) -> str | None:
        """The project module that defines `name`, for `from module import name` where `module` (a
        package's __init__ or any module) imports it from another: followed through every module
        that only passes it on (uritemplate: __init__ -> api -> template), or None."""
        if module in seen:
            return None
        if not seen and (module, name) in self._found:
            return self._found[module, name]
        found = self._passed_on(module, name, seen)
        if not seen:
            self._found[module, name] = found
        return found

    def _tree(self, module: str) -> ast.Module | None:
        """A project module's syntax tree, parsed once (None: it does not parse)."""
        if module not in self._trees:
            try:
                text = (self.root / self.modules[module]).read_text(encoding="utf-8")
                self._trees[module] = ast.parse(text)
            except (SyntaxError, ValueError, UnicodeDecodeError, OSError):
                self._trees[module] = None
        return self._trees[module]

    def _passed_on(self, module: str, name: str, seen: frozenset[str]) -> str | None:
        """`_reexport`'s search in `module`, uncached."""
        tree = self._tree(module)
        if tree is None:
            return None
        path = self.root / self.modules[module]
        package = module if path.name == "__init__.py" else module.rpartition(".")[0]
        for node in tree.body:
            alias = next(
                (a for a in getattr(node, "names", ()) if (a.asname or a.name) == name), None
            )
            if not isinstance(node, ast.ImportFrom) or alias is None:
                continue
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                source = ".".join([*base, node.module] if node.module else base)
            else:
                source = node.module or ""
            resolved = self._resolve(source)
            sub = self._resolve(f"{source}.{alias.name}")
            if sub and sub != resolved:  # `from pkg import submodule`
                return sub
            if not resolved:  # from a third-party module
                return None
            return self._reexport(resolved, alias.name, seen | {module}) or resolved
        return None

    def targets_of(self, source: str, test_rel: str) -> list[str]:
        """The project's own modules a test file imports (stdlib and third-party left out)."""
        key = (test_rel, source)
        if key not in self._targets:
            self._targets[key] = self._imports_of(source, test_rel)
        return list(self._targets[key])

    def _imports_of(self, source: str, test_rel: str) -> list[str]:
        """`targets_of`, uncached."""
        try:
            tree = ast.parse(source)
        except SyntaxError:
            return []
        package = list(Path(test_rel).with_suffix("").parts[:-1])
        found: list[str] = []

        def add(module: str | None) -> None:
            if module and self.modules[module] not in found:
                found.append(self.modules[module])

        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    add(self._resolve(alias.name))
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = package[: len(package) - node.level + 1] if node.level > 1 else package
                    module = ".".join([*base, node.module] if node.module else base)
                else:
                    module = node.module or ""
                for alias in node.names:
                    sub = self._resolve(f"{module}.{alias.name}")
                    if sub and sub != self._resolve(module):
                        add(sub)
                        continue
                    resolved = self._resolve(module)
                    if resolved:
                        add(self._reexport(resolved, alias.name) or resolved)
        return found


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
                for f in _walk(rp, {e for lang in langs for e in lang.extensions})
                if any(lang.is_test_file(f.relative_to(root).as_posix()) for lang in langs)
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
    for f in sorted(_walk(rp, {".py"})):
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


def candidate(
    project: Project,
    rel: str,
    source: str,
    language: str | None = None,
    targets: Sequence[str] | None = None,
) -> Candidate:
    """A candidate test file that exists only in memory (a writer's attempt), as
    `verify(candidates=...)` takes it.

    Language from the file name unless given; targets from its imports unless given."""
    lang = LANGUAGES[language] if language else language_of(rel, project.root)
    if lang is None:
        raise InputError(f"{rel}: no known language for this file name")
    found = list(targets) if targets is not None else lang.targets_of(project, source, rel)
    return Candidate(path=None, rel=rel, source=source, language=lang.name, targets=found)


def python_sources(project: Project, paths: Sequence[Path]) -> list[str]:
    """The project's Python source files (not tests) under `paths`, project-relative: what `mutate`
    mutates and the offline writer writes tests for. InputError for anything else."""
    found: list[str] = []
    for p in paths:
        if not p.exists():
            raise InputError(f"no such file or directory: {p}")
        rel = project.rel(p)
        if p.is_dir():
            found += sorted(
                path
                for path in project.modules.values()
                if rel == "." or path == rel or path.startswith(rel.rstrip("/") + "/")
            )
        elif p.suffix != ".py":
            raise InputError(f"{p} is not a Python source file (.py)")
        elif is_test_file(p.name):
            raise InputError(f"{p} is a test file; pass it with --tests")
        else:
            found.append(rel)
    found = list(dict.fromkeys(found))
    if not found:
        raise InputError("no Python source files to mutate under the given paths")
    for rel in found:
        try:
            (project.root / rel).read_text(encoding="utf-8")
        except UnicodeDecodeError as err:
            raise InputError(f"{rel} is not UTF-8 text (byte {err.start})") from None
    return found


def project_settings(
    root: Path,
    settings: Settings | None = None,
    config: Path | None = None,
    overrides: dict[str, Any] | None = None,
    runs_tests: bool = True,
) -> Settings:
    """The project's settings (or the caller's) with overrides; a configured interpreter that
    cannot run pytest is a configuration error (exit 2), never a verdict on a test. A command that
    runs no test (`runs_tests=False`: smells) does not start it to ask."""
    from assay.dependencies.pytest_check import interpreter_problem

    settings = apply_overrides(settings or load_settings(root, config), overrides)
    if (
        runs_tests
        and settings.python.interpreter
        and (problem := interpreter_problem(settings.python.interpreter))
    ):
        raise ConfigError(f"[tool.assay.python] interpreter: {problem}")
    return settings


def project_root(paths: Sequence[Path | str], root: Path | str | None) -> Path:
    """The root the command works in: `root`, or the one holding the first path; bad input if
    a path is missing or nothing is given."""
    if root is None and not paths:
        raise InputError("no paths given")
    missing = [p for p in paths if not Path(p).exists()]
    if missing:
        raise InputError(f"no such file or directory: {missing[0]}")
    found = Path(root).resolve() if root is not None else find_root(Path(paths[0]))
    if not found.is_dir():
        raise InputError(f"project root {found} is not a directory")
    return found
