"""`assay tasks`: the sprint's tasks from the tracker, each with its commits, files, targets and
class."""

from __future__ import annotations

from pathlib import Path

from assay.config import Settings
from assay.project import Project
from assay.sprint.classify import TEST_FILES, Model, classify
from assay.sprint.commits import CodeChange, code_change, log, of_task
from assay.sprint.model import ClassifiedTask, TasksReport
from assay.sprint.trackers import load_tasks
from assay.targets import function_targets, rank
from assay.targets.coverage import CoverageData, measure


def _targets(
    root: Path, project: Project, changes: list[CodeChange], cov: CoverageData | None
) -> list[str]:
    """`path::function` of what the commits changed and still exists, most uncovered first."""
    changed = {pair for change in changes for pair in change.functions}
    rows = []
    for rel in sorted({rel for rel, _ in changed}):
        if not (root / rel).is_file():
            continue
        rows += [(rel, f) for f in function_targets(project, rel, cov) if (rel, f.name) in changed]
    return [f"{rel}::{f.name}" for rel, f in rank(rows)]


def _is_test(rel: str) -> bool:
    name = Path(rel).name
    return bool({"tests", "test"} & set(Path(rel).parts[:-1])) or (
        name.startswith("test_") or name.endswith("_test.py") or name in TEST_FILES
    )


def tasks_report(
    root: Path,
    settings: Settings,
    tracker: str,
    sprint: str,
    rev_range: str = "HEAD",
    model: Model | None = None,
    coverage: bool = True,
    use_cache: bool = True,
) -> TasksReport:
    tasks = load_tasks(tracker, sprint)
    history = log(root, rev_range)
    project = Project.load(root)
    found = []
    for task in tasks:
        commits = of_task(history, task.id)
        files = list(dict.fromkeys(f for c in commits for f in c.files))
        changes = [code_change(root, c) for c in commits]
        code = {f for change in changes for f in change.files}
        # a Python file whose docstrings or comments alone changed says nothing of the task's class
        kept = [f for f in files if not f.endswith(".py") or f in code]
        decided = classify(task, kept, model, named=bool(commits))
        found.append((task, commits, changes, files, decided))
    cov = None
    if coverage and any(d.task_class.value == "core" and c for _, c, _, _, d in found):
        cov = measure(project, settings, use_cache)  # one run of the project's tests, cached
    out = []
    for task, commits, changes, files, decided in found:
        targets = (
            _targets(root, project, changes, cov) if decided.task_class.value == "core" else []
        )
        out.append(
            ClassifiedTask(
                task,
                decided.task_class,
                decided.reason,
                [c.sha for c in commits],
                files,
                [t for t in targets if not _is_test(t.split("::")[0])],
            )
        )
    return TasksReport(sprint, tracker, out)
