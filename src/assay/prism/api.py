"""Library functions of `assay prism` (re-exported by `assay.api`): run, check, build.

Results persist in `<state>/.assay/assay.db` (default: the current directory), never in the benchmark; a
benchmark may be read-only. `executor` is "local" (processes, `workers` of them), "dask" (a cluster at
`scheduler`) or any `concurrent.futures.Executor`.
"""

from __future__ import annotations

import time
from concurrent.futures import Executor
from pathlib import Path

from assay.config import Settings, load_settings
from assay.errors import InputError
from assay.execution.workspace import sweep_stale
from assay.prism.build import build_faulty
from assay.prism.check import check_tasks
from assay.prism.evaluate import evaluate
from assay.prism.executors import open_executor
from assay.prism.matrix import EventSink
from assay.prism.model import BuildReport, CheckReport, PrismReport
from assay.prism.task import Task, is_task, load_task, task_dirs
from assay.store import Store

__all__ = ["prism_build", "prism_check", "prism_run"]


def _tasks(path: Path) -> list[Task]:
    """The task at `path`, or every task of the benchmark at `path`; duplicate ids are invalid."""
    if not path.is_dir():
        raise InputError(f"no such benchmark or task directory: {path}")
    if is_task(path):
        return [load_task(path)]
    dirs = task_dirs(path)
    if not dirs:
        raise InputError(f"{path} holds no tasks (a task is a directory with a task.toml)")
    tasks: list[Task] = []
    seen: dict[str, Path] = {}
    for d in dirs:
        task = load_task(d)
        if task.problem is None and task.id in seen:
            task.problem = f"duplicate task id '{task.id}' (also {seen[task.id].name}/)"
        seen.setdefault(task.id, d)
        tasks.append(task)
    return tasks


def _store(settings: Settings, state: Path | str | None, use_cache: bool) -> Store | None:
    if not (use_cache and settings.cache):
        return None
    root = Path(state).resolve() if state is not None else Path.cwd()
    try:
        root.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise InputError(f"cannot create the state directory {root}: {err.strerror}") from None
    return Store(root)


def prism_run(path: Path | str, suites: Path | str | None = None, *, suite: Path | str | None = None,
              settings: Settings | None = None, executor: str | Executor = "local", workers: int | None = None,
              scheduler: str | None = None, state: Path | str | None = None, use_cache: bool = True,
              reuse: bool = True, on_event: EventSink | None = None) -> PrismReport:
    """Judge suites against the panels: `path` a benchmark with `suites` (SUITES/<task-id>/ per task), or one
    task with `suite` (a directory of test files)."""
    start = time.monotonic()
    path = Path(path).resolve()
    single = path.is_dir() and is_task(path)
    if single and suite is None:
        raise InputError(f"{path} is a task: give its suite with --suite DIR")
    if not single and suites is None:
        raise InputError(f"{path} is a benchmark: give the suites with --suites DIR (one SUITES/<task-id>/ each)")
    if single and suites is not None:
        raise InputError("a single task takes --suite DIR, not --suites")
    tasks = _tasks(path)
    if suites is not None and not Path(suites).is_dir():
        raise InputError(f"no such suites directory: {suites}")
    suites_path = Path(suites if suites is not None else suite).resolve()  # type: ignore[arg-type]
    pairs = [(t, suites_path if single else suites_path / t.id) for t in tasks]
    settings = settings or load_settings(path)
    sweep_stale()
    store = _store(settings, state, use_cache)
    try:
        with open_executor(executor, workers, scheduler) as (pool, described):
            results, stats = evaluate(pairs, settings, pool, store, on_event, reuse)
    finally:
        if store is not None:
            store.close()
    notes = [store.problem] if store is not None and store.problem else []
    report = PrismReport(str(path), str(suites_path), results, described, stats, time.monotonic() - start, notes)
    return report


def prism_check(path: Path | str, *, settings: Settings | None = None, executor: str | Executor = "local",
                workers: int | None = None, scheduler: str | None = None, state: Path | str | None = None,
                use_cache: bool = True, on_event: EventSink | None = None) -> CheckReport:
    """Validate every task of a benchmark (or one task): layout, patches, and panel labels vs. the validator."""
    start = time.monotonic()
    path = Path(path).resolve()
    tasks = _tasks(path)
    settings = settings or load_settings(path)
    sweep_stale()
    store = _store(settings, state, use_cache)
    try:
        with open_executor(executor, workers, scheduler) as (pool, _):
            checked, stats = check_tasks(tasks, settings, pool, store, on_event)
    finally:
        if store is not None:
            store.close()
    return CheckReport(str(path), checked, stats, time.monotonic() - start)


def prism_build(path: Path | str, faulty_from_mutants: int, *, settings: Settings | None = None,
                executor: str | Executor = "local", workers: int | None = None, scheduler: str | None = None,
                state: Path | str | None = None, use_cache: bool = True, limit: int | None = None,
                on_event: EventSink | None = None) -> BuildReport:
    """Add faulty members made from validator-killed mutants of the reference's change to one task."""
    start = time.monotonic()
    path = Path(path).resolve()
    if not (path.is_dir() and is_task(path)):
        raise InputError(f"{path} is not a task directory (no task.toml)")
    task = load_task(path)
    if task.problem:
        raise InputError(f"{task.id}: {task.problem}")
    settings = settings or load_settings(path)
    sweep_stale()
    store = _store(settings, state, use_cache)
    try:
        with open_executor(executor, workers, scheduler) as (pool, _):
            report = build_faulty(task, faulty_from_mutants, settings, pool, store, on_event, limit=limit)
    finally:
        if store is not None:
            store.close()
    report.duration_s = time.monotonic() - start
    return report
