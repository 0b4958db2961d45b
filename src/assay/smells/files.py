"""Linting many test files at once: each analysed with the sources of the project modules it
imports, spread over forked workers (one per core) when there are enough files: analysis is
CPU-bound Python."""

from __future__ import annotations

import multiprocessing
import os
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from assay.config.smells import SmellsConfig
from assay.errors import InputError
from assay.project import Project
from assay.smells import Finding, analyze_bytes, read_targets

PARALLEL_FROM = 16  # files per worker below which forking costs more than it saves


def lint_file(path: Path, project: Project, config: SmellsConfig) -> list[Finding]:
    rel = project.rel(path)
    try:
        data = path.read_bytes()
    except OSError as err:
        raise InputError(f"cannot read {rel}: {err.strerror}") from None
    return analyze_bytes(
        data,
        rel,
        lambda imports: read_targets(project.root, project.targets_of(imports, rel)),
        config,
        project.root,
    )


_worker: tuple[Project, SmellsConfig] | None = None  # (project, config) of a forked worker


def _init_worker(project: Project, config: SmellsConfig) -> None:
    global _worker
    _worker = (project, config)


def _lint_in_worker(path: Path) -> list[Finding]:
    assert _worker is not None
    return lint_file(path, *_worker)


def lint_files(files: list[Path], project: Project, config: SmellsConfig) -> list[Finding]:
    """Findings of every file, in file order. A mixin's test inherited by several files is one
    finding at the place it is written, reported once."""
    jobs = min(os.cpu_count() or 1, len(files) // PARALLEL_FROM)
    if jobs < 2 or "fork" not in multiprocessing.get_all_start_methods():
        found = [f for path in files for f in lint_file(path, project, config)]
    else:
        with ProcessPoolExecutor(
            jobs,
            mp_context=multiprocessing.get_context("fork"),
            initializer=_init_worker,
            initargs=(project, config),
        ) as pool:
            found = [f for each in pool.map(_lint_in_worker, files, chunksize=8) for f in each]
    first: dict[tuple[str, str, int, int, str], Finding] = {}
    for f in found:
        first.setdefault((f.rule, f.path, f.line, f.col, f.message), f)
    return list(first.values())
