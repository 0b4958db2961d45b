"""The gate protocol: what every gate declares, receives and returns.

A gate is constructed with the settings (and, for later gates, an LLM client), so a caller may
inject its own. It declares the facts it needs from earlier gates and the facts it provides as typed
fields of `Facts` (never dict keys), and the languages it supports. The pipeline skips a gate whose
needs no earlier gate met - the file is then `unvalidated`, never `accepted` on that basis - and a
gate that does not support the candidate's language (the skip is visible in every report, the file
can still be accepted on the other gates).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar, Literal, Protocol, runtime_checkable

from assay.config import Settings
from assay.events import GateStarted, ProgressEvent
from assay.execution.runner import Runner
from assay.execution.workspace import Workspace
from assay.languages.base import Language
from assay.model import GATE_ORDER, Candidate, GateResult, GateStatus, Verdict
from assay.project import Project
from assay.sandbox import Cancelled, Sandbox

if TYPE_CHECKING:
    from assay.mutation.standby import StandbyWorkers

Fact = Literal["collected", "passing_tests", "test_durations"]


@dataclass
class Facts:
    """What earlier gates learned about the candidate file; None until a gate provides it."""

    collected: list[str] | None = None  # test ids, as the runner names them (compile)
    passing_tests: list[str] | None = None  # tests that passed the green run, in run order (green)
    test_durations: dict[str, float] | None = None  # untraced seconds of each passing test (green)

    def missing(self, needs: tuple[Fact, ...]) -> list[Fact]:
        return [n for n in needs if getattr(self, n) is None]


FACT_NAMES = {f.name for f in fields(Facts)}


@dataclass
class GateContext:
    """Everything a gate may use for one candidate file."""

    # the user's project (read-only): root, source roots, module index, dependencies
    project: Project
    settings: Settings
    workspace: Workspace  # the scratch copy with the candidate written over it
    sandbox: Sandbox
    language: Language
    runner: Runner  # the candidate's language's runner
    facts: Facts = field(default_factory=Facts)
    # earlier gates' results for this file
    results: dict[str, GateResult] = field(default_factory=dict)
    # progress within a long gate (`GateProgress`), drawn by the caller's renderer
    emit: Callable[[ProgressEvent], None] = lambda event: None
    # gate 4's workers on standby, one per workspace (`verify`); None: a cold worker per run
    standby: StandbyWorkers | None = None
    # a gate started ahead of its turn (`BaseGate.starts_ahead`): `stop` set when its result will
    # not be taken (it ends its processes and raises Cancelled); `turn` set once the gates before
    # it have all run and `results` holds theirs (`earlier` waits for it)
    stop: threading.Event | None = None
    turn: threading.Event | None = None

    @property
    def root(self) -> Path:
        return self.project.root

    def earlier(self) -> dict[str, GateResult]:
        """The earlier gates' results, once they have all run (a gate started ahead waits)."""
        if self.turn is not None:
            self.turn.wait()
        if self.stop is not None and self.stop.is_set():
            raise Cancelled("a gate started ahead of its turn was stopped")
        return self.results


@runtime_checkable
class Gate(Protocol):
    name: ClassVar[str]
    needs: ClassVar[tuple[Fact, ...]]
    provides: ClassVar[tuple[Fact, ...]]
    languages: ClassVar[frozenset[str] | None]  # None: every language

    def run(self, candidate: Candidate, ctx: GateContext) -> GateResult: ...


