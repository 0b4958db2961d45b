"""The typed facts passed between the sprint steps: a tracker's task, its class and why, the
commits that name it, the functions they changed."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import Any


class TaskClass(str, Enum):
    """What kind of work a task is; only `core` tasks get tests written."""

    CORE = "core"  # backend logic: a feature or a bug fix
    FRONTEND = "frontend"  # only UI: CSS, templates, components
    ADAPTERS = "adapters"  # integrations: a channel, a webhook, an external API client
    TECHNICAL = "technical"  # infrastructure: CI, migrations, dependency bumps
    INCIDENT = "incident"  # SRE work
    UNCLASSIFIED = "unclassified"  # no rule decided and no model was given


@dataclass(frozen=True)
class Task:
    """One task as the tracker exports it."""

    id: str  # as the tracker writes it: SPAN-1, #12
    title: str
    description: str = ""
    type: str = ""  # bug, story, feature, incident...
    labels: tuple[str, ...] = ()
    sprint: str = ""


@dataclass(frozen=True)
class Classification:
    task_class: TaskClass
    reason: str  # one line: which rule (or the model) decided, and on what


@dataclass
class ClassifiedTask:
    """A task with its commits, the files and functions they changed, and its class."""

    task: Task
    task_class: TaskClass
    reason: str
    commits: list[str] = field(default_factory=list)  # full shas, oldest first
    files: list[str] = field(default_factory=list)
    targets: list[str] = field(default_factory=list)  # `path::function`, most uncovered first

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.task.id,
            "title": self.task.title,
            "class": self.task_class.value,
            "reason": self.reason,
            "commits": self.commits,
            "files": self.files,
            "targets": self.targets,
        }


@dataclass
class TasksReport:
    """`assay tasks`: the sprint's tasks, classified."""

    sprint: str
    tracker: str
    tasks: list[ClassifiedTask]

    def to_json(self) -> dict[str, Any]:
        return {"sprint": self.sprint, "tasks": [t.to_json() for t in self.tasks]}
