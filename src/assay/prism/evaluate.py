"""`assay prism run`: every task's suite on every panel member, then the metrics, coverage and
matrix per task.

Each task becomes units (original once, the reference three times for flakiness, each correct and
faulty member once); the units of all tasks go through one executor together, so a slow task never
idles workers. Change and entry coverage ride on runs that happen anyway: the first reference run
and the original run are measured with coverage.py (Python tasks run by the Python runner; other
tasks report them as not measured).
"""

from __future__ import annotations

from collections.abc import Sequence
from concurrent.futures import Executor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from assay.config import Settings
from assay.languages import LANGUAGES
from assay.prism import pycov
from assay.prism.command import CommandPlan, plan
from assay.prism.matrix import EventSink, Unit, make_unit, run_units
from assay.prism.metrics import task_metrics
from assay.prism.model import ERROR, INVALID, UNVALIDATED, MemberResult, TaskResult
from assay.prism.task import Task, TaskProblem, load_suite
from assay.store import Store

REFERENCE_RUNS = 3


@dataclass
class Prepared:
    task: Task
    result: TaskResult
    units: list[Unit] = field(default_factory=list)
    entries: list[pycov.Entry] = field(default_factory=list)
    measured: bool = False


def toolchain_problem(language: str, settings: Settings, seen: dict[str, str | None]) -> str | None:
    if language not in seen:
        seen[language] = LANGUAGES[language].toolchain_problem(settings)
    return seen[language]


def usable(
    task: Task, settings: Settings, seen: dict[str, str | None]
) -> tuple[TaskResult, CommandPlan | None]:
    """The task's result shell; status invalid / unvalidated when it cannot run, else the
    command plan."""
    result = TaskResult(
        id=task.id, dir=str(task.dir), language=task.language, category=task.category
    )
    if task.problem:
        result.status, result.reason = INVALID, task.problem
        return result, None
    if task.language not in LANGUAGES:
        result.status = INVALID
        result.reason = (
            f"unknown language '{task.language}' (known: {', '.join(sorted(LANGUAGES))})"
        )
        return result, None
    problem = toolchain_problem(task.language, settings, seen)
    if problem:
        result.status, result.reason = UNVALIDATED, problem
        return result, None
    return result, plan(task.language, task.test_command)


def prepare(
    task: Task, suite_dir: Path, settings: Settings, seen: dict[str, str | None], reuse: bool = True
) -> Prepared:
    result, command = usable(task, settings, seen)
    result.suite = str(suite_dir)
    prepared = Prepared(task, result)
    if command is None:
        return prepared
    try:
        suite = load_suite(suite_dir)
    except (TaskProblem, OSError) as err:
        result.status, result.reason = INVALID, str(err)
        return prepared
    on_reference: list[str] = []
    on_original: list[str] = []
    if task.language == "python" and command.kind == "runner":
        try:
            prepared.entries = pycov.entries(task)
        except ValueError as err:
            result.status, result.reason = INVALID, str(err)
            return prepared
        on_reference, on_original = pycov.measured_files(task, prepared.entries)
        prepared.measured = True
    assert task.reference is not None
    for member in task.panel:
        if member.role == "original":
            prepared.units.append(
                make_unit(task, member, suite, command, settings, 0, on_original, reuse)
            )
        elif member.role == "reference":
            prepared.units += [
                make_unit(
                    task, member, suite, command, settings, n, on_reference if n == 0 else (), reuse
                )
                for n in range(REFERENCE_RUNS)
            ]
        else:
            prepared.units.append(make_unit(task, member, suite, command, settings, 0, (), reuse))
    return prepared


def _member(unit: Unit, record: dict[str, Any]) -> MemberResult:
    worker = f"{record.get('host', '?')}:{record.get('pid', '?')}"
    return MemberResult(
        name=unit.member.label,
        role=unit.member.role,
        accepted=bool(record.get("accepted")),
        reason=record.get("reason", ""),
        ran=record.get("ran"),
        tests=record.get("tests", {}),
        messages=record.get("messages", {}),
        duration_s=record.get("duration_s", 0.0),
        cached=record.get("cached", False),
        worker=worker,
    )


def assemble(prepared: Prepared, records: dict[str, dict[str, Any]]) -> TaskResult:
    """Metrics, flakiness, coverage and members of one task from its units' records."""
    result, task = prepared.result, prepared.task
    if not prepared.units:
        return result
    failed = next(((u, records[u.key]) for u in prepared.units if "error" in records[u.key]), None)
    if failed:
        result.status, result.reason = ERROR, f"{failed[0].member.label}: {failed[1]['error']}"
        return result
    reference_runs = [(u, records[u.key]) for u in prepared.units if u.member.role == "reference"]
    for unit in prepared.units:
        if unit.member.role != "reference" or unit.run == 0:
            result.members.append(_member(unit, records[unit.key]))
    reference = next(m for m in result.members if m.role == "reference")
    reference.runs = [bool(r.get("accepted")) for _, r in reference_runs]
    outcomes = [r.get("tests", {}) for _, r in reference_runs]
    ids = set().union(*outcomes)
    result.flaky_tests = sorted(t for t in ids if len({o.get(t, "not run") for o in outcomes}) > 1)
    result.flaky = len(set(reference.runs)) > 1 or bool(result.flaky_tests)
    by_role = {
        role: [m for m in result.members if m.role == role]
        for role in ("original", "correct", "faulty")
    }
    result.metrics = task_metrics(
        fails_original=not by_role["original"][0].accepted,
        reference_accepted=reference.accepted and all(reference.runs),
        correct_accepted=[m.accepted for m in by_role["correct"]],
        faulty_rejected=[not m.accepted for m in by_role["faulty"]],
        flaky=result.flaky,
    )
    if prepared.measured:
        original_unit = next(u for u in prepared.units if u.member.role == "original")
        on_reference = reference_runs[0][1].get("coverage")
        result.change_coverage = pycov.change_coverage(
            task, on_reference, records[original_unit.key].get("coverage")
        )
        result.entry_coverage = pycov.entry_coverage(task, prepared.entries, on_reference)
    return result


def evaluate(
    pairs: Sequence[tuple[Task, Path]],
    settings: Settings,
    executor: Executor,
    store: Store | None,
    on_event: EventSink | None = None,
    reuse: bool = True,
) -> tuple[list[TaskResult], dict[str, int]]:
    """Every (task, suite dir) pair through one executor; results in the order given."""
    seen: dict[str, str | None] = {}
    prepared = [prepare(task, suite, settings, seen, reuse) for task, suite in pairs]
    records, stats = run_units([u for p in prepared for u in p.units], executor, store, on_event)
    return [assemble(p, records) for p in prepared], stats
