"""The user's project as assay sees it: its root, its importable code, its test files and
their targets. Finding the root and the test files: `discovery`."""

from __future__ import annotations

import ast
import functools
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

from assay.config import Settings, apply_overrides, load_settings
from assay.dependencies import Dependencies
from assay.errors import ConfigError, InputError
from assay.languages import LANGUAGES, language_of
from assay.model import Candidate
from assay.project.discovery import (
    discover,
    find_root,
    is_test_file,
    is_test_path,
    read_source,
    walk,
)
from assay.project.syntax import defined, defines, imported, module_level
from assay.project.vendored import vendored

__all__ = [
    "Project",
    "candidate",
    "discover",
    "find_root",
    "is_test_file",
    "project_root",
    "project_settings",
    "python_sources",
    "read_source",
]


@dataclass
class Project:
    root: Path
    source_roots: list[str] = field(default_factory=list)
    modules: dict[str, str] = field(default_factory=dict)  # dotted name -> project-relative path
    # the test directories' helper modules (not test files, not conftests): dotted name -> path
    helpers: dict[str, str] = field(default_factory=dict)
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
            for path in walk(base, {".py"}):
                rel_to_sr = path.relative_to(base)
                if sr == "." and rel_to_sr.parts[0] == "src" and "src" in roots:
                    continue
                parts = list(rel_to_sr.with_suffix("").parts)
                if parts[-1] == "__init__":
                    parts.pop()
                if not parts or not all(p.isidentifier() for p in parts):
                    continue
                rel = path.relative_to(root).as_posix()
                if not is_test_path(rel_to_sr):
                    proj.modules.setdefault(".".join(parts), rel)
                elif not is_test_file(path.name) and path.name != "conftest.py":
                    proj.helpers.setdefault(".".join(parts), rel)
        return proj

    @cached_property
    def packages(self) -> set[str]:
        """Top-level names of the project's own packages and modules."""
        return {name.split(".")[0] for name in self.modules}

    @cached_property
    def vendored(self) -> dict[str, str]:
        """Modules that are copies of another project (`vendored`): path -> why."""
        return vendored(self.root, self.modules)

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

    def passed_on(self, module: str, name: str) -> bool:
        """Whether `module` (dotted) takes `name` from another module of the project rather than
        defining it (`rfc3986.iri_reference`, from rfc3986.api; not `rfc3986.__version__`)."""
        return self._reexport(module, name) not in (None, module)

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
        stars: list[str] = []  # project modules it takes every public name of, in order
        for node in module_level(tree.body):
            if not isinstance(node, ast.ImportFrom):
                continue
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                source = ".".join([*base, node.module] if node.module else base)
            else:
                source = node.module or ""
            resolved = self._resolve(source)
            if [a.name for a in node.names] == ["*"] and name != "*":
                if resolved == source and resolved != module:  # not a C extension's name
                    stars.append(resolved)
                continue
            alias = next((a for a in node.names if (a.asname or a.name) == name), None)
            if alias is None:
                continue
            sub = self._resolve(f"{source}.{alias.name}")
            if sub and sub != resolved:  # `from pkg import submodule`
                return sub
            if not resolved:  # from a third-party module
                return None
            return self._reexport(resolved, alias.name, seen | {module}) or resolved
        if any(name in defined(node) for node in module_level(tree.body)):
            return None  # its own
        # `from ._impl import *` (frozendict: the pure-Python class when its C extension is absent)
        for star in stars:
            found = self._reexport(star, name, seen | {module})
            tree = self._tree(star)
            if found or (tree and any(name in defined(n) for n in module_level(tree.body))):
                return found or star
        return None

    def targets_of(self, source: str, test_rel: str) -> list[str]:
        """The project's own modules a test file imports (stdlib and third-party left out)."""
        key = (test_rel, source)
        if key not in self._targets:
            self._targets[key] = self._imports_of(source, test_rel)
        return list(self._targets[key])

    def _imports_of(self, source: str, test_rel: str) -> list[str]:
        """`targets_of`, uncached."""
        found: list[str] = []

        def add(module: str | None) -> None:
            if module and self.modules[module] not in found:
                found.append(self.modules[module])

        for module, name in imported(source, test_rel):
            if module in self.helpers or f"{module}.{name}" in self.helpers:
                continue  # the test directory's, not the package its path starts with
            if name is None:
                add(self._resolve(module))
                continue
            sub = self._resolve(f"{module}.{name}")
            if sub and sub != self._resolve(module):
                add(sub)
                continue
            resolved = self._resolve(module)
            if resolved:
                add(self._reexport(resolved, name) or resolved)
        return found

    def closure(self, targets: list[str]) -> list[str]:
        """The targets and every project module they import, transitively (relative imports
        read off each module's dotted name, as a `src/` layout's paths would mislead them)."""
        dotted = {rel: name for name, rel in self.modules.items()}
        seen: set[str] = set()
        todo = list(targets)
        while todo:
            rel = todo.pop()
            if rel in seen:
                continue
            seen.add(rel)
            name = dotted.get(rel)
            as_path = rel
            if name is not None:
                as_path = name.replace(".", "/") + (
                    "/__init__.py" if rel.endswith("__init__.py") else ".py"
                )
            todo.extend(self.targets_of(self._text(rel), as_path))
        return sorted(seen)

    def _text(self, rel: str) -> str:
        try:
            return (self.root / rel).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            return ""

    def helper_of(self, source: str, test_rel: str) -> str | None:
        """A helper module of the test directories that the file imports, or a function or class
        of which it imports, and that imports the project (pyflakes' `test.harness.TestCase`, whose
        `flakes()` runs the checker its tests check): the tests reach the project through it, not
        only through what the file imports itself. Names it only passes on (jmespath's `from
        tests import unittest, OrderedDict`) and an empty `__init__.py` do not count."""
        for module, name in imported(source, test_rel):
            whole = self.helpers.get(f"{module}.{name}" if name else module)
            part = self.helpers.get(module) if name else None
            for rel in (whole, part):
                if not rel or rel == test_rel:
                    continue
                text = self._text(rel)
                if rel == part and not defines(text, str(name)):
                    continue
                if self.targets_of(text, rel):
                    return rel
        return None


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
    from assay.sandbox.ahead import probe_ahead

    settings = apply_overrides(settings or load_settings(root, config), overrides)
    python = settings.python.interpreter
    # the interpreters its sandboxed runs name are asked about meanwhile (`sandbox.ahead`)
    later = functools.partial(probe_ahead, settings.sandbox, python) if python else None
    if runs_tests and python and (problem := interpreter_problem(python, later)):
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
