"""What the offline writer is asked for: files, directories and `file.py::name` specs as one
target per module, and a module's dotted name."""

from __future__ import annotations

from pathlib import Path

from assay.errors import InputError
from assay.project import Project, python_sources
from assay.writers.offline.model import OfflineTarget


def dotted_of(project: Project, rel: str) -> str:
    for name, path in project.modules.items():
        if path == rel:
            return name
    raise InputError(f"{rel} is not an importable module of the project")


def targets_from(project: Project, items: list[str | Path | OfflineTarget]) -> list[OfflineTarget]:
    """Files, directories and `file.py::name` specs (or targets) -> one target per module,
    in order."""
    out: dict[str, OfflineTarget] = {}
    for item in items:
        if not isinstance(item, (str, Path)):
            out.setdefault(item.module, OfflineTarget(item.module, [], getattr(item, "dotted", "")))
            out[item.module].functions += [
                f if isinstance(f, str) else f.name for f in item.functions
            ]
            continue
        path_s, _, name = str(item).partition("::")
        rels = python_sources(project, [Path(path_s)])
        for rel in rels:
            target = out.setdefault(rel, OfflineTarget(rel))
            if name:
                target.functions.append(name)
    return list(out.values())
