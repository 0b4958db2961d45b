"""Targets in languages other than Python (`assay generate price/price.go`, `Price.java::discount`):
the file, or named symbols in it. There is no AST here and no coverage run, so nothing is ranked:
the writer sees the file's text (capped) and the names asked for."""

from __future__ import annotations

import re
from pathlib import Path

from assay.errors import InputError
from assay.languages import LANGUAGES, Language, language_of
from assay.project import Project
from assay.targets.model import FunctionTarget, Target

# a typical source file whole; a long one as its head plus the named symbols
MAX_EXCERPT_LINES = 200
SYMBOL_LINES = 60
_DECLARES = (
    r"\b(func|fn|function|class|struct|enum|trait|interface|type|const|let|var|impl|static|public|"
    r"private|protected|export|def)\b.*\b{name}\b"
)


def generated() -> list[str]:
    """The languages `assay generate` writes tests for with a model, besides Python (those that plan
    a file)."""
    return [n for n, lang in LANGUAGES.items() if type(lang).plan_tests is not Language.plan_tests]


def _symbol_line(lines: list[str], name: str) -> int | None:
    """1-based line of the declaration of `name` (or of its first use when no line declares it)."""
    declares = re.compile(_DECLARES.format(name=re.escape(name)))
    word = re.compile(rf"\b{re.escape(name)}\b")
    for pattern in (declares, word):
        for n, line in enumerate(lines, 1):
            if pattern.search(line):
                return n
    return None


def other_target(project: Project, spec: str, names: str, task: str | None) -> Target:
    """One writer job for a non-Python source file (all of it, or the named symbols); InputError for
    a test file, an unknown language, or a name the file does not have."""
    path = Path(spec)
    if not path.is_file():
        raise InputError(f"no such source file: {spec}")
    lang = language_of(path, project.root)
    rel = project.rel(path)
    known = ", ".join(["python", *generated()])
    if lang is None:
        raise InputError(
            f"{spec} is not a source file of a language assay generates tests for ({known})"
        )
    if lang.is_test_file(rel) or "/src/test/" in f"/{rel}":
        raise InputError(f"{spec} is a test file; name the source file it tests")
    if lang.plan_tests(project.root, rel) is None:
        raise InputError(
            f"assay generate does not write {lang.title} tests yet (it does for {known})"
        )
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except UnicodeDecodeError as err:
        raise InputError(f"{spec} is not UTF-8 text (byte {err.start})") from None
    functions = []
    for name in filter(None, names.split(",")):
        line = _symbol_line(lines, name)
        if line is None:
            raise InputError(f"{rel} has no {name!r}")
        functions.append(FunctionTarget(name, line, line))
    return Target(rel, functions, task, "requested", "", lang.name)


def excerpt(project: Project, target: Target) -> str:
    """The source file as the writer sees it: whole up to MAX_EXCERPT_LINES, else its head and a
    window at each named symbol, with what was left out said."""
    lines = (
        (project.root / target.module).read_text(encoding="utf-8", errors="replace").splitlines()
    )
    head = f"// {target.module} ({len(lines)} lines)"
    if len(lines) <= MAX_EXCERPT_LINES:
        return "\n".join([head, *lines]) + "\n"
    out = [head, *lines[:MAX_EXCERPT_LINES]]
    shown = MAX_EXCERPT_LINES
    for f in sorted(target.functions, key=lambda f: f.line):
        if f.line > shown:
            out += [
                f"// ... lines {shown + 1}-{f.line - 1} left out ...",
                *lines[f.line - 1 : f.line - 1 + SYMBOL_LINES],
            ]
            shown = f.line - 1 + SYMBOL_LINES
    if shown < len(lines):
        out.append(f"// ... lines {shown + 1}-{len(lines)} left out ...")
    return "\n".join(out) + "\n"
