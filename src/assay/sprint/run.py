"""`assay generate --sprint`: for each core task, tests for its targets through the gates, written
in a private copy of HEAD (`git archive`), marked with the task and the sprint, committed onto a new
branch (one commit per task), and a merge-request description. The user's branch, index and
working tree stay as they were."""

from __future__ import annotations

import io
import os
import tarfile
import tempfile
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from assay.sprint.branch import BranchWriter, check_new
from assay.sprint.docs_debt import DocsDebt, stale_docs, withhold
from assay.sprint.git import git_bytes, show, toplevel
from assay.sprint.model import ClassifiedTask, TaskClass, TasksReport
from assay.sprint.tags import tag
from assay.words import counted
from assay.writers.base import WriterReport
from assay.writers.offline.model import OfflineReport
from assay.writers.report import GenerateReport

# (project root of the copy, targets, task text) -> the writer's report
Generate = Callable[[Path, list[str], str], WriterReport]
SKIP_DIRS = {".assay", "__pycache__", ".pytest_cache", ".git", ".mypy_cache", ".ruff_cache"}


@dataclass
class TaskResult:
    task: ClassifiedTask
    targets: list[str] = field(default_factory=list)  # those not tested under an earlier task
    kept: int = 0  # tests kept by the gates
    rejected: int = 0  # targets that ended without a kept test
    files: list[str] = field(default_factory=list)  # repo-relative, committed
    commit: str | None = None
    suspected_bugs: list[str] = field(default_factory=list)
    checked: int = 0  # files the gates judged
    gates: dict[str, int] = field(default_factory=dict)  # where attempts were rejected
    docs_debt: list[DocsDebt] = field(default_factory=list)
    note: str = ""
    exit_code: int = 0

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.task.task.id,
            "title": self.task.task.title,
            "targets": self.targets,
            "kept": self.kept,
            "rejected": self.rejected,
            "files": self.files,
            "commit": self.commit,
            "suspected_bugs": self.suspected_bugs,
            "checked": self.checked,
            "rejected_at": self.gates,
            "docs_debt": [d.to_json() for d in self.docs_debt],
            "note": self.note,
        }


@dataclass
class SprintReport:
    sprint: str
    tracker: str
    writer: str
    branch: str
    base: str
    results: list[TaskResult]
    skipped: list[ClassifiedTask]
    branch_made: bool = False
    description: str = ""
    mr_file: str | None = None
    mr_command: str | None = None
    mr_url: str | None = None

    @property
    def exit_code(self) -> int:
        return max([r.exit_code for r in self.results], default=0)

    def to_json(self) -> dict[str, Any]:
        return {
            "sprint": self.sprint,
            "tracker": self.tracker,
            "writer": self.writer,
            "branch": self.branch if self.branch_made else None,
            "base": self.base,
            "tasks": [r.to_json() for r in self.results],
            "skipped": [t.to_json() for t in self.skipped],
            "mr_file": self.mr_file,
            "mr_command": self.mr_command,
            "mr_url": self.mr_url,
        }


def _export(top: Path, rev: str, dest: Path) -> None:
    """The files of `rev` into `dest`, with no git metadata: the writer's private copy."""
    data = git_bytes(top, "archive", "--format=tar", rev)
    with tarfile.open(fileobj=io.BytesIO(data)) as tar:
        tar.extractall(dest, filter="data")


def _files(root: Path) -> dict[str, int]:
    out: dict[str, int] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if d not in SKIP_DIRS]
        for name in filenames:
            path = Path(dirpath) / name
            out[path.relative_to(root).as_posix()] = path.stat().st_mtime_ns
    return out


