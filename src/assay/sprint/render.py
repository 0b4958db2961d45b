"""Text and JSON views of `assay tasks` and of a sprint run (`assay generate --sprint`)."""

from __future__ import annotations

import json
from collections import Counter
from typing import TYPE_CHECKING

from assay.sprint.model import TasksReport
from assay.words import counted

if TYPE_CHECKING:
    from assay.sprint.run import SprintReport


def tasks_text(report: TasksReport) -> str:
    lines = [f"sprint {report.sprint} ({report.tracker}): {counted(len(report.tasks), 'task')}"]
    for t in report.tasks:
        lines.append(f"  {t.task.id:<10} {t.task_class.value:<12} {t.task.title}")
        lines.append(f"  {'':<10} {'':<12} why: {t.reason}")
        if t.commits:
            lines.append(
                f"  {'':<10} {'':<12} {counted(len(t.commits), 'commit')}, "
                f"{counted(len(t.files), 'file')}"
            )
        for target in t.targets[:5]:
            lines.append(f"  {'':<10} {'':<12} target {target}")
        if len(t.targets) > 5:
            lines.append(f"  {'':<10} {'':<12} ... {len(t.targets) - 5} more targets")
    counts = Counter(t.task_class.value for t in report.tasks)
    lines.append("classes: " + ", ".join(f"{n} {c}" for c, n in sorted(counts.items())))
    return "\n".join(lines) + "\n"


def tasks_json(report: TasksReport) -> str:
    return json.dumps(report.to_json(), indent=2) + "\n"


def sprint_text(report: SprintReport) -> str:
    where = f"branch {report.branch}" if report.branch_made else "no branch (no test kept)"
    lines = [f"sprint {report.sprint}: {counted(len(report.results), 'core task')} -> {where}"]
    for r in report.results:
        lines.append(
            f"  {r.task.task.id:<10} {counted(r.kept, 'test')} kept, "
            f"{counted(r.rejected, 'target')} without a test"
            + (f", commit {r.commit[:10]}" if r.commit else ", no commit (nothing kept)")
        )
        for debt in r.docs_debt:
            lines.append(f"  {'':<10} documentation debt: {debt.describe()}")
        if r.note:
            lines.append(f"  {'':<10} note: {r.note}")
    for t in report.skipped:
        why = "its commits change no function" if t.task_class.value == "core" else t.reason
        lines.append(f"  {t.task.id:<10} skipped: {t.task_class.value} ({why})")
    if report.mr_file:
        lines.append(f"merge-request description: {report.mr_file}")
    if report.mr_command:
        lines.append(f"open the merge request: {report.mr_command}")
    if report.mr_url:
        lines.append(f"merge request: {report.mr_url}")
    return "\n".join(lines) + "\n"


def sprint_json(report: SprintReport) -> str:
    return json.dumps(report.to_json(), indent=2) + "\n"


TASKS_FORMATS = {"text": tasks_text, "json": tasks_json}
SPRINT_FORMATS = {"text": sprint_text, "json": sprint_json}
