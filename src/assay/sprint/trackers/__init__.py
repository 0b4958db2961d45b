"""Trackers a sprint's tasks come from: `KIND:ARG` -> the module that reads them. Adding a tracker
is one module with a `tasks(arg, sprint) -> list[Task]` function plus one line here."""

from __future__ import annotations

import importlib
import importlib.util
from typing import Protocol

from assay.errors import InputError, ToolchainError
from assay.sprint.model import Task

TRACKERS = {
    "file": "assay.sprint.trackers.file",  # a JSON or CSV export: needs no account
    "github": "assay.sprint.trackers.github",  # OWNER/REPO: milestone or label
    "gitlab": "assay.sprint.trackers.gitlab",  # GROUP/PROJECT: milestone or iteration
    "jira": "assay.sprint.trackers.jira",  # URL: sprint = "NAME" in JQL
}


class Tracker(Protocol):
    def tasks(self, arg: str, sprint: str) -> list[Task]: ...


def load_tasks(spec: str, sprint: str) -> list[Task]:
    """The sprint's tasks from the tracker `spec` names (`file:tasks.json`, `github:o/r`...)."""
    kind, sep, arg = spec.partition(":")
    if not sep or kind not in TRACKERS or not arg:
        raise InputError(f"--tracker {spec!r}: expected {', '.join(k + ':...' for k in TRACKERS)}")
    if not sprint.strip():
        raise InputError("--sprint: give the sprint's name")
    if kind != "file" and importlib.util.find_spec("httpx") is None:
        raise ToolchainError(f"--tracker {kind}: needs httpx (pip install 'assay[trackers]')")
    module = importlib.import_module(TRACKERS[kind])
    tasks: list[Task] = module.tasks(arg, sprint)
    return tasks
