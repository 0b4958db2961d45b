"""The runner matrix: (task, member, suite, run) units through an executor, with SQLite as the
resume point.

A unit's key hashes everything its outcome depends on (the task's original tree and settings, the
member's overlays, the suite's files, the run number, what is measured, the interpreter and sandbox
limits); finished units are stored under it in the `prism` namespace as they complete, so an
interrupted run resumes where it stopped. Errors (the run could not be done at all) are never
stored: they are retried next time.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, Executor, Future, wait
from dataclasses import asdict, dataclass
from typing import Any

from assay.config import Settings
from assay.prism import pycov
from assay.prism.command import CommandPlan
from assay.prism.model import PrismEvent, UnitDone, UnitsPlanned
from assay.prism.task import Member, Task, suite_digest
from assay.prism.worker import RunJob, run_job
from assay.store import Store

NAMESPACE = "prism"
EventSink = Callable[[PrismEvent], None]


@dataclass
class Unit:
    task: Task
    member: Member
    run: int
    job: RunJob
    key: str


def python_of(settings: Settings) -> str:
    import sys

    return settings.python.interpreter or sys.executable


def make_unit(
    task: Task,
    member: Member,
    suite: dict[str, bytes],
    plan: CommandPlan,
    settings: Settings,
    run: int = 0,
    coverage: Sequence[str] = (),
    reuse: bool = True,
    timeout_s: float | None = None,
) -> Unit:
    job = RunJob(
        task_dir=str(task.dir),
        language=task.language,
        member=member.label,
        overlays=dict(member.overlays),
        suite=suite,
        suite_dest=task.suite_dest,
        plan=plan,
        timeout_s=timeout_s or task.timeout_s,
        python=python_of(settings),
        sandbox=settings.sandbox.model_dump(),
        pytest_args=tuple(settings.python.pytest_args),
        source_roots=tuple(pycov.source_roots(task)),
        coverage=tuple(coverage),
        reuse=reuse,
    )
    parts = [
        task.digest,
        member.digest,
        suite_digest(suite),
        run,
        list(coverage),
        asdict(plan),
        job.timeout_s,
        job.python,
        job.sandbox,
        job.pytest_args,
    ]
    key = hashlib.sha256(json.dumps(parts, sort_keys=True, default=str).encode()).hexdigest()[:32]
    return Unit(task, member, run, job, key)


def run_units(
    units: Sequence[Unit],
    executor: Executor,
    store: Store | None,
    on_event: EventSink | None = None,
) -> tuple[dict[str, dict[str, Any]], dict[str, int]]:
    """Records by unit key, and counts (total, cached, executed). Identical units run once."""
    emit = on_event or (lambda _ev: None)
    records: dict[str, dict[str, Any]] = {}
    todo: dict[str, Unit] = {}
    for unit in units:
        if unit.key in records or unit.key in todo:
            continue
        found = store.get(NAMESPACE, unit.key) if store else None
        if found is not None:
            records[unit.key] = {**found, "cached": True}
        else:
            todo[unit.key] = unit
    stats = {"total": len(records) + len(todo), "cached": len(records), "executed": 0}
    emit(UnitsPlanned(stats["total"], stats["cached"]))
    pending: dict[Future, Unit] = {executor.submit(run_job, u.job): u for u in todo.values()}
    try:
        while pending:
            done, _ = wait(pending, return_when=FIRST_COMPLETED)
            for future in done:
                unit = pending.pop(future)
                try:
                    record = future.result()
                # a lost worker fails its units, not the benchmark
                except Exception as err:  # noqa: BLE001
                    record = {"error": f"{type(err).__name__}: {err}".strip()}
                record["cached"] = False
                records[unit.key] = record
                stats["executed"] += 1
                if store is not None and "error" not in record:
                    store.put(NAMESPACE, unit.key, record)
                emit(
                    UnitDone(
                        unit.task.id,
                        unit.member.label,
                        unit.run,
                        record.get("accepted"),
                        record.get("error"),
                    )
                )
    except BaseException:
        for future in pending:
            future.cancel()
        raise
    return records, stats
