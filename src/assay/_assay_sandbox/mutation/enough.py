"""Gate 4's early stop: once the file's score is certain to reach every module's threshold, the
sampled mutants still to run no longer count.

Certain, not likely: a module passes when detected / counted >= its threshold, and at most every
sampled mutant of it counts (the rest are Ignored, the survivors that turn out Unexercised leave the
denominator). So once the mutants killed so far (with those the cache answered) reach the threshold
of all the module's sampled mutants, no outcome of the others can make it fail: the verdict is the
one the whole sample gives. Only a pass stops early; a file that may fail runs its whole sample, so
that its feedback lists every survivor. The mutants left run like those out of the sample: only for
the tests that have not killed yet (`low_value` stays exact), Ignored with `protocol.EARLY_STOP`.
The sample runs in its own order (lines and mutants shuffled by their ids, `plan.sample`), so the
part that ran is a random subsample and its score an unbiased estimate of the whole one.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..protocol import MutantSpec
from .protocol import Status, Verdict

DETECTED = (Status.KILLED, Status.TIMEOUT)


@dataclass
class Enough:
    """What the stop rule knows: each module's threshold (percent), the [detected, counted] the
    cache answered, how many sampled mutants of it may still count, and the kills so far."""

    thresholds: dict[str, float]
    known: dict[str, list[int]]
    planned: dict[str, int] = field(default_factory=dict)
    detected: dict[str, int] = field(default_factory=dict)
    stopped: bool = False

    def plan(self, mutants: list[MutantSpec]) -> None:
        """The sampled mutants: the most that may count."""
        for m in mutants:
            self.planned[m.file] = self.planned.get(m.file, 0) + 1

    def count(self, m: MutantSpec, verdict: Verdict) -> None:
        """A sampled mutant's verdict."""
        if verdict.status in DETECTED:
            self.detected[m.file] = self.detected.get(m.file, 0) + 1

    def certain(self) -> bool:
        """Every module with a mutant that may count is sure to pass (one with no threshold
        never is)."""
        if self.stopped:
            return True
        modules = {*self.planned, *(rel for rel, (_, n) in self.known.items() if n)}
        if not modules or any(rel not in self.thresholds for rel in modules):
            return False
        for rel in modules:
            known_detected, known_counted = self.known.get(rel, [0, 0])
            detected = known_detected + self.detected.get(rel, 0)
            counted = known_counted + self.planned.get(rel, 0)
            if detected * 100 < self.thresholds[rel] * counted - 1e-9:
                return False
        self.stopped = True
        return True
