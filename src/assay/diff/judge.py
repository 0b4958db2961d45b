"""`verify --since`: the diff scope planned before the gates run, and the integrity findings laid
on the verdicts after (as a gate of its own, `integrity`, so every report format shows them the
way it shows the smells gate's). Never cached: the findings depend on the revision, not only on
the file."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from assay.diff.changes import ChangeSet, changes
from assay.diff.integrity import integrity
from assay.diff.rules import IntegrityFinding
from assay.diff.scope import InScope, scope
from assay.events import FileDone, ProgressEvent
from assay.feedback import compose
from assay.languages import Language
from assay.model import Candidate, FileReport, GateResult, GateStatus, Report, TestOutcome, Verdict
from assay.project import Project, discover

GATE = "integrity"
HEADER = "REJECT: integrity — THE CHANGE WEAKENS TESTS OF CODE IT CHANGED"
HINT = (
    "Do not fit tests to the code: restore the deleted or skipped tests and the old expectations, "
    "or justify the contract change in its own reviewed commit."
)


@dataclass
class DiffPlan:
    """What one change puts in scope, and what it did to the tests."""

    changes: ChangeSet
    in_scope: list[InScope]
    findings: list[IntegrityFinding] = field(default_factory=list)

    def files(self, project: Project) -> list[Path]:
        return [project.root / s.path for s in self.in_scope]

    def narrow(self, candidates: list[Candidate]) -> None:
        """Gate 4 of each candidate that reaches changed code mutates only the changed lines."""
        by_path = {s.path: s for s in self.in_scope}
        for c in candidates:
            s = by_path.get(c.rel)
            if s is not None and s.lines:
                c.changed = {m: sorted(lines) for m, lines in s.lines.items()}

    def progress(self, sink: Callable[[ProgressEvent], None] | None) -> Any:
        """`sink` told the verdict the integrity gate will give: a file its gates accept but a
        `reject` finding rejects is not announced as accepted in the progress lines."""
        rejected = {f.path for f in self.findings if f.level == "reject"}
        if sink is None or not rejected:
            return sink

        def told(event: ProgressEvent) -> None:
            if (
                isinstance(event, FileDone)
                and event.file in rejected
                and event.verdict is not Verdict.REJECTED
            ):
                event = replace(event, verdict=Verdict.REJECTED, rejected_at=GATE)
            sink(event)

        return told

    def to_json(self) -> dict[str, object]:
        return {
            "changes": self.changes.to_json(),
            "scope": [s.to_json() for s in self.in_scope],
            "findings": [f.to_json() for f in self.findings],
        }


def plan(
    project: Project,
    since: str,
    paths: list[Path],
    languages: list[Language] | None = None,
    staged: bool = False,
) -> DiffPlan:
    """The change since `since` and the test files under `paths` (default: the project) it puts
    in scope."""
    found = changes(project.root, since, staged)
    tests = discover(paths or [project.root], project.root, languages)
    return DiffPlan(found, scope(project, found, tests), integrity(project, found))


def gate_result(findings: list[IntegrityFinding], why: str) -> GateResult:
    """The integrity gate of one file: reject on any `reject` finding, warn on others."""
    rejects = [f for f in findings if f.level == "reject"]
    status = GateStatus.REJECT if rejects else GateStatus.WARN if findings else GateStatus.PASS
    feedback = compose(HEADER, [f.text for f in rejects], HINT) if rejects else ""
    return GateResult(
        GATE,
        status,
        feedback=feedback,
        verdict=Verdict.REJECTED if rejects else None,
        details={"scope": why, "findings": [f.to_json() for f in findings]},
    )


def _reject_tests(report: FileReport, findings: list[IntegrityFinding]) -> None:
    """The tests a `reject` finding names are rejected by it; the others keep their verdicts."""
    for x in findings:
        for i, t in enumerate(report.tests):
            if t.id.split("[")[0].endswith(f"::{x.test}"):
                report.tests[i] = TestOutcome(t.id, Verdict.REJECTED, GATE, x.text, t.note)


def apply(report: Report, diff: DiffPlan, language: str = "python") -> Report:
    """`report` with the integrity gate on every file in scope, files rejected by it, deleted
    test files with findings added, and notes saying what was in scope and why."""
    by_file: dict[str, list[IntegrityFinding]] = {}
    for finding in diff.findings:
        by_file.setdefault(finding.path, []).append(finding)
    why = {s.path: s.describe() for s in diff.in_scope}
    for f in report.files:
        findings = by_file.pop(f.path, [])
        result = gate_result(findings, why.get(f.path, ""))
        f.gates.append(result)
        if result.status is GateStatus.REJECT and f.verdict is not Verdict.REJECTED:
            f.verdict, f.rejected_at = Verdict.REJECTED, GATE
        _reject_tests(f, [x for x in findings if x.level == "reject" and x.test])
    for path, findings in sorted(by_file.items()):  # deleted files, files outside the paths
        result = gate_result(findings, "touched by the change")
        if result.status is GateStatus.REJECT:
            report.files.append(
                FileReport(path, language, [], Verdict.REJECTED, GATE, [result], [])
            )
        else:
            report.notes.extend(f"integrity: {x.text}" for x in findings)
    counts = Counter(s.why for s in diff.in_scope)
    said = ", ".join(f"{n} {why}" for why, n in counts.items()) or "no test file"
    changed = len(diff.changes.files)
    report.notes.insert(
        0,
        f"diff scope since {diff.changes.since} ({diff.changes.base[:12]}): {changed} changed "
        f"file{'' if changed == 1 else 's'}; in scope: {said}",
    )
    return report


@dataclass
class IntegrityReport:
    """`assay integrity`: what a change did to the tests, without running anything."""

    root: str
    changes: ChangeSet
    findings: list[IntegrityFinding]

    @property
    def exit_code(self) -> int:
        return 1 if any(f.level == "reject" for f in self.findings) else 0

    def to_json(self) -> dict[str, object]:
        return {
            "schema": "assay.integrity/1",
            "root": self.root,
            "changes": self.changes.to_json(),
            "findings": [f.to_json() for f in self.findings],
        }


def check(root: Path, since: str = "HEAD", staged: bool = False) -> IntegrityReport:
    """The integrity check alone (the pre-commit hook: `staged`, against HEAD)."""
    project = Project.load(root)
    found = changes(project.root, since, staged)
    return IntegrityReport(str(project.root), found, integrity(project, found))
