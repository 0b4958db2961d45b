"""`assay smells`: lint test files for smells and low value (gate 5 on its own, without running anything)."""

from __future__ import annotations

import json
import multiprocessing
import os
from concurrent.futures import ProcessPoolExecutor
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

import typer

from assay.cli import app, usage_error
from assay.config import ConfigError, load_settings
from assay.project import InputError, Project, discover, find_root
from assay.report.sarif import to_sarif
from assay.smells import Finding, analyze_bytes, read_targets

FORMATS = ("text", "json", "sarif")
PARALLEL_FROM = 16  # files per worker below which forking costs more than it saves


def _version() -> str:
    try:
        return version("assay")
    except PackageNotFoundError:
        return "0.0.0"


def _lint_file(path: Path, project: Project, config) -> list[Finding]:
    rel = project.rel(path)
    try:
        data = path.read_bytes()
    except OSError as err:
        raise InputError(f"cannot read {rel}: {err.strerror}") from None
    return analyze_bytes(data, rel, lambda imports: read_targets(project.root, project.targets_of(imports, rel)),
                         config)


_worker: tuple[Project, object] | None = None  # (project, config) of a forked worker


def _init_worker(project: Project, config) -> None:
    global _worker
    _worker = (project, config)


def _lint_in_worker(path: Path) -> list[Finding]:
    assert _worker is not None
    return _lint_file(path, *_worker)


def lint(files: list[Path], project: Project, config) -> list[Finding]:
    """Findings of every file, each analysed with the sources of the project modules it imports.
    Many files are spread over forked workers (one per core): analysis is CPU-bound Python."""
    jobs = min(os.cpu_count() or 1, len(files) // PARALLEL_FROM)
    if jobs < 2 or "fork" not in multiprocessing.get_all_start_methods():
        return [f for path in files for f in _lint_file(path, project, config)]
    with ProcessPoolExecutor(jobs, mp_context=multiprocessing.get_context("fork"), initializer=_init_worker,
                             initargs=(project, config)) as pool:
        return [f for found in pool.map(_lint_in_worker, files, chunksize=8) for f in found]


def _render(findings: list[Finding], fmt: str, files: int, config) -> str:
    if fmt == "sarif":
        return json.dumps(to_sarif(findings, _version(), config), indent=2)
    if fmt == "json":
        counts = {lvl: sum(1 for f in findings if f.level == lvl) for lvl in ("reject", "warn", "info")}
        return json.dumps({"schema": "assay.smells/1", "files": files, "summary": counts,
                           "findings": [f.to_json() for f in findings]}, indent=2)
    return "".join(f"{f.path}:{f.line}:{f.col} {f.rule} {f.text}\n" for f in findings)


@app.command("smells")
def smells(
    paths: list[Path] = typer.Argument(..., help="test files or directories"),
    fmt: str = typer.Option("text", "--format", "-f", help="text | json | sarif"),
    output: Path | None = typer.Option(None, "--output", "-o", help="write the report here instead of stdout"),
    root: Path | None = typer.Option(None, "--root", help="project root (default: found from the first path)"),
    config: Path | None = typer.Option(None, "--config", help="assay.toml or pyproject.toml to read"),
) -> None:
    """Report test smells and low-value tests: `path:line:col RULE-ID message`. Exit 1 on any reject."""
    if fmt not in FORMATS:
        usage_error(f"unknown format '{fmt}' (choose from {', '.join(FORMATS)})")
    try:
        project_root = root.resolve() if root else find_root(paths[0])
        if not project_root.is_dir():
            raise InputError(f"--root {root} is not a directory")
        settings = load_settings(project_root, config)
        files = discover(paths, project_root)
        findings = lint(files, Project.load(project_root), settings.smells)
    except (InputError, ConfigError) as err:
        usage_error(str(err))
    text = _render(findings, fmt, len(files), settings.smells)
    if output is None:
        typer.echo(text, nl=False)
    else:
        try:
            output.write_text(text, encoding="utf-8")
        except OSError as err:
            usage_error(f"cannot write {output}: {err.strerror}")
    raise typer.Exit(1 if any(f.level == "reject" for f in findings) else 0)
