"""The answers of the MCP tools: small typed records cut from the reports the CLI prints, so that
an agent reads verdicts and what to fix, not a whole JSON report. Every field comes from the report;
nothing here judges."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from assay.model import Report, Verdict
from assay.mutation.briefs import brief
from assay.mutation.model import Mutant, MutantResult
from assay.mutation.summary import MutateReport

MAX_SURVIVORS = 10  # the mutate tool's share; the survivors tool lists them all


@dataclass
class TestAnswer:
    """A test that was not accepted, and why."""

    id: str
    verdict: str
    reason: str


@dataclass
class FileAnswer:
    """One test file's verdict; `feedback` is the deciding gate's text for a writer (empty when
    accepted); `tests` lists only the tests not accepted."""

    path: str
    verdict: str
    rejected_at: str | None
    feedback: str
    tests_accepted: int
    tests: list[TestAnswer] = field(default_factory=list)


@dataclass
class IntegrityAnswer:
    """A weakening edit of a test in the diff (`assay.diff`): rule, level, where, before/after."""

    rule: str
    level: str  # reject | warn
    path: str
    line: int
    message: str
    old: str
    new: str


@dataclass
class VerifyAnswer:
    """`assay verify` in short: `exit_code` as the CLI's (0 all accepted, 1 not)."""

    exit_code: int
    counts: dict[str, int]
    files: list[FileAnswer]
    notes: list[str]
    # `since`: what the change did to the tests (deleted, skipped, loosened, expected value edited)
    integrity: list[IntegrityAnswer] = field(default_factory=list)


@dataclass
class SurvivorAnswer:
    """A mutant no test killed: where, the change, the tests that run its line. `must_assert` and
    `suggested_test` come from the survivor brief where the run has one."""

    file: str
    line: int
    original: str
    mutated: str
    operator: str
    status: str  # survived | no_coverage (no test runs the line)
    closest_tests: list[str]
    must_assert: str | None = None
    suggested_test: str | None = None


@dataclass
class SurvivorsAnswer:
    """Every surviving mutant of a mutation run, most-run lines first."""

    total: int
    survivors: list[SurvivorAnswer]


@dataclass
class MutateAnswer:
    """`assay mutate` in short; `score` and `threshold` in percent (`score` None: no mutant
    scored). `survivors` holds the first few, `survivors_total` counts them all."""

    exit_code: int
    passed: bool
    score: float | None
    threshold: float
    code_class: str
    killed: int
    survived: int
    no_coverage: int
    timeout: int
    survivors_total: int
    survivors: list[SurvivorAnswer]


@dataclass
class GeneratedAnswer:
    """One module or target a writer worked on: where its tests went, how many, and the outcome
    (`accepted`, `rejected`, ... or the offline writer's verdict)."""

    target: str
    path: str | None
    outcome: str
    tests: int
    note: str


@dataclass
class GenerateAnswer:
    """`assay generate` in short; `dry_run`: nothing was written, `path` says where it would be."""

    exit_code: int
    writer: str
    dry_run: bool
    results: list[GeneratedAnswer]
    notes: list[str]


def verify_answer(report: Report) -> VerifyAnswer:
    files = []
    for f in report.files:
        gate = next((g for g in f.gates if g.gate == f.rejected_at), None)
        others = [t for t in f.tests if t.verdict is not Verdict.ACCEPTED]
        files.append(
            FileAnswer(
                f.path,
                f.verdict.value,
                f.rejected_at,
                gate.feedback.strip() if gate is not None else "",
                len(f.tests) - len(others),
                [TestAnswer(t.id, t.verdict.value, t.reason) for t in others],
            )
        )
    summary = report.summary()
    counts = {v.value: summary[v.value] for v in Verdict}
    notes = [*report.notes, *(gap.describe() for gap in report.environment_gaps())]
    integrity = [
        IntegrityAnswer(
            x["rule"], x["level"], x["path"], x["line"], x["message"], x["old"], x["new"]
        )
        for f in report.files
        for g in f.gates
        if g.gate == "integrity"
        for x in g.details.get("findings", [])
    ]
    return VerifyAnswer(report.exit_code, counts, files, notes, integrity)


def survivor_answer(mutant: Mutant, result: MutantResult, per_test: bool = True) -> SurvivorAnswer:
    said = brief(mutant, result, per_test)
    return SurvivorAnswer(
        mutant.file,
        mutant.line,
        mutant.before,
        mutant.after,
        mutant.operator,
        result.status.name.lower(),
        said.tests[:3],
        said.must_assert,
        said.suggested_test,
    )


def survivors_answer(report: MutateReport) -> SurvivorsAnswer:
    per_test = report.run.per_test_coverage
    found = [survivor_answer(m, r, per_test) for m, r in report.run.survivors()]
    return SurvivorsAnswer(len(found), found)


def mutate_answer(report: MutateReport) -> MutateAnswer:
    d = report.details(max_survivors=0)
    survivors = report.run.survivors()
    return MutateAnswer(
        report.exit_code,
        report.passed,
        d["score"],
        d["threshold"],
        d["code_class"],
        d["killed"],
        d["survived"],
        d["no_coverage"],
        d["timeout"],
        len(survivors),
        [survivor_answer(m, r, report.run.per_test_coverage) for m, r in survivors[:MAX_SURVIVORS]],
    )


def generate_answer(report: Any) -> GenerateAnswer:
    """From either kind of writer report (`writers.WRITER_FORMATS`): the repair loop's targets or
    the offline writer's modules."""
    if report.kind == "offline":
        results = [
            GeneratedAnswer(
                m.module,
                m.test_path,
                "written" if m.written else (m.verdict or "not written"),
                len(m.tests),
                "; ".join(m.notes),
            )
            for m in report.modules
        ]
        return GenerateAnswer(report.exit_code, "offline", report.dry_run, results, report.notes)
    results = [
        GeneratedAnswer(t.target.id, t.output, t.outcome, len(t.kept_tests), t.note)
        for t in report.targets
    ]
    return GenerateAnswer(report.exit_code, report.writer, report.dry_run, results, report.notes)
