"""The kept tests minimised against gate 4's own kill sets: no test function whose every kill the
others make (issue 28: a test is a test function; Pynguin and EvoSuite minimise a suite by its
coverage goals).

The cases were chosen on the probe's kill sets, which are partial where it stopped at a few
killers per mutant or had no time for a mutant (the cases kept for those only `reach` it). Gate 4
runs the file itself: with every covering test run on every mutant (`attribution = "exact"`), it
knows each test function's kills in its scope (the tested functions' lines). A greedy set cover of
those - the test killing most first, ties to the one with the fewest cases - then a pass that
drops any test whose kills the others all make, leaves the scoped score as it was with fewer test
functions. Kills gate 4 did not look at (a helper the targets call, out of its scope; a mutant out
of its sample of the scope) count as the probe saw them, so a test is never dropped for kills
gate 4 did not judge.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from assay.mutation.attribution import function_of
from assay.mutation.model import COUNTED, DETECTED, MutationResult
from assay.writers.offline.probe import Kept

NAMED = 3  # covering tests a note names before "and N more"


@dataclass
class Subsumed:
    """Test function -> the kept tests that kill every mutant it kills (greedy, most first)."""

    by: dict[str, list[str]] = field(default_factory=dict)

    def note(self) -> str:
        """One line for the report: which tests were left out, and which tests subsume each."""
        if not self.by:
            return ""
        parts = []
        for test, cover in self.by.items():
            shown = ", ".join(cover[:NAMED]) + (
                f" and {len(cover) - NAMED} more" if len(cover) > NAMED else ""
            )
            parts.append(f"{test} (by {shown})" if cover else f"{test} (kills none)")
        n = len(self.by)
        return (
            f"{n} test{'s' * (n != 1)} left out after gate 4: every mutant "
            f"{'they kill' if n != 1 else 'it kills'}, other kept tests kill too: "
            + "; ".join(parts)
        )


def test_kills(run: MutationResult, rows: dict[str, list[Kept]]) -> dict[str, set[str]] | None:
    """Test function name -> the mutants it kills: gate 4's, exact, for the mutants it ran (its
    sample: at most `mutation.sample` of the scope's); the probe's kills and reaches of its cases
    for the others (out of the sample or the scope), as far as the probe saw them. None when gate
    4 does not name the tests that killed (a tool without per-test results)."""
    if not run.per_test_kills:
        return None
    ran = {m for m, r in run.results.items() if r.status in COUNTED}
    out: dict[str, set[str]] = {name: set() for name in rows}
    for m, r in run.scored:
        if r.status not in DETECTED:
            continue
        for t in r.killed_by:
            name = function_of(t).split("::")[-1]
            if name in out:
                out[name].add(m.id)
    for name, cases in rows.items():
        for k in cases:
            out[name] |= (k.kills | k.reaches) - ran
    return out


def subsumed(kills: dict[str, set[str]], sizes: dict[str, int]) -> Subsumed:
    """The tests to leave out: a greedy cover of `kills` (most new kills first, then the fewest
    cases, `sizes`), then no kept test whose kills the other kept tests all make."""
    covered: set[str] = set()
    kept: list[str] = []
    for t in sorted(kills, key=lambda t: (-len(kills[t]), sizes.get(t, 0), t)):
        if kills[t] - covered:
            kept.append(t)
            covered |= kills[t]
    for t in sorted(kept, key=lambda t: (len(kills[t]), -sizes.get(t, 0))):
        others = set().union(*(kills[o] for o in kept if o != t))
        if kills[t] <= others:
            kept.remove(t)
    out = Subsumed()
    for t in kills:
        if t in kept:
            continue
        left, cover = set(kills[t]), []
        while left:
            best = max(kept, key=lambda o: (len(kills[o] & left), -sizes.get(o, 0)))
            cover.append(best)
            left -= kills[best]
        out.by[t] = cover
    return out
