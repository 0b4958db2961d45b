"""Gate 4's early stop: once a module's score is sure to reach its threshold, its sampled mutants
still to run no longer count.

Sure means either of two things. *Certain*: a module passes when detected / counted >= its
threshold, and at most every sampled mutant of it counts (the rest are Ignored; the survivors that
turn out Unexercised leave the denominator, as do mutants settled uncounted). So once the mutants of
a module killed so far (with those the cache answered) reach the threshold of all its sampled
mutants, no outcome of the others can make it fail. *Confident*: the sample runs in its own order
(lines and mutants shuffled by their ids, `plan.sample`), so the mutants that ran so far are a
random part of it; once the lower bound of their score's 99.9% one-sided Wilson interval reaches
the threshold, the whole sample fails it with a chance under 1 in 1000 - far less than the sample's
own error against the whole scope (about +-8 points at 95% for 100 mutants, docs/mutation.md). A
survivor counts as one while it runs (it may turn out Unexercised later, which only raises the
score): the bound never leans to a pass. On the field bench it ran 18-40% fewer counted mutants
than the certain stop alone, every verdict the same. Only a pass stops early; a module that may
fail runs its whole sample, so that the feedback lists every survivor. The mutants left run like
those out of the sample: only for the tests that have not killed yet (`low_value` stays exact),
Ignored with `protocol.EARLY_STOP`.
The stop waits for `FLOOR` outcomes (or all a module has): below them it would save a few runs and
hide their survivors.
A survivor whose every test received exactly what it received in the first observed run of the
original (`quiet`) is Unexercised at the end unless the second run of the original disagrees with
the first for one of its tests (`exercised.settle`): the rule counts it as it will most likely
end, not at all (on parse's `test_search.py` three in four of the sample's survivors ended
Unexercised, and counting them as survivors held the stop back from ~20 outcomes to 82 of 100).
Where one did not end Unexercised and stood before its module's stop, the stop leaned to a pass:
`unsure` names them and the run is done again without the early stop.
The stop is found in the sample's order, so a mutant that runs long (a hang held to its deadline)
holds it back while the other core runs on through the sample, each run counted and then dropped
(`past`): on parse's `test_search.py` one Timeout at the 27th place let 47 more sampled mutants run
as counted after the place the stop came to. So the rule also reads on past the outcomes still to
come, each taken as a survivor (the worst it can be): where the module is sure even so, the stop
will come at or before that place, whatever they turn out to be, and the mutants after it run only
to prove tests (`certain`). The stop itself and what counts stay as the sample's order makes them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from ..protocol import MutantSpec
from .protocol import Status, Verdict

DETECTED = (Status.KILLED, Status.TIMEOUT)
COUNTED = (*DETECTED, Status.SURVIVED, Status.NO_COVERAGE)  # as the score counts them
KEPT = (Status.IGNORED, Status.NO_COVERAGE, Status.UNEXERCISED)  # the same past the stop
Z = 3.09  # one-sided 99.9%
# outcomes a module's stop waits for: below them it would save a few runs and hide their survivors
FLOOR = 10


def lower_bound(detected: int, ran: int) -> float:
    """The lower end of the 99.9% one-sided Wilson score interval of `detected` / `ran`: sound for
    small samples and scores near 1, where the normal approximation is not."""
    if ran <= 0:
        return 0.0
    p = detected / ran
    spread = Z * math.sqrt(p * (1 - p) / ran + Z * Z / (4 * ran * ran))
    return (p + Z * Z / (2 * ran) - spread) / (1 + Z * Z / ran)


@dataclass
class Enough:
    """What the stop rule knows: each module's threshold (percent), the [detected, counted] the
    cache answered, and the outcomes of its sampled mutants. Each module on its own: the file
    passes when every module does, so one certain to pass needs no more of its mutants whatever
    the others do.

    The rule reads a module's outcomes in the sample's order, never in the order runs end: it
    stops at the first prefix of the sample whose outcomes make the module sure, and the mutants
    after that prefix do not count even where they ran (a run ahead of the stop, `past`). So the
    same code and tests give the same counts however busy the machine: a run that ended early on a
    loaded machine once moved a file's score from 80% to 75% (CI, shared-files test)."""

    thresholds: dict[str, float]
    known: dict[str, list[int]]
    # Unexercised, not counted (gate 4 observes): a mutant no test of the file runs
    observe: bool = False
    order: dict[str, list[str]] = field(default_factory=dict)  # module -> sampled ids, in order
    position: dict[str, int] = field(default_factory=dict)  # sampled id -> its place in `order`
    outcome: dict[str, Status] = field(default_factory=dict)  # sampled id -> its status
    module: dict[str, str] = field(default_factory=dict)  # sampled id -> its module
    read: dict[str, int] = field(default_factory=dict)  # module -> outcomes read in order
    planned: dict[str, int] = field(default_factory=dict)  # sampled mutants that may still count
    detected: dict[str, int] = field(default_factory=dict)
    ran: dict[str, int] = field(default_factory=dict)  # read outcomes that count
    cut: dict[str, int] = field(default_factory=dict)  # module -> the place its stop is at
    # sampled survivors whose tests received what the first run of the original gave: not counted
    quiet: set[str] = field(default_factory=set)
    # module -> a place its stop comes at or before, whatever the outcomes still to come (`_ahead`)
    bound: dict[str, int] = field(default_factory=dict)
    furthest: dict[str, int] = field(default_factory=dict)  # module -> last place with an outcome

    def plan(self, mutants: list[MutantSpec]) -> None:
        """The sampled mutants, in the sample's order: the most that may count."""
        for m in mutants:
            ids = self.order.setdefault(m.file, [])
            self.position[m.id], self.module[m.id] = len(ids), m.file
            ids.append(m.id)
            self.planned[m.file] = self.planned.get(m.file, 0) + 1
        for rel in self.order:
            self.read.setdefault(rel, 0)
            self._check(rel)  # the cache's answers alone may make it sure

    def count(self, m: MutantSpec, verdict: Verdict, quiet: bool = False) -> None:
        """A sampled mutant's verdict, after its run or settled without one; `quiet`: a survivor
        whose every test received what the first run of the original gave (likely Unexercised)."""
        if m.id in self.position:
            if quiet and verdict.status is Status.SURVIVED:
                self.quiet.add(m.id)
            self._record(m.file, m.id, verdict.status)

    def unsure(self, unexercised: set[str]) -> list[str]:
        """The quiet survivors before their module's stop that did not end Unexercised: the rule
        left them out of the count, so the stop may have leaned to a pass."""
        return sorted(
            i
            for i in self.quiet - unexercised
            if self.module[i] in self.cut and self.position[i] < self.cut[self.module[i]]
        )

    def certain(self, rel: str) -> bool:
        """Whether module `rel` is sure to pass, certain or confident (one with no threshold
        never is)."""
        return rel in self.cut or rel in self.bound

    def past(self) -> list[str]:
        """The sampled mutants that ran to a verdict of their own after their module's stop: they
        do not count (Ignored, `protocol.EARLY_STOP`), as if the stop had come before they
        started. Those settled without a run (Ignored, not covered) stay as they are."""
        return [
            i
            for i, status in self.outcome.items()
            if status not in KEPT and self.position[i] >= self._stop(self.module[i])
        ]

    def _stop(self, rel: str) -> int:
        return self.cut.get(rel, len(self.order[rel]))

    def _record(self, rel: str, mutant_id: str, status: Status) -> None:
        self.outcome[mutant_id] = status
        self.furthest[rel] = max(self.furthest.get(rel, 0), self.position[mutant_id])
        ids = self.order[rel]
        while rel not in self.cut and self.read[rel] < len(ids):
            next_status = self.outcome.get(ids[self.read[rel]])
            if next_status is None:
                self._ahead(rel)
                return
            self._read(rel, next_status, ids[self.read[rel]] in self.quiet)
            self.read[rel] += 1
            self._check(rel)

    def _ahead(self, rel: str) -> None:
        """Read on past the outcomes still to come up to the last one known, each taken as a
        survivor: where the module is sure there, its stop comes at or before that place (a kill
        or an outcome that does not count in place of a survivor only raises the bound and lowers
        what is planned)."""
        threshold = self.thresholds.get(rel)
        if threshold is None or rel in self.bound:
            return
        ids = self.order[rel]
        known_detected, known_counted = self.known.get(rel, [0, 0])
        detected = known_detected + self.detected.get(rel, 0)
        ran = known_counted + self.ran.get(rel, 0)
        planned = self.planned.get(rel, 0)
        for place in range(self.read[rel], self.furthest[rel] + 1):
            i = ids[place]
            status = self.outcome.get(i)
            if status is not None and not _counted(status, self.observe, i in self.quiet):
                planned -= 1
            else:
                ran += 1
                detected += status in DETECTED
            if known_counted + place + 1 < min(FLOOR, len(ids)):
                continue
            if _sure(detected, known_counted + planned, ran, threshold):
                self.bound[rel] = place + 1
                return

    def _read(self, rel: str, status: Status, quiet: bool = False) -> None:
        """One outcome in the sample's order. A survivor counts as one (it may turn out
        Unexercised later, which only raises the score), a quiet one as none (`unsure` checks
        it at the end)."""
        if not _counted(status, self.observe, quiet):
            self.planned[rel] -= 1
            return
        self.ran[rel] = self.ran.get(rel, 0) + 1
        if status in DETECTED:
            self.detected[rel] = self.detected.get(rel, 0) + 1

    def _check(self, rel: str) -> None:
        """Stop module `rel` here when it is sure to pass."""
        threshold = self.thresholds.get(rel)
        if threshold is None or rel in self.cut:
            return
        known_detected, known_counted = self.known.get(rel, [0, 0])
        if known_counted + self.read[rel] < min(FLOOR, len(self.order[rel])):
            return
        detected = known_detected + self.detected.get(rel, 0)
        counted = known_counted + self.planned.get(rel, 0)
        ran = known_counted + self.ran.get(rel, 0)
        if _sure(detected, counted, ran, threshold):
            self.cut[rel] = self.read[rel]


def _counted(status: Status, observe: bool, quiet: bool) -> bool:
    """Whether an outcome counts in the score (a quiet survivor: not, `Enough.unsure`)."""
    return status in COUNTED and not (observe and status is Status.NO_COVERAGE) and not quiet


def _sure(detected: int, counted: int, ran: int, threshold: float) -> bool:
    """Certain (the kills reach the threshold of all that may count) or confident (the 99.9%
    lower bound of the score so far reaches it)."""
    return (
        detected * 100 >= threshold * counted - 1e-9
        or lower_bound(detected, ran) * 100 >= threshold
    )
