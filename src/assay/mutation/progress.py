"""What a progress display shows while mutants run: done / total, killed, survived, timeouts,
uncovered and an ETA.

The engine feeds every worker event through `Tally` and hands the caller one `Progress` event per
change, so a display (the CLI's Rich bar, a gate's log) only renders numbers, never counts them.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import TYPE_CHECKING

from assay._assay_sandbox.mutation.protocol import (
    BaselineDone,
    BaselineProgress,
    Collected,
    Event,
    MutantDone,
    Plan,
    Progress,
    Sampled,
    Status,
)

if TYPE_CHECKING:
    from assay.mutation.model import Mutant


class Tally:
    """`scoped`: the mutants a scoped run (gate 4) sends to the worker; the baseline's scope then
    tells how many of them run, and the total drops to those (the others never report). When the
    worker draws a sample (`Sampled`, gate 4), the total is the sample's: a file of 1,090 mutants
    in scope showed "2/1090" while 100 were to count; the mutants out of it that run only to prove
    a test are not counted in `done`."""

    def __init__(self, scoped: Sequence[Mutant] | None = None) -> None:
        self.scoped = scoped
        self.total = 0
        self.done = 0
        self.killed = 0
        self.survived = 0
        self.timeouts = 0
        self.no_coverage = 0
        self.other = 0
        self.phase = "starting"
        self.first_mutant: float | None = None
        self.run_done = 0  # mutants that ran in this process (cached ones are not a rate)
        self.sample: set[str] | None = None  # the ids that count, once the worker drew them

    def feed(self, ev: Event) -> Progress | None:
        """The `Progress` event after `ev`, or None when `ev` changes nothing shown."""
        if isinstance(ev, Plan):
            self.total, self.done = ev.total, ev.cached
        elif isinstance(ev, Collected):
            self.phase = "baseline"
        elif isinstance(ev, BaselineProgress):
            self.phase = f"baseline {ev.done}/{ev.total} tests"
        elif isinstance(ev, BaselineDone):
            self.phase = "mutants"
            if self.scoped is not None and ev.scope is not None:
                scope = ev.scope
                out = sum(m.function not in scope.get(m.file, ()) for m in self.scoped)
                self.total = max(self.done, self.total - out)
        elif isinstance(ev, Sampled):
            self.sample = set(ev.ids)
            self.total = self.done + len(self.sample)
        elif isinstance(ev, MutantDone):
            if self.sample is not None and ev.id not in self.sample:
                return None  # out of the sample: it runs only to prove a test
            self.done += 1
            if ev.duration_s > 0:  # ran in a child (settled-at-plan verdicts come at once)
                if self.first_mutant is None:
                    self.first_mutant = time.monotonic()
                self.run_done += 1
            status = ev.verdict.status
            if status is Status.KILLED:
                self.killed += 1
            elif status is Status.TIMEOUT:
                self.timeouts += 1
            elif status is Status.SURVIVED:
                self.survived += 1
            elif status is Status.NO_COVERAGE:
                self.no_coverage += 1
            else:
                self.other += 1
        else:
            return None
        return self.event()

    def eta_s(self) -> float | None:
        """Remaining mutants at the rate seen since the first verdict of this run."""
        if self.first_mutant is None or self.run_done < 3 or not self.total:
            return None
        rate = self.run_done / max(time.monotonic() - self.first_mutant, 1e-6)
        return max(0.0, (self.total - self.done) / rate)

    def event(self) -> Progress:
        eta = self.eta_s()
        return Progress(
            phase=self.phase,
            done=self.done,
            total=self.total,
            killed=self.killed,
            survived=self.survived,
            timeouts=self.timeouts,
            other=self.other,
            no_coverage=self.no_coverage,
            eta_s=None if eta is None else round(eta, 1),
        )
