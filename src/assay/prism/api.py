"""Library functions of `assay prism` (re-exported by `assay.api`): run, check, build.

Results persist in `<state>/.assay/assay.db` (default: the current directory), never in the
benchmark; a benchmark may be read-only. `executor` is "local" (processes, `workers` of them),
"dask" (a cluster at `scheduler`) or any `concurrent.futures.Executor`.
"""

from __future__ import annotations

import time
from concurrent.futures import Executor
from pathlib import Path
from typing import Any

from assay.config import Settings, load_settings
from assay.errors import InputError
from assay.execution.executor import open_executor
from assay.execution.workspace import sweep_stale
from assay.prism.build import build_faulty
from assay.prism.check import check_tasks
from assay.prism.evaluate import evaluate
from assay.prism.matrix import EventSink
from assay.prism.model import BuildReport, CheckReport, PrismReport
from assay.prism.task import Task, is_task, load_task, task_dirs
from assay.prism.writer import write_suites
from assay.store import Store

__all__ = ["prism_build", "prism_check", "prism_run"]
# the module of the unit (`run_job`), imported once by the local forkserver
PRELOAD = ("assay.prism.worker",)


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


def prism_run(
    path: Path | str,
    suites: Path | str | None = None,
    *,
    suite: Path | str | None = None,
    settings: Settings | None = None,
    executor: str | Executor = "local",
    workers: int | None = None,
    scheduler: str | None = None,
    state: Path | str | None = None,
    use_cache: bool = True,
    reuse: bool = True,
    on_event: EventSink | None = None,
    writer: str | None = None,
    out: Path | str | None = None,
) -> PrismReport:
    """Judge suites against the panels: `path` a benchmark with `suites` (SUITES/<task-id>/ per
    task), or one task with `suite` (a directory of test files). With `writer` (`provider:model`)
    the suites are written first, into `out`, from each task's instruction and original tree, and
    the report says what each cost."""
    start = time.monotonic()
    path = Path(path).resolve()
    if writer is not None:
        return _written_run(
            path,
            writer,
            out,
            settings=settings,
            executor=executor,
            workers=workers,
            scheduler=scheduler,
            state=state,
            use_cache=use_cache,
            reuse=reuse,
            on_event=on_event,
        )
    single = path.is_dir() and is_task(path)
    if single and suite is None:
        raise InputError(f"{path} is a task: give its suite with --suite DIR")
    if not single and suites is None:
        raise InputError(
            f"{path} is a benchmark: give the suites with --suites DIR (one SUITES/<task-id>/ each)"
        )
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
        with open_executor(executor, workers, scheduler, preload=PRELOAD) as pool:
            results, stats = evaluate(pairs, settings, pool, store, on_event, reuse)
        described = pool.info.to_json()
    finally:
        if store is not None:
            store.close()
    notes = [store.problem] if store is not None and store.problem else []
    report = PrismReport(
        str(path), str(suites_path), results, described, stats, time.monotonic() - start, notes
    )
    return report


def _written_run(
    path: Path, writer: str, out: Path | str | None, *, settings: Settings | None, **run: Any
) -> PrismReport:
    """`prism_run` with suites written by `writer` into `out` (which must not hold suites already: a
    writer's suites are never mixed with others)."""
    start = time.monotonic()
    if out is None:
        raise InputError("--writer needs --out DIR: where the written suites are kept")
    out = Path(out).resolve()
    if out.exists() and any(out.iterdir()):
        raise InputError(f"{out} is not empty: give the written suites a directory of their own")
    tasks = _tasks(path)
    settings = settings or load_settings(path)
    store = _store(settings, run.get("state"), bool(run.get("use_cache", True)))
    try:
        written = write_suites(
            tasks, writer, out, settings, store, bool(run.get("use_cache", True))
        )
    finally:
        if store is not None:
            store.close()
    out.mkdir(parents=True, exist_ok=True)
    single = is_task(path)
    only = out / tasks[0].id if single else None
    if only is not None:
        only.mkdir(exist_ok=True)
    report = prism_run(path, None if single else out, suite=only, settings=settings, **run)
    for t in report.tasks:
        if (w := written.get(t.id)) is not None:
            t.writer = w.to_json()
            if w.problem and not t.evaluated:
                t.reason = f"writer: {w.problem}"
    total = sum(w.tokens for w in written.values())
    report.notes.append(
        f"suites written by {writer} into {out}: "
        f"{sum(w.suite is not None for w in written.values())}"
        f" of {len(written)} tasks, {total:,} tokens ({total / max(len(written), 1):,.0f} per task)"
    )
    report.duration_s = time.monotonic() - start
    return report


def prism_check(
    path: Path | str,
    *,
    settings: Settings | None = None,
    executor: str | Executor = "local",
    workers: int | None = None,
    scheduler: str | None = None,
    state: Path | str | None = None,
    use_cache: bool = True,
    on_event: EventSink | None = None,
) -> CheckReport:
    """Validate every task of a benchmark (or one task): layout, patches, and panel labels vs.
    the validator."""
    start = time.monotonic()
    path = Path(path).resolve()
    tasks = _tasks(path)
    settings = settings or load_settings(path)
    sweep_stale()
    store = _store(settings, state, use_cache)
    try:
        with open_executor(executor, workers, scheduler, preload=PRELOAD) as pool:
            checked, stats = check_tasks(tasks, settings, pool, store, on_event)
    finally:
        if store is not None:
            store.close()
    return CheckReport(str(path), checked, stats, time.monotonic() - start)


def prism_build(
    path: Path | str,
    faulty_from_mutants: int,
    *,
    settings: Settings | None = None,
    executor: str | Executor = "local",
    workers: int | None = None,
    scheduler: str | None = None,
    state: Path | str | None = None,
    use_cache: bool = True,
    limit: int | None = None,
    on_event: EventSink | None = None,
) -> BuildReport:
    """Add faulty members made from validator-killed mutants of the reference's change to
    one task."""
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
        with open_executor(executor, workers, scheduler, preload=PRELOAD) as pool:
            report = build_faulty(
                task, faulty_from_mutants, settings, pool, store, on_event, limit=limit
            )
    finally:
        if store is not None:
            store.close()
    report.duration_s = time.monotonic() - start
    return report