class BaseGate:
    """Defaults for the declarations; checks at class creation that declared facts exist."""

    name: ClassVar[str] = ""
    needs: ClassVar[tuple[Fact, ...]] = ()
    provides: ClassVar[tuple[Fact, ...]] = ()
    languages: ClassVar[frozenset[str] | None] = None
    # whether the gate runs gate 4's workers on standby (`GateContext.standby`), which the
    # pipeline then starts for it
    uses_standby: ClassVar[bool] = False
    # whether the gate only reads the code (gate 5's smells): it still judges the tests of a file
    # a gate before it stopped as flaky, whose other tests nothing else judges
    static: ClassVar[bool] = False

    def __init__(self, settings: Settings):
        self.settings = settings

    def run(self, candidate: Candidate, ctx: GateContext) -> GateResult:
        raise NotImplementedError

    def starts_ahead(self, candidate: Candidate) -> bool:
        """Whether the gate runs in a scratch copy of its own, needing of the gates before it
        only gate 2's facts until it reads their results (`GateContext.earlier`): the pipeline
        may then start it as soon as gate 2's outcomes are in, beside gate 3, and takes its
        result only if the gates between let the file through with the same facts."""
        return False

    def warm(self, candidate: Candidate, ctx: GateContext) -> None:
        """Start, before the gates ahead of this one run, work that does not depend on their
        outcome (a process's start-up): the pipeline calls it once per file. It decides nothing."""

    def __init_subclass__(cls, **kw: object) -> None:
        super().__init_subclass__(**kw)
        unknown = (set(cls.needs) | set(cls.provides)) - FACT_NAMES
        if unknown:
            raise TypeError(f"gate {cls.__name__} declares unknown facts {sorted(unknown)}")


def number(gate: str) -> int:
    """The gate's number in feedback headers (DESIGN.md): compile 1 ... review 6."""
    return GATE_ORDER.index(gate) + 1 if gate in GATE_ORDER else 0


def skipped(
    gate: Gate, reason: str, verdict: Verdict | None = None, duration: float = 0.0
) -> GateResult:
    """A skip with its reason in the feedback; with a verdict, the file stops there
    (`unvalidated`)."""
    title = f"SKIP: Gate {number(gate.name)} — {gate.name.upper()} NOT MEASURED"
    return GateResult(
        gate.name,
        GateStatus.SKIP,
        duration,
        f"{title}\n{reason}",
        verdict=verdict,
        details={"reason": reason},
    )


def precondition(gate: Gate, candidate: Candidate, facts: Facts) -> GateResult | None:
    """The skip the pipeline records instead of running `gate`, or None when it can run."""
    if gate.languages is not None and candidate.language not in gate.languages:
        return skipped(gate, f"not available for {candidate.language} yet")
    missing = facts.missing(gate.needs)
    if missing:
        return skipped(
            gate,
            f"needs {', '.join(missing)}, which no earlier gate provided: configure the gates "
            "that provide it before this one",
            Verdict.UNVALIDATED,
        )
    return None


def static_after(
    gates: list[BaseGate],
    candidate: Candidate,
    ctx: GateContext,
    stop: GateResult,
    emit: Callable[[ProgressEvent], None],
) -> None:
    """The static gates after a flaky stop, run all the same: one flaky test (humanfriendly's
    `test_timer`) left every other test "not judged", though gate 5 reads the code in
    milliseconds. Their verdicts on the other tests go into the stopping gate's `tests` (its own
    first), their details under its `static`; the file stays flaky and the stop stays its last
    gate; gate 4, which runs the tests, stays unrun. Only after a rejecting stop, whose feedback
    already names their reject-level findings (`Verifier._causes_first`)."""
    if (
        stop.verdict is not Verdict.FLAKY
        or stop.status is not GateStatus.REJECT
        or candidate.read_error is not None
    ):
        return
    names = [g.name for g in gates]
    for gate in gates[names.index(stop.gate) + 1 :] if stop.gate in names else []:
        if not gate.static or precondition(gate, candidate, ctx.facts) is not None:
            continue
        emit(GateStarted(candidate.rel, gate.name))
        result = gate.run(candidate, ctx)
        if result.status is GateStatus.SKIP:
            continue
        own = {t.id for t in stop.tests}
        stop.tests += [t for t in result.tests if t.id not in own]
        stop.details.setdefault("static", {})[gate.name] = {
            "status": result.status.value,
            **result.details,
        }
