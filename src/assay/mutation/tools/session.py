"""`assay mutate` outside Python: the language's tool on a scratch copy of the project, scoped to
the given source files and test files; the same `MutateReport` and report formats as Python's."""

from __future__ import annotations

import os
from pathlib import Path

from assay.config import Settings
from assay.errors import InputError, RunFailed
from assay.execution.workspace import SKIP_DIRS, Workspace
from assay.languages import Language
from assay.mutation.codeclass import threshold_for
from assay.mutation.summary import MutateReport
from assay.mutation.tools import REGISTRY, ToolRequest
from assay.project import Project
from assay.sandbox import Sandbox


def files_of(project: Project, language: Language, paths: list[Path], tests: bool) -> list[str]:
    """Project-relative files of `language` under `paths`: its test files, or its sources."""
    out: list[str] = []
    for p in paths:
        if not p.exists():
            raise InputError(f"no such file or directory: {p}")
        found = [p] if p.is_file() else _walk(p)
        for f in found:
            rel = project.rel(f)
            if language.owns(rel) and language.is_test_file(rel) == tests:
                out.append(rel)
    if not out:
        what = "test files" if tests else "source files"
        raise InputError(f"no {language.title} {what} in {', '.join(map(str, paths))}")
    return out


def _walk(base: Path) -> list[Path]:
    out = []
    for dirpath, dirnames, filenames in os.walk(base):
        dirnames[:] = sorted(d for d in dirnames if d not in SKIP_DIRS and not d.startswith("."))
        out += [Path(dirpath, n) for n in sorted(filenames)]
    return out


def mutate(
    project: Project,
    settings: Settings,
    language: Language,
    paths: list[Path],
    tests: list[Path],
    threshold: float | None,
) -> MutateReport:
    """One run of the language's tool; RunFailed (one line) when it is missing or gives nothing."""
    tool = REGISTRY.get(language.name)
    if tool is None:
        raise InputError(f"mutation testing is not available for {language.title} yet")
    if not tests:
        raise InputError("no tests given: pass --tests <test file or directory>")
    targets = files_of(project, language, paths, tests=False)
    test_files = files_of(project, language, tests, tests=True)
    profile = language.profile_for(project)
    with Workspace(project.root, links=profile.links, keep=profile.keep) as ws:
        request = ToolRequest(
            root=ws.project,
            project=project,
            settings=settings,
            sandbox=Sandbox(settings.sandbox, protect=project.root),
            tests=tuple(test_files),
            targets=tuple(targets),
            timeout_s=max(settings.sandbox.timeout_s, 1800),
            workspace=ws,
        )
        problem = tool.unavailable(request) or tool.problem(request)
        if problem is not None:
            raise RunFailed(f"{tool.name}: {problem}")
        run = tool.run(request)
    code_class, limit = threshold_for(run.sources, settings.mutation, project.packages)
    return MutateReport(run, threshold if threshold is not None else limit, code_class)
