"""Plain data of mutation testing: mutants, their statuses and the score (no I/O)."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from assay._assay_sandbox.mutation.budget import Cut
from assay._assay_sandbox.mutation.protocol import (
    EARLY_STOP,
    NOT_SAMPLED,
    OVER_BUDGET,
    PROOF_LIMIT,
    SAMPLE_UNRUN,
    UNAPPLIED,
    BaselineSummary,
    BaselineTest,
    LongestMutant,
    Status,
    TestCost,
    Verdict,
)

__all__ = [
    "COUNTED",
    "DETECTED",
    "EARLY_STOP",
    "Mutant",
    "MutantResult",
    "MutationResult",
    "ObserverCost",
    "NOT_SAMPLED",
    "OVER_BUDGET",
    "PROOF_LIMIT",
    "RECEIVED",
    "SAMPLE_UNRUN",
    "Status",
    "UNAPPLIED",
    "counts",
    "score",
]


@dataclass(frozen=True)
class Mutant:
    """One change to one source file, as an exact text replacement of [start, end)
    (character offsets).

    Applying `replacement` to the file on disk reproduces the mutant, which is what the report
    formats promise. `chain` lists the enclosing function definitions, innermost first, as (name,
    first line): the worker swaps the code of those function objects; an empty chain means
    module-level code.
    """

    id: str
    file: str  # project-relative posix path
    operator: str
    start: int
    end: int
    line: int  # 1-based
    col: int  # 0-based, characters
    end_line: int
    end_col: int
    original: str
    replacement: str
    function: str  # qualname of the innermost enclosing def, "<module>" outside any
    chain: tuple[tuple[str, int], ...] = ()
    # first line of the innermost statement around it: a multi-line literal's inner
    stmt_line: int = 0
    # lines never report as executed, its statement's first line does
    before: str = ""  # the touched source line(s), for feedback
    after: str = ""

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class MutantResult:
    status: Status
    covered_by: list[str] = field(default_factory=list)
    killed_by: list[str] = field(default_factory=list)
    tests_completed: int = 0
    duration_s: float = 0.0
    reason: str = ""
    cached: bool = False

    def to_json(self) -> dict[str, Any]:
        return {
            "status": self.status.value,
            "covered_by": self.covered_by,
            "killed_by": self.killed_by,
            "tests_completed": self.tests_completed,
            "duration_s": round(self.duration_s, 4),
            "reason": self.reason,
        }

    @classmethod
    def of(cls, verdict: Verdict, duration_s: float) -> MutantResult:
        return cls(
            verdict.status,
            list(verdict.covered_by),
            list(verdict.killed_by),
            verdict.tests_completed,
            duration_s,
            verdict.reason,
        )

    @classmethod
    def from_json(cls, data: dict[str, Any], cached: bool = False) -> MutantResult:
        return cls(
            status=Status(data["status"]),
            covered_by=list(data.get("covered_by", [])),
            killed_by=list(data.get("killed_by", [])),
            tests_completed=int(data.get("tests_completed", 0)),
            duration_s=float(data.get("duration_s", 0.0)),
            reason=data.get("reason", ""),
            cached=cached,
        )


DETECTED = (Status.KILLED, Status.TIMEOUT)
# Unexercised (gate 4: changed nothing the tests receive) is not counted, as Ignored
COUNTED = (Status.KILLED, Status.TIMEOUT, Status.SURVIVED, Status.NO_COVERAGE)


def score(results: list[MutantResult]) -> float | None:
    """(Killed + Timeout) / (Killed + Timeout + Survived + NoCoverage); None when nothing counts."""
    counted = [r for r in results if r.status in COUNTED]
    if not counted:
        return None
    return sum(r.status in DETECTED for r in counted) / len(counted)


def counts(results: list[MutantResult]) -> dict[str, int]:
    out = {s.value: 0 for s in Status}
    for r in results:
        out[r.status.value] += 1
    return out


# a survivor's reason from gate 4's observer outside Python: the first thing a test received
# differently under it (StrykerJS, `stryker_observe`)
RECEIVED = "a test received: "


@dataclass(frozen=True)
class ObserverCost:
    """What gate 4's observer outside Python (StrykerJS's survivors) ran and cost."""

    survivors: int  # survivors it observed
    wall_s: float
    cpu_s: float  # its process and the runs it waited for


@dataclass
class MutationResult:
    """A mutation run, as the reports, the gate and the summary read it."""

    mutants: list[Mutant]  # every generated mutant, in scope or not
    results: dict[str, MutantResult]  # mutant id -> verdict, for the mutants in scope
    sources: dict[str, str]  # target rel -> text
    # the baseline's tests: outcome, duration
    tests: list[BaselineTest] = field(default_factory=list)
    # rel -> line -> covering tests
    line_tests: dict[str, dict[int, int]] = field(default_factory=dict)
    # rel -> functions the tests execute (verify gate only)
    scope: dict[str, list[str]] | None = None
    duration_s: float = 0.0
    worker_ran: bool = True
    baseline: BaselineSummary | None = None  # None: every verdict came from the cache
    slowest: list[TestCost] = field(default_factory=list)  # the 5 tests that cost most
    longest_mutant: LongestMutant | None = None
    split_mutants: int = 0  # mutants whose tests ran in more than one child (a slow test set apart)
    hangs_in_a_row: int = 0  # the most tests of one mutant that hung one after another
    # how the run mutants were applied: patch, reimport, ...
    modes: dict[str, int] = field(default_factory=dict)
    deselected: int = 0
    # tests gate 4's observer could not watch (too slow observed): (their ids, the limit in words)
    unobserved: tuple[list[str], str] | None = None
    # whether `killed_by` names the very tests that killed a mutant; False: every test of the
    # file is named (a tool run without per-test results), so no test can be told redundant
    per_test_kills: bool = True
    # whether `covered_by` names the tests that run a mutant's code; False: every test of the file
    # is named (cargo-mutants, Stryker's command runner), so no test is "closest" to a survivor
    # and a test's count of the mutants it runs is not known
    per_test_coverage: bool = True
    # whether `killed_by` names every test of the file that fails on a killed mutant; False: only
    # the first (StrykerJS bails at the first failing test), so a test that kills nothing is proven
    # so only on mutants that survived
    complete_kills: bool = True
    # target -> why the tool could not mutate it (cargo-mutants: a file only a test compiles)
    unmutated: dict[str, str] = field(default_factory=dict)
    # tests whose own coverage runs lines of the targets (known with per-test coverage: the Go
    # engine): one that reaches no mutant there ran code the tool has no operator for
    ran_targets: set[str] = field(default_factory=set)
    # gate 4's time budget shrank the sample (`_assay_sandbox.mutation.budget`)
    budget_cut: Cut | None = None
    # one line on a scope narrower or wider than Python's rule (Rust without LLVM's coverage
    # tools: the whole file), for the gate's notes
    scope_note: str = ""
    observer: ObserverCost | None = None  # StrykerJS: gate 4's observer on the survivors

    @property
    def scored(self) -> list[tuple[Mutant, MutantResult]]:
        return [(m, self.results[m.id]) for m in self.mutants if m.id in self.results]

    @property
    def score(self) -> float | None:
        return score([r for _, r in self.scored])

    @property
    def counts(self) -> dict[str, int]:
        return counts([r for _, r in self.scored])

    @property
    def unsampled(self) -> int:
        """Mutants left out of gate 4's sample (Ignored, not counted)."""
        return sum(r.reason in (NOT_SAMPLED, SAMPLE_UNRUN) for r in self.results.values())

    @property
    def unapplied(self) -> dict[str, int]:
        """Why mutants were not judged because the code that runs is not theirs (`rebuilt`), with
        how many each reason left out (Ignored, not counted)."""
        out: dict[str, int] = {}
        for r in self.results.values():
            if r.status is Status.IGNORED and r.reason.startswith(UNAPPLIED):
                out[r.reason] = out.get(r.reason, 0) + 1
        return out

    @property
    def over_budget(self) -> int:
        """Sampled mutants the time budget cut (Ignored, not counted)."""
        return sum(r.reason == OVER_BUDGET for r in self.results.values())

    @property
    def early_stopped(self) -> int:
        """Sampled mutants the score was sure without (`mutation.early_stop`)."""
        return sum(r.reason == EARLY_STOP for r in self.results.values())

    def unexercised(self) -> list[tuple[Mutant, MutantResult]]:
        """Mutants that changed nothing the tests receive (gate 4), in file order."""
        left = [(m, r) for m, r in self.scored if r.status is Status.UNEXERCISED]
        return sorted(left, key=lambda mr: (mr[0].file, mr[0].line))

    def survivors(self) -> list[tuple[Mutant, MutantResult]]:
        """Survived and uncovered mutants, those on the most-executed lines first."""
        left = [(m, r) for m, r in self.scored if r.status in (Status.SURVIVED, Status.NO_COVERAGE)]
        return sorted(
            left,
            key=lambda mr: (
                -self.line_tests.get(mr[0].file, {}).get(mr[0].line, 0),
                mr[0].file,
                mr[0].line,
            ),
        )
