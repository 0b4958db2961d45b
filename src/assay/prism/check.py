"""`assay prism check`: is every task well formed, and do its panel labels agree with its validator?

Layout and patches are checked by loading (`task.load_task`). When a task has a validator, it runs
as a suite on the whole panel: it must fail on original/, pass on the reference and on every
correct member, and fail on every faulty one. Each member that disagrees is named with what the
validator said.
"""

from __future__ import annotations

from collections.abc import Sequence
from concurrent.futures import Executor
from typing import Any

from assay.config import Settings
from assay.prism.evaluate import usable
from assay.prism.matrix import EventSink, Unit, make_unit, run_units
from assay.prism.model import INVALID, UNVALIDATED, CheckedTask
from assay.prism.task import Task, TaskProblem, load_suite
from assay.store import Store


def _fault(unit: Unit, record: dict[str, Any]) -> str | None:
    role, accepted = unit.member.role, bool(record.get("accepted"))
    if role in ("original", "faulty") and accepted:
        return f"{unit.member.label}: the validator passes on it, but it must fail"
    if role in ("reference", "correct") and not accepted:
        return (
            f"{unit.member.label}: the validator fails on it ({record.get('reason') or 'rejected'})"
        )
    return None


def check_tasks(
    tasks: Sequence[Task],
    settings: Settings,
    executor: Executor,
    store: Store | None,
    on_event: EventSink | None = None,
    reuse: bool = True,
) -> tuple[list[CheckedTask], dict[str, int]]:
    seen: dict[str, str | None] = {}
    checked: list[CheckedTask] = []
    units: dict[int, list[Unit]] = {}
    for i, task in enumerate(tasks):
        result, command = usable(task, settings, seen)
        item = CheckedTask(task.id, str(task.dir), "ok", validator=task.validator is not None)
        checked.append(item)
        if result.status in (INVALID, UNVALIDATED):
            item.status, item.reason = result.status, result.reason
            continue
        if task.validator is None or command is None:
            item.reason = "layout and patches fine; no validator to check the labels against"
            continue
        try:
            suite = load_suite(task.validator)
        except (TaskProblem, OSError) as err:
            item.status, item.reason = INVALID, f"validator: {err}"
            continue
        units[i] = [make_unit(task, m, suite, command, settings, reuse=reuse) for m in task.panel]
    records, stats = run_units([u for us in units.values() for u in us], executor, store, on_event)
    for i, task_units in units.items():
        item = checked[i]
        error = next(
            (
                f"{u.member.label}: {records[u.key]['error']}"
                for u in task_units
                if "error" in records[u.key]
            ),
            None,
        )
        if error:
            item.status, item.reason = "error", error
            continue
        item.faults = [f for u in task_units if (f := _fault(u, records[u.key]))]
        if item.faults:
            item.status = "mislabelled"
            item.reason = f"{len(item.faults)} member(s) disagree with the validator"
        else:
            item.reason = f"the validator agrees with all {len(task_units)} members"
    return checked, stats
