"""`file:PATH`: a tracker export as JSON (a list of tasks, or `{"tasks": [...]}`) or CSV, with the
columns id, title, description, type, labels (comma or `;` separated), sprint. The embedded
default: it needs no account, and any tracker can export it."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Any

from assay.errors import InputError
from assay.sprint.model import Task


def _labels(value: Any) -> tuple[str, ...]:
    if isinstance(value, list):
        return tuple(str(v).strip() for v in value if str(v).strip())
    text = str(value or "").replace(";", ",")
    return tuple(part.strip() for part in text.split(",") if part.strip())


def _task(row: dict[str, Any], where: str) -> Task:
    if not isinstance(row, dict) or not str(row.get("id") or "").strip():
        raise InputError(f"{where}: a task without an id")
    return Task(
        id=str(row["id"]).strip(),
        title=str(row.get("title") or "").strip(),
        description=str(row.get("description") or ""),
        type=str(row.get("type") or "").strip(),
        labels=_labels(row.get("labels")),
        sprint=str(row.get("sprint") or "").strip(),
    )


def rows(path: Path) -> list[dict[str, Any]]:
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        raise InputError(f"--tracker file:{path}: cannot read it ({err})") from None
    if path.suffix.lower() == ".csv":
        return list(csv.DictReader(io.StringIO(text)))
    try:
        data = json.loads(text)
    except ValueError as err:
        raise InputError(f"--tracker file:{path}: not JSON ({err})") from None
    if isinstance(data, dict):
        data = data.get("tasks")
    if not isinstance(data, list):
        raise InputError(f"--tracker file:{path}: expected a list of tasks or {{'tasks': [...]}}")
    return data


def tasks(arg: str, sprint: str) -> list[Task]:
    """The tasks of `sprint`; tasks with no sprint column belong to every sprint."""
    path = Path(arg)
    found = [_task(row, f"file:{arg}, task {n}") for n, row in enumerate(rows(path), 1)]
    return [t for t in found if t.sprint in ("", sprint)]