def _outcome(result: TaskResult, report: WriterReport) -> None:
    if isinstance(report, GenerateReport):
        result.kept = sum(len(t.kept_tests) for t in report.targets)
        result.rejected = sum(t.outcome not in ("accepted", "partial") for t in report.targets)
        summary = report.summary()
        result.checked, result.gates = summary["checked"], dict(summary["rejected_at"])
        result.suspected_bugs = [
            f"`{b.test}`: {b.failure.splitlines()[0] if b.failure else ''}"
            for t in report.targets
            for b in t.suspected_bugs
        ]
        result.note = "; ".join(filter(None, [result.note, report.stopped]))
    elif isinstance(report, OfflineReport):
        functions = [f for m in report.modules for f in m.functions]
        result.kept = report.tests
        result.rejected = sum(f.status != "tested" for f in functions)
        result.gates = dict(
            Counter(f"offline {f.status}" for f in functions if f.status != "tested")
        )
        notes = [n for m in report.modules for n in m.notes] + report.notes
        result.note = "; ".join(dict.fromkeys(filter(None, [result.note, *notes[:2]])))
    result.exit_code = report.exit_code


def run_sprint(
    root: Path,
    tasks: TasksReport,
    generate: Generate,
    writer: str,
    branch: str,
    docs_threshold_days: int,
) -> SprintReport:
    top = toplevel(root)
    prefix = root.resolve().relative_to(top.resolve()).as_posix()
    prefix = "" if prefix == "." else prefix + "/"
    check_new(top, branch)
    out = BranchWriter(top, "HEAD", branch)
    core = [t for t in tasks.tasks if t.task_class is TaskClass.CORE and t.targets]
    skipped = [t for t in tasks.tasks if t not in core]
    report = SprintReport(tasks.sprint, tasks.tracker, writer, branch, out.base, [], skipped)
    with tempfile.TemporaryDirectory(prefix="assay-sprint-") as tmp:
        _export(top, out.base, Path(tmp))
        work = Path(tmp) / prefix
        tested: dict[str, str] = {}  # target -> the task whose tests cover it in this run
        for task in core:
            result = TaskResult(task)
            result.targets = [t for t in task.targets if t not in tested]
            earlier = sorted({tested[t] for t in task.targets if t in tested})
            if earlier:
                result.note = f"targets tested under {', '.join(earlier)} are not written again"
            report.results.append(result)
            if not result.targets:
                continue
            tested.update(dict.fromkeys(result.targets, task.task.id))
            modules: dict[str, list[str]] = {}
            for target in result.targets:
                rel, _, name = target.partition("::")
                modules.setdefault(rel, []).append(name)
            for rel, names in modules.items():
                debts = stale_docs(root, out.base, rel, names, docs_threshold_days)
                if debts:
                    withhold(work / rel, debts)
                result.docs_debt += debts
            before = _files(work)
            text = f"{task.task.id}: {task.task.title}"
            if task.task.description:
                text += "\n\n" + task.task.description
            _outcome(result, generate(work, result.targets, text))
            for rel in modules:  # the code as it is, for the next task
                original = show(root, out.base, rel)
                if original is not None:
                    (work / rel).write_text(original, encoding="utf-8")
            after = _files(work)
            new = sorted(rel for rel in after if rel not in before)
            files: dict[str, bytes] = {}
            for rel in new:
                path = work / rel
                try:
                    source = path.read_text(encoding="utf-8")
                except UnicodeDecodeError:  # not a test file: committed as it is
                    pass
                else:
                    path.write_text(tag(rel, source, task.task.id, tasks.sprint), encoding="utf-8")
                files[prefix + rel] = path.read_bytes()
            result.files = sorted(files)
            if files:
                result.commit = out.commit(files, _message(task, tasks.sprint, writer, result))
    report.branch_made = out.finish()
    return report


def _message(task: ClassifiedTask, sprint: str, writer: str, result: TaskResult) -> str:
    tested = "\n".join(f"- {t}" for t in result.targets)
    return (
        f"{task.task.id}: tests for {task.task.title}\n\n"
        f"{counted(result.kept, 'test')} kept by assay's gates for:\n{tested}\n\n"
        f"Assay-Task: {task.task.id}\nAssay-Sprint: {sprint}\nAssay-Writer: {writer}\n"
    )
