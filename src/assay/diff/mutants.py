"""`mutate --since`: the mutants a change is answerable for, those on the lines it changed or
(`by="function"`) anywhere in a function it changed; the rest of the file is left alone."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from assay.diff.changes import ChangeSet, changes
from assay.diff.integrity import changed_code
from assay.diff.scope import scope
from assay.errors import InputError
from assay.languages import LANGUAGES
from assay.mutation.mutants import function_spans, generate
from assay.project import Project, discover

SCOPES = ("lines", "function")


@dataclass
class MutationScope:
    """The changed code to mutate, the tests in scope, and which of its mutants count."""

    changes: ChangeSet
    targets: list[str]
    tests: list[str]
    by: str = "lines"

    def only(self, sources: dict[str, str]) -> set[str]:
        """Ids of the mutants on changed lines (or in changed functions) of `sources`."""
        out = set()
        for rel, text in sources.items():
            lines = self.changes.lines_of(rel)
            spans = function_spans(text) if self.by == "function" else {}
            for m in generate(rel, text):
                first, last = spans.get(m.function, (m.line, m.end_line))
                if any(n in lines for n in range(first, last + 1)):
                    out.add(m.id)
        return out

    def to_json(self, total: int, kept: int) -> dict[str, object]:
        return {
            "since": self.changes.since,
            "base": self.changes.base,
            "by": self.by,
            "targets": self.targets,
            "tests": self.tests,
            "mutants": kept,
            "mutants_whole_files": total,
        }


def mutation_scope(
    project: Project, since: str, paths: list[Path], by: str = "lines"
) -> MutationScope:
    """The changed Python code under `paths` (default: the whole project) and the test files
    that touch or import it."""
    if by not in SCOPES:
        raise InputError(f"--scope {by!r}: one of {', '.join(SCOPES)}")
    found = changes(project.root, since)
    code = changed_code(project, found)
    under = [project.rel(p) for p in paths]
    targets = sorted(
        rel
        for rel in code
        if (project.root / rel).is_file()
        and rel in project.modules.values()
        and (
            not under or any(u in (".", rel) or rel.startswith(u.rstrip("/") + "/") for u in under)
        )
    )
    python = [LANGUAGES["python"]]
    in_scope = scope(project, found, discover([project.root], project.root, python))
    tests = [s.path for s in in_scope if s.code]
    if not targets:
        raise InputError(f"no Python code changed since {since} under the paths given")
    return MutationScope(found, targets, tests, by)
