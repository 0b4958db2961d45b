"""The mutation engine's typed state, shared by assay and the worker: statuses, modes,
verdicts, events.

Stdlib only: the worker imports it as `_assay_sandbox.mutation.protocol` and writes each event as
one JSON line; assay imports it as `assay._assay_sandbox.mutation.protocol` and parses each line
once, with `parse_event`, into the same dataclass. Nothing downstream reads an event as a dict. The
string values of `Status` and `Mode` are those of the reports, caches and JSON lines, so none of
them changes.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field, fields
from enum import Enum
from typing import Any, ClassVar, TypeVar


class Status(str, Enum):
    """Mutant statuses of Stryker's mutation-testing-elements schema."""

    KILLED = "Killed"
    SURVIVED = "Survived"
    NO_COVERAGE = "NoCoverage"
    TIMEOUT = "Timeout"
    RUNTIME_ERROR = "RuntimeError"
    COMPILE_ERROR = "CompileError"
    IGNORED = "Ignored"
    # survived, but none of the file's tests received anything different from the project's code
    # (gate 4 only: not counted, see `exercised`); not one of Stryker's
    UNEXERCISED = "Unexercised"


# the reason of a mutant left out of gate 4's sample (`plan.sample`): Ignored, not counted
NOT_SAMPLED = "not in the sample (mutation.sample): not counted"
# ... of one a mutation tool left out of the sample before it ran (StrykerJS): no test ran on it,
# so the tests that cover it are not judged by it (neither killers nor `low_value`)
SAMPLE_UNRUN = "not in the sample (mutation.sample): not counted, not run"
# ... of a sampled one that did not need to count (`enough`): Ignored, not counted
# the reason of a mutant set aside unrun (`entries`); the parent takes it out of the score
SET_ASIDE = "set aside: beyond the modules where the tests enter the project (not run)"
# ... of a sampled one the time budget cut (`budget`): Ignored, not counted
OVER_BUDGET = "not in the sample: over gate 4's time budget (mutation.budget): not counted"
EARLY_STOP = "not needed: the score was sure to pass (mutation.early_stop): not counted"
# ... of one whose tests left to prove have each had their proving runs (`mutation.prove`): not
# run; those tests are not called low value (boolean.py's test_boolean.py: 780 s of proving runs
# for a 2 s file)
PROOF_LIMIT = "not run: its tests left to prove had each run on mutation.prove mutants"
# ... of one whose function, as it runs, is not the mutant (`rebuilt`): Ignored, not counted
UNAPPLIED = "not judged: the code that runs is not the mutant"
REBUILT = "rebuilt from the file on disk (by a decorator that reads its own source?): not counted"


class Mode(str, Enum):
    """How a child applies its mutant (see `plan`)."""

    PATCH = "patch"  # swap `__code__` of the live functions
    DEFAULTS = "defaults"  # set `__defaults__` of the live functions
    RECOLLECT = "recollect"  # patch, then import and collect again the test modules that called it
    REBIND = "rebind"  # re-run the module body in the live module
    REIMPORT = "reimport"  # a fresh import and collection in the child

    @property
    def in_place(self) -> bool:
        """The tests run in the worker's own session: no fresh import, no new collection."""
        return self in (Mode.PATCH, Mode.DEFAULTS)


@dataclass(frozen=True)
class Verdict:
    """What one mutant came to."""

    status: Status
    # the tests run (or that would run) against it
    covered_by: list[str] = field(default_factory=list)
    killed_by: list[str] = field(default_factory=list)
    tests_completed: int = 0
    reason: str = ""
    # Timeout: the seconds the test that hung was granted (CPU, or wall time when it slept)
    budget_s: float = 0.0


E = TypeVar("E", bound="Event")


@dataclass(frozen=True)
class Event:
    """One progress event; `kind` is its `event` key in JSON."""

    kind: ClassVar[str] = ""

    def to_dict(self) -> dict[str, Any]:
        return {"event": self.kind, **asdict(self)}

    def to_json(self) -> str:
        return json.dumps(self.to_dict())

    @classmethod
    def from_dict(cls: type[E], data: dict[str, Any]) -> E:
        names = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in names})


@dataclass(frozen=True)
class Collected(Event):
    kind: ClassVar[str] = "collected"
    tests: int
    deselected: int = 0
    collection_s: float = 0.0


