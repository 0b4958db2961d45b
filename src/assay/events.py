"""Progress of `verify` and `generate` as typed events a renderer draws (the CLI's progress bar, a
line per file in CI logs): the library never prints."""

from __future__ import annotations

from dataclasses import dataclass

from assay.model import FileReport, Verdict


@dataclass(frozen=True)
class Started:
    """The run has `total` units of work: files to verify, or targets to write tests for."""

    total: int


@dataclass(frozen=True)
class GateStarted:
    """`file` entered `gate` (or `where` it runs, e.g. on the cluster)."""

    file: str
    gate: str


@dataclass(frozen=True)
class GateProgress:
    """`file`'s `gate` has done `done` of `total` units of its work (gate 4: mutants), so that a
    long gate is never silent."""

    file: str
    gate: str
    done: int
    total: int
    unit: str = "mutants"


@dataclass(frozen=True)
class FileDone:
    """`file` has its verdict (`rejected_at`: the gate that stopped it); `cached`: from cache."""

    file: str
    verdict: Verdict
    rejected_at: str | None
    duration_s: float
    cached: bool = False

    @classmethod
    def of(cls, report: FileReport) -> FileDone:
        return cls(
            report.path, report.verdict, report.rejected_at, report.duration_s, report.cached
        )

    def describe(self) -> str:
        """One line for a log: `rejected at green (1.2 s)`, or `cached`."""
        if self.cached:
            return "cached"
        where = f" at {self.rejected_at}" if self.rejected_at else ""
        return f"{self.verdict.value}{where} ({self.duration_s:.1f} s)"


@dataclass(frozen=True)
class TargetDone:
    """A generate target ended with `outcome`, keeping `kept` tests; `tokens`: spent so far."""

    target: str
    outcome: str
    kept: int
    tokens: int


@dataclass(frozen=True)
class Note:
    """A writer's step, in one line."""

    text: str


@dataclass(frozen=True)
class Preparing:
    """The prepare step of `language` runs `what` (the project's build tool fetching its
    dependencies, minutes on a fresh machine); `what` empty: it is over."""

    language: str
    what: str = ""


ProgressEvent = Started | GateStarted | GateProgress | FileDone | TargetDone | Note | Preparing
