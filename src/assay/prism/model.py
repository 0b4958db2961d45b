"""Plain data of `assay prism` reports, and their JSON (schema `assay.prism/1`, see
docs/prism.md)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from assay.prism.metrics import TaskMetrics, aggregate

SCHEMA = "assay.prism/1"
EVALUATED, INVALID, UNVALIDATED, ERROR = "evaluated", "invalid", "unvalidated", "error"


@dataclass
class MemberResult:
    """What the suite did on one panel member (for the reference: the first of its runs)."""

    name: str  # original | reference | correct/<name> | faulty/<name>
    role: str
    accepted: bool
    reason: str = ""
    ran: int | None = None  # tests that ran (None: unknown, the command gave no JUnit XML)
    tests: dict[str, str] = field(default_factory=dict)  # test id -> outcome
    messages: dict[str, str] = field(default_factory=dict)  # test id -> first line of its failure
    duration_s: float = 0.0
    cached: bool = False
    runs: list[bool] = field(default_factory=list)  # reference: acceptance of each run
    worker: str = ""  # host:pid of the process that ran it

    def to_json(self) -> dict[str, Any]:
        out = {
            "name": self.name,
            "role": self.role,
            "accepted": self.accepted,
            "reason": self.reason,
            "tests_ran": self.ran,
            "duration_s": round(self.duration_s, 3),
            "cached": self.cached,
            "worker": self.worker,
        }
        if self.runs:
            out["runs"] = self.runs
        return out


@dataclass
class TaskResult:
    id: str
    dir: str
    language: str
    category: str
    status: str = EVALUATED
    reason: str = ""  # why invalid / unvalidated / error, in one line
    suite: str = ""
    metrics: TaskMetrics | None = None
    flaky: bool = False
    flaky_tests: list[str] = field(default_factory=list)
    change_coverage: dict[str, Any] | None = None
    entry_coverage: dict[str, Any] | None = None
    members: list[MemberResult] = field(default_factory=list)
    # who wrote the suite and what it cost (prism run --writer)
    writer: dict[str, Any] | None = None

    @property
    def evaluated(self) -> bool:
        return self.status == EVALUATED and self.metrics is not None

    def matrix(self) -> dict[str, dict[str, str]]:
        """Test id -> member -> outcome ("not run" where the test did not run on that member)."""
        ids = list(dict.fromkeys(t for m in self.members for t in m.tests))
        return {t: {m.name: m.tests.get(t, "not run") for m in self.members} for t in ids}

    def overfitting_tests(self) -> dict[str, list[str]]:
        """Tests that fail on the reference or a correct member: test -> those members."""
        out: dict[str, list[str]] = {}
        for m in self.members:
            if m.role in ("reference", "correct"):
                for t, outcome in m.tests.items():
                    if outcome in ("failed", "error", "timeout", "xpassed"):
                        out.setdefault(t, []).append(m.name)
        return out

    def uncaught_faulty(self) -> list[str]:
        return [m.name for m in self.members if m.role == "faulty" and m.accepted]

    def caught_by(self) -> dict[str, list[str]]:
        """Faulty member -> the tests that fail on it."""
        return {
            m.name: sorted(t for t, o in m.tests.items() if o in ("failed", "error", "timeout"))
            for m in self.members
            if m.role == "faulty"
        }

    def to_json(self) -> dict[str, Any]:
        m = self.metrics
        return {
            "id": self.id,
            "dir": self.dir,
            "language": self.language,
            "category": self.category,
            "status": self.status,
            "reason": self.reason,
            "suite": self.suite,
            "fails_original": m.fails_original if m else None,
            "rar": m.rar if m else None,
            "var": m.var if m else None,
            "irr": m.irr if m else None,
            "jsf": m.jsf if m else None,
            "flaky": self.flaky,
            "flaky_tests": self.flaky_tests,
            "change_coverage": self.change_coverage,
            "entry_coverage": self.entry_coverage,
            "members": [x.to_json() for x in self.members],
            "matrix": self.matrix(),
            "messages": {x.name: x.messages for x in self.members if x.messages},
            "overfitting_tests": self.overfitting_tests(),
            "uncaught_faulty": self.uncaught_faulty(),
            "caught_by": self.caught_by(),
            "writer": self.writer,
        }


def _ratio(d: dict[str, Any] | None) -> float | None:
    return None if d is None else d["ratio"]


@dataclass
class PrismReport:
    benchmark: str
    suites: str
    tasks: list[TaskResult]
    executor: dict[str, Any] = field(default_factory=dict)
    runs: dict[str, int] = field(default_factory=dict)  # total, cached, executed
    duration_s: float = 0.0
    notes: list[str] = field(default_factory=list)

    def _summary(self, tasks: list[TaskResult]) -> dict[str, Any]:
        done = [t for t in tasks if t.evaluated]
        out = aggregate(
            [t.metrics for t in done if t.metrics],
            [_ratio(t.change_coverage) for t in done],
            [_ratio(t.entry_coverage) for t in done],
        )
        counts = {s: sum(t.status == s for t in tasks) for s in (INVALID, UNVALIDATED, ERROR)}
        return {"tasks": len(tasks), **counts, "flaky": sum(t.flaky for t in done), **out}

    @property
    def aggregate(self) -> dict[str, Any]:
        return self._summary(self.tasks)

    def by(self, attr: str) -> dict[str, dict[str, Any]]:
        """The aggregate per category or per language."""
        keys = sorted({getattr(t, attr) for t in self.tasks})
        return {k: self._summary([t for t in self.tasks if getattr(t, attr) == k]) for k in keys}

    @property
    def exit_code(self) -> int:
        """0: every task evaluated (or unvalidated); 1: some task invalid or in error; 2:
        none evaluated."""
        if not any(t.evaluated for t in self.tasks):
            return 2
        return 1 if any(t.status in (INVALID, ERROR) for t in self.tasks) else 0

    def to_json(self) -> dict[str, Any]:
        return {
            "schema": SCHEMA,
            "benchmark": self.benchmark,
            "suites": self.suites,
            "executor": self.executor,
            "runs": self.runs,
            "duration_s": round(self.duration_s, 3),
            "aggregate": self.aggregate,
            "by_category": self.by("category"),
            "by_language": self.by("language"),
            "tasks": [t.to_json() for t in self.tasks],
            "notes": self.notes,
        }


@dataclass
class CheckedTask:
    """`assay prism check` of one task: `status` ok | invalid | mislabelled | unvalidated
    | error."""

    id: str
    dir: str
    status: str
    reason: str = ""
    # "<member>: what the validator says", one per member
    faults: list[str] = field(default_factory=list)
    validator: bool = False

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "dir": self.dir,
            "status": self.status,
            "reason": self.reason,
            "validator": self.validator,
            "faults": self.faults,
        }


@dataclass
class CheckReport:
    benchmark: str
    tasks: list[CheckedTask]
    runs: dict[str, int] = field(default_factory=dict)
    duration_s: float = 0.0

    @property
    def exit_code(self) -> int:
        """0: every task ok (or unvalidated); 1: some task invalid, mislabelled or in error; 2:
        none checked."""
        if not any(t.status in ("ok", "mislabelled", "unvalidated") for t in self.tasks):
            return 2
        return 0 if all(t.status in ("ok", "unvalidated") for t in self.tasks) else 1

    def to_json(self) -> dict[str, Any]:
        return {
            "schema": "assay.prism.check/1",
            "benchmark": self.benchmark,
            "runs": self.runs,
            "duration_s": round(self.duration_s, 3),
            "tasks": [t.to_json() for t in self.tasks],
        }


@dataclass
class BuiltMember:
    name: str
    path: str  # what was written, task-relative
    file: str  # the mutated source file
    line: int
    operator: str
    before: str
    after: str
    failing: list[str]  # validator tests that fail on it


@dataclass
class BuildReport:
    task: str
    wanted: int
    added: list[BuiltMember]
    candidates: int = 0  # mutants tried
    killed: int = 0
    runs: dict[str, int] = field(default_factory=dict)
    duration_s: float = 0.0

    @property
    def exit_code(self) -> int:
        return 0 if len(self.added) >= self.wanted else 1

    def to_json(self) -> dict[str, Any]:
        return {
            "schema": "assay.prism.build/1",
            "task": self.task,
            "wanted": self.wanted,
            "candidates": self.candidates,
            "killed": self.killed,
            "runs": self.runs,
            "duration_s": round(self.duration_s, 3),
            "added": [vars(m) for m in self.added],
        }


@dataclass(frozen=True)
class UnitsPlanned:
    """Progress: `total` (task, member, run) units, `cached` of them answered from the cache."""

    total: int
    cached: int


@dataclass(frozen=True)
class UnitDone:
    """Progress: one unit ran; `accepted`: the suite accepted the member (None on `error`)."""

    task: str
    member: str
    run: int
    accepted: bool | None
    error: str | None


PrismEvent = UnitsPlanned | UnitDone
