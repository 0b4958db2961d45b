"""What `assay generate` comes to: per target, every attempt (gate verdicts, feedback sent, tokens)
and the outcome; suspected bugs; totals. Plain data; reporters in `report/generate_*.py` only
format it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

from assay.llm.base import Call, estimate_tokens
from assay.model import FileReport, Verdict
from assay.targets.model import Target

OUTCOMES = ("accepted", "partial", "rejected", "flaky", "budget", "unvalidated", "error")


@dataclass
class AttemptRecord:
    number: int  # 1-based, in the order the loop made them
    kind: str  # write | revise | review-revise | rewrite | split | final
    calls: list[Call] = field(default_factory=list)
    problem: str | None = None  # answer-format reject (no code block, truncated, wrong language)
    verdict: str | None = None
    rejected_at: str | None = None
    gates: dict[str, str] = field(default_factory=dict)  # gate -> status
    tests: int = 0
    kept: int = 0  # tests that passed every gate that ran
    feedback: str = ""  # what was sent back to the writer after this attempt ("" = nothing)
    duration_s: float = 0.0
    copied: list[str] = field(default_factory=list)  # pasted definitions taken out of the answer
    imported: list[str] = field(default_factory=list)  # names the answer used, imports added
    unbound: list[str] = field(default_factory=list)  # tests taken out: a decorator's unbound name
    borrowed: list[str] = field(default_factory=list)  # tables of the project's tests copied in
    answer: int = 0  # a split at the end: the writer answer (1-based) whose file it is

    @property
    def tokens(self) -> int:
        return sum(c.prompt_tokens + c.completion_tokens for c in self.calls if not c.cached)

    def to_json(self) -> dict[str, Any]:
        return {
            "number": self.number,
            "kind": self.kind,
            "problem": self.problem,
            "verdict": self.verdict,
            "rejected_at": self.rejected_at,
            "gates": self.gates,
            "tests": self.tests,
            "kept": self.kept,
            "feedback": self.feedback,
            "feedback_lines": len(self.feedback.splitlines()),
            "feedback_tokens": estimate_tokens(self.feedback),
            "tokens": self.tokens,
            "calls": [c.to_json() for c in self.calls],
            "duration_s": round(self.duration_s, 3),
            "copied": self.copied,
            "imported": self.imported,
            "unbound": self.unbound,
            "borrowed": self.borrowed,
            "answer": self.answer,
        }

    @classmethod
    def of(
        cls,
        number: int,
        kind: str,
        report: FileReport | None,
        calls: list[Call] | None = None,
        problem: str | None = None,
    ) -> AttemptRecord:
        rec = cls(number, kind, list(calls or []), problem)
        if report is not None:
            rec.verdict = report.verdict.value
            rec.rejected_at = report.rejected_at
            rec.gates = {g.gate: g.status.value for g in report.gates}
            rec.tests = len(report.tests)
            rec.kept = sum(t.verdict is Verdict.ACCEPTED for t in report.tests)
            rec.duration_s = report.duration_s
        return rec


@dataclass
class SuspectedBug:
    target: str
    test: str  # node id
    failure: str  # the failing assertion, trimmed
    reason: str  # the reviewer's
    # where the xfail test was written (None on --dry-run or when not written)
    file: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "target": self.target,
            "test": self.test,
            "failure": self.failure,
            "reason": self.reason,
            "file": self.file,
        }


@dataclass
class Dropped:
    test: str
    verdict: str
    gate: str | None
    reason: str

    def to_json(self) -> dict[str, Any]:
        return {
            "test": self.test,
            "verdict": self.verdict,
            "gate": self.gate,
            "reason": self.reason,
        }


@dataclass
class TargetResult:
    target: Target
    outcome: str = "rejected"  # one of OUTCOMES
    attempts: list[AttemptRecord] = field(default_factory=list)
    kept_tests: list[str] = field(default_factory=list)
    dropped: list[Dropped] = field(default_factory=list)
    suspected_bugs: list[SuspectedBug] = field(default_factory=list)
    output: str | None = None  # project-relative path written (or that would be, on --dry-run)
    source: str | None = None  # the final file text
    review: dict[str, Any] | None = None  # the last review's details
    note: str = ""  # why it ended as it did, one line
    duration_s: float = 0.0

    @property
    def calls(self) -> list[Call]:
        return [c for a in self.attempts for c in a.calls]

    @property
    def tokens(self) -> int:
        return sum(a.tokens for a in self.attempts)

    @property
    def writer_attempts(self) -> int:
        return sum(
            1 for a in self.attempts if a.kind in ("write", "revise", "review-revise", "rewrite")
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "target": self.target.to_json(),
            "id": self.target.id,
            "outcome": self.outcome,
            "note": self.note,
            "output": self.output,
            "kept_tests": self.kept_tests,
            "dropped": [d.to_json() for d in self.dropped],
            "suspected_bugs": [b.to_json() for b in self.suspected_bugs],
            "review": self.review,
            "tokens": self.tokens,
            "writer_attempts": self.writer_attempts,
            "attempts": [a.to_json() for a in self.attempts],
            "duration_s": round(self.duration_s, 3),
            "source": self.source,
        }


@dataclass
class GenerateReport:
    root: str
    writer: str
    reviewer: str | None
    targets: list[TargetResult]
    usage: dict[str, Any]  # the budget's totals (tokens, calls, cost)
    duration_s: float = 0.0
    dry_run: bool = False
    stopped: str | None = None  # why the run stopped early (budget, provider error)
    notes: list[str] = field(default_factory=list)
    bugs_files: list[str] = field(default_factory=list)
    # stopped by an error every further call would hit (bad key, missing replay answer)
    fatal: bool = False

    SCHEMA = "assay.generate/1"
    kind: ClassVar[str] = "generate"  # its reporters: `report.WRITER_FORMATS["generate"]`
    written_by: ClassVar[str] = "the repair loop"

    @property
    def exit_code(self) -> int:
        if self.fatal:
            return 2
        return 0 if all(t.outcome in ("accepted", "partial") for t in self.targets) else 1

    def summary(self) -> dict[str, Any]:
        counts = {o: sum(t.outcome == o for t in self.targets) for o in OUTCOMES}
        kept = sum(len(t.kept_tests) for t in self.targets)
        attempts = sum(t.writer_attempts for t in self.targets)
        rejected_at: dict[str, int] = {}
        # files the gates judged (writer answers and splits), answers without a file included
        checked = 0
        for t in self.targets:
            for a in t.attempts:
                if a.kind in ("review", "final"):
                    if a.rejected_at:
                        rejected_at[a.rejected_at] = rejected_at.get(a.rejected_at, 0) + 1
                    continue
                checked += 1
                where = "answer" if a.problem else a.rejected_at
                if where:
                    rejected_at[where] = rejected_at.get(where, 0) + 1
        feedback = [a.feedback for t in self.targets for a in t.attempts if a.feedback]
        largest = max(feedback, key=lambda f: len(f.splitlines()), default="")
        return {
            "targets": len(self.targets),
            **counts,
            "tests_kept": kept,
            "writer_attempts": attempts,
            "attempts_per_kept_test": round(attempts / kept, 2) if kept else None,
            "checked": checked,
            "rejected_at": rejected_at,
            "rejected_share": {g: round(n / checked, 3) for g, n in rejected_at.items()}
            if checked
            else {},
            "tokens": self.usage.get("tokens", 0),
            "tokens_per_kept_test": round(self.usage.get("tokens", 0) / kept) if kept else None,
            "cost": self.usage.get("cost"),
            "suspected_bugs": sum(len(t.suspected_bugs) for t in self.targets),
            "largest_feedback": {
                "lines": len(largest.splitlines()),
                "tokens": estimate_tokens(largest),
            },
            "duration_s": round(self.duration_s, 3),
        }

    def to_json(self) -> dict[str, Any]:
        return {
            "schema": self.SCHEMA,
            "root": self.root,
            "writer": self.writer,
            "reviewer": self.reviewer,
            "dry_run": self.dry_run,
            "stopped": self.stopped,
            "notes": self.notes,
            "bugs_files": self.bugs_files,
            "summary": self.summary(),
            "usage": self.usage,
            "targets": [t.to_json() for t in self.targets],
        }