@dataclass(frozen=True)
class BaselineProgress(Event):
    kind: ClassVar[str] = "baseline_progress"
    total: int
    done: int


@dataclass(frozen=True)
class BaselineTest:
    id: str
    # passed | failed | skipped, or both outcomes of a test whose outcome depends on tracing
    outcome: str
    duration: float  # untraced seconds


@dataclass(frozen=True)
class BaselineSummary:
    """What the reports say of the baseline: its recorder, run times, children, tests left out."""

    tracer: str | None = None
    traced_s: float | None = None
    untraced_s: float | None = None
    # the tests' own time, set-up apart (what tracing costs them)
    tests_traced_s: float | None = None
    tests_untraced_s: float | None = None
    overhead: dict[str, float] | None = None
    children: dict[str, int] | None = None
    resumed: dict[str, int] | None = None
    unstable: list[str] | None = None
    state_writers: list[str] | None = None

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class BaselineDone(Event):
    """The baseline's facts: outcomes and durations, covering tests per line, scope, run times."""

    kind: ClassVar[str] = "baseline"
    duration_s: float
    summary: BaselineSummary
    tests: list[BaselineTest]
    state_names: list[str]
    line_tests: dict[str, dict[int, int]]  # rel -> line -> covering tests
    # rel -> functions the tests execute (verify gate), else None
    scope: dict[str, list[str]] | None

    def to_dict(self) -> dict[str, Any]:
        s = self.summary
        return {
            "event": self.kind,
            "duration_s": self.duration_s,
            "tracer": s.tracer,
            "traced_s": s.traced_s,
            "untraced_s": s.untraced_s,
            "tests_traced_s": s.tests_traced_s,
            "tests_untraced_s": s.tests_untraced_s,
            "overhead": s.overhead,
            "children": s.children,
            "resumed": s.resumed,
            "tests": [asdict(t) for t in self.tests],
            "unstable": s.unstable,
            "state_writers": s.state_writers,
            "state_names": self.state_names,
            "line_tests": self.line_tests,
            "scope": self.scope,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> BaselineDone:
        names = {f.name for f in fields(BaselineSummary)}
        return cls(
            duration_s=data["duration_s"],
            summary=BaselineSummary(**{k: data.get(k) for k in names}),
            tests=[BaselineTest(**t) for t in data["tests"]],
            state_names=data.get("state_names", []),
            line_tests={
                rel: {int(line): n for line, n in lines.items()}
                for rel, lines in data["line_tests"].items()
            },
            scope=data.get("scope"),
        )


@dataclass(frozen=True)
class MutantDone(Event):
    """One mutant's verdict, and how long it took (0 when settled without a run)."""

    kind: ClassVar[str] = "mutant"
    id: str
    verdict: Verdict
    duration_s: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        v = self.verdict
        return {
            "event": self.kind,
            "id": self.id,
            "status": v.status.value,
            "covered_by": v.covered_by,
            "killed_by": v.killed_by,
            "tests_completed": v.tests_completed,
            "duration_s": round(self.duration_s, 4),
            "reason": v.reason,
            "budget_s": round(v.budget_s, 4),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> MutantDone:
        verdict = Verdict(
            Status(data["status"]),
            list(data.get("covered_by", [])),
            list(data.get("killed_by", [])),
            int(data.get("tests_completed", 0)),
            data.get("reason", ""),
            float(data.get("budget_s", 0.0)),
        )
        return cls(data["id"], verdict, float(data.get("duration_s", 0.0)))


@dataclass(frozen=True)
class Stopped(Event):
    """Sampled mutants that ran to a verdict after their module's early stop (`enough.past`): the
    engine makes them Ignored, as if the stop had come before they ran, so that the counts do not
    depend on which runs ended first."""

    kind: ClassVar[str] = "stopped"
    past: list[str]
    # quiet survivors before the stop that did not end Unexercised (`enough.unsure`): the stop may
    # have leaned to a pass, the engine runs the sample again without it
    unsure: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class Sampled(Event):
    """The mutants that count for gate 4's score, in the sample's order, drawn before any run
    (`plan.sample`): the progress total is theirs. `planned` > 0: the time budget cut the sample
    from that many (`budget`), whose test time as survivors was `estimate_s` > `budget_s`."""

    kind: ClassVar[str] = "sampled"
    ids: list[str]
    planned: int = 0
    estimate_s: float = 0.0
    budget_s: float = 0.0


@dataclass(frozen=True)
class Heartbeat(Event):
    """Tests are finishing, slow as they may be: the engine's idle watchdog is fed."""

    kind: ClassVar[str] = "heartbeat"


@dataclass(frozen=True)
class Jobs(Event):
    """How the mutants that ran were applied."""

    kind: ClassVar[str] = "jobs"
    total: int
    modes: dict[str, int]  # Mode value -> jobs
    with_state: int  # jobs whose first tests write module state
    dirty: dict[str, list[str]]  # target -> globals collection changed after its body ran


@dataclass(frozen=True)
class TestCost:
    id: str
    duration: float  # baseline seconds of one run
    runs: int
    seconds: float  # over all mutants
    share: float  # of the time spent in tests


@dataclass(frozen=True)
class LongestMutant:
    id: str
    seconds: float


@dataclass(frozen=True)
class Cost(Event):
    """Where the mutants' time went: the five tests that cost the most, the longest mutant."""

    kind: ClassVar[str] = "cost"
    tests_s: float
    mutants_s: float
    slowest: list[TestCost]
    longest_mutant: LongestMutant
    split_mutants: int = 0  # mutants whose tests ran in more than one child (a slow test set apart)
    # the most tests of one mutant that hung one after another (each costs its deadline)
    hangs_in_a_row: int = 0

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Cost:
        return cls(
            data["tests_s"],
            data["mutants_s"],
            [TestCost(**t) for t in data["slowest"]],
            LongestMutant(**data["longest_mutant"]),
            data.get("split_mutants", 0),
            data.get("hangs_in_a_row", 0),
        )


@dataclass(frozen=True)
class Unobserved(Event):
    """Tests gate 4's observer slowed past its limit (`exercised.OBSERVED_LIMIT`), or stopped:
    they ran unobserved, so a survivor they cover counts as survived, never as changing nothing
    they receive; the gate names them (a verdict that depends on them is said to)."""

    kind: ClassVar[str] = "unobserved"
    tests: list[str]
    limit: str  # the limit, in words


@dataclass(frozen=True)
class WorkerError(Event):
    """The worker could not give verdicts: why."""

    kind: ClassVar[str] = "error"
    message: str


@dataclass(frozen=True)
class Done(Event):
    kind: ClassVar[str] = "done"


@dataclass(frozen=True)
class Plan(Event):
    """Assay's side, before the worker starts: mutants in scope, and how many of them the
    cache holds."""

    kind: ClassVar[str] = "plan"
    total: int
    cached: int


@dataclass(frozen=True)
class Progress(Event):
    """What a display shows after each change (assay's side, from `Tally`): numbers only, never
    counted again."""

    kind: ClassVar[str] = "progress"
    phase: str
    done: int
    total: int
    killed: int
    survived: int
    timeouts: int
    other: int
    eta_s: float | None
    no_coverage: int = 0  # no test runs its line: not survived


WORKER_EVENTS: dict[str, type[Event]] = {
    cls.kind: cls
    for cls in (
        Collected,
        BaselineProgress,
        BaselineDone,
        MutantDone,
        Stopped,
        Sampled,
        Heartbeat,
        Jobs,
        Cost,
        Unobserved,
        WorkerError,
        Done,
    )
}


def event_of(data: dict[str, Any]) -> Event:
    """A worker event from its JSON object (`to_dict`)."""
    return WORKER_EVENTS[data["event"]].from_dict(data)


def parse_event(line: str) -> Event:
    """One JSON line the worker wrote, as its typed event."""
    return event_of(json.loads(line))


@dataclass(frozen=True)
class StandbyJob:
    """One gate-4 job for a worker on standby (`standby`): run the mutation worker on `job` (a
    `MutationJob` file) in a fresh fork, started in `cwd`, its output to `log`; its exit code to
    `exit` (written whole, by rename) once it and what it started are gone."""

    job: str
    log: str
    exit: str
    cwd: str

    def to_json(self) -> str:
        return json.dumps(asdict(self))

    @classmethod
    def from_json(cls, text: str) -> StandbyJob:
        data = json.loads(text)
        return cls(**{f.name: data[f.name] for f in fields(cls)})
