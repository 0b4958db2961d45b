"""Gate 4's early stop for the Go engine, as Python's (`mutation.early_stop`): once the mutants
killed so far reach every target file's threshold even if every mutant left survived, the rest
need not count. They run only to prove the test functions that have not killed yet (never a wrong
`low_value`); those with no such test are Ignored unrun. Each Go mutant is a build and a link (0.6
CPU s), so a good file's gate 4 stops at about its threshold's share of its mutants."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait

from assay.mutation.attribution import module_limits
from assay.mutation.model import COUNTED, DETECTED, EARLY_STOP, Mutant, MutantResult, Status
from assay.mutation.tools.base import ToolRequest


class Certainty:
    """Detected and still-possible counted mutants per target file, against its threshold."""

    def __init__(self, scope: list[Mutant], limits: dict[str, float]) -> None:
        self.limits = limits  # target -> threshold, percent
        self.total = Counter(m.file for m in scope)  # counted at most: all, until one is not
        self.detected: Counter[str] = Counter()

    @classmethod
    def of(cls, scope: list[Mutant], request: ToolRequest, sources: dict[str, str]) -> Certainty:
        conf = request.settings.mutation
        limits = module_limits(sources, conf, request.project.packages)
        return cls(scope, {rel: t for rel, (_, t) in limits.items()})

    def add(self, m: Mutant, r: MutantResult) -> None:
        if r.status in DETECTED:
            self.detected[m.file] += 1
        elif r.status not in COUNTED:
            self.total[m.file] -= 1  # a build failure: the score's denominator shrinks

    def sure(self) -> bool:
        """Every file's score, and the whole's against the highest threshold (a file of few
        mutants is judged with the others), passes whatever the mutants left do."""
        if not self.total:
            return False
        top = max(self.limits.get(rel, 100.0) for rel in self.total)
        whole = sum(self.detected.values()) >= top / 100 * sum(self.total.values())
        return whole and all(
            self.detected[rel] >= self.limits.get(rel, 100.0) / 100 * n
            for rel, n in self.total.items()
        )


def run_order(scope: list[Mutant]) -> list[Mutant]:
    """The mutants in a fixed random order: those an early stop leaves out are a random part of
    the file's, not its last functions."""
    order = list(scope)
    random.Random(len(order)).shuffle(order)
    return order


def run_all(
    order: list[Mutant],
    names: list[str],
    each: dict[str, dict[str, set[int]]],
    covered: dict[str, set[int]],
    judge: Callable[[Mutant, list[str]], MutantResult],
    jobs: int,
    early: Certainty | None,
) -> dict[str, MutantResult]:
    """Every mutant's result, `jobs` at a time; past a sure pass (`early`), a mutant runs only the
    covering tests that have not killed yet, and counts as Ignored."""
    out: dict[str, MutantResult] = {}
    unproven = set(names)  # test functions that have not killed yet
    waiting = iter(order)
    running: dict[Future[MutantResult], tuple[Mutant, bool]] = {}
    with ThreadPoolExecutor(max_workers=jobs) as pool:

        def feed() -> None:
            while len(running) < jobs and (m := next(waiting, None)) is not None:
                if early is None or not early.sure() or m.line not in covered.get(m.file, ()):
                    running[pool.submit(judge, m, names)] = (m, False)
                    continue
                # a line no test's profile gives a block of its own (a `case` expression): any
                near = [n for n in names if m.line in each.get(n, {}).get(m.file, ())] or names
                among = [n for n in near if n in unproven]
                if among:
                    running[pool.submit(judge, m, among)] = (m, True)
                else:
                    out[m.id] = MutantResult(Status.IGNORED, reason=EARLY_STOP)

        feed()
        while running:
            done, _ = wait(running, return_when=FIRST_COMPLETED)
            for future in done:
                m, proving = running.pop(future)
                r = future.result()
                unproven -= set(r.killed_by)
                if proving:  # its kills prove tests; it is not counted
                    r.status, r.reason = Status.IGNORED, EARLY_STOP
                elif early is not None:
                    early.add(m, r)
                out[m.id] = r
            feed()
    return out
