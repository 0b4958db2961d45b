"""Which test files a change puts in scope, and why: those it touched, and those whose tests
import (transitively) code it changed. The import map is the one gate 4 and `verify` already use
for a file's targets (`Project.targets_of`); a test that reaches changed code only through a
fixture or a plugin is not found this way."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from assay.diff.changes import ChangeSet, Kind
from assay.diff.integrity import changed_code, covered
from assay.project import Project

TOUCHED = "touched by the change"
COVERS = "covers changed code"


@dataclass(frozen=True)
class InScope:
    """One test file in scope: why, and the changed lines of the code it reaches (what gate 4
    mutates)."""

    path: str
    why: str
    code: tuple[str, ...] = ()  # changed modules it reaches
    lines: dict[str, frozenset[int]] | None = None

    def describe(self) -> str:
        return self.why + (f" ({', '.join(self.code)})" if self.code else "")

    def to_json(self) -> dict[str, object]:
        return {"path": self.path, "why": self.why, "code": list(self.code)}


def scope(project: Project, changes: ChangeSet, test_files: list[Path]) -> list[InScope]:
    """The test files among `test_files` (absolute paths, as `discover` finds them) that the
    change touched or whose tests reach changed code, in the given order."""
    code = changed_code(project, changes)
    out = []
    for path in test_files:
        rel = project.rel(path)
        try:
            source = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            source = ""
        reached = tuple(sorted(covered(project, source, rel) & code))
        lines = {m: changes.lines_of(m) for m in reached}
        change = changes.files.get(rel)
        if change is not None and change.kind is not Kind.DELETED:
            out.append(InScope(rel, TOUCHED, reached, lines))
        elif reached:
            out.append(InScope(rel, COVERS, reached, lines))
    return out
