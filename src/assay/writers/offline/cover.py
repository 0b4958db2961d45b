"""Which kept inputs become tests: a greedy set cover of the mutants they kill, and gate 4 foreseen.

Greedy: take the input that kills the most mutants no chosen input kills yet (ties to the shortest
call), at most `per_function` per function, until no input adds a kill; then drop the inputs whose
kills the others all make (`prune`). Every test kills a mutant no other test kills.

The writer scopes gate 4 to the lines of the functions a file's tests target; the probe knows which
mutants each input kills, so the score can be foreseen (over the mutants it ran) and functions that
would pull it under the threshold left out before the file is verified.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from assay.mutation.model import Mutant
from assay.writers.offline.probe import Kept

UNCOUNTED = {"equivalent", "duplicate", "compile_error"}
# mutants the probe did not judge: unknown to the foresight, which neither counts them killed nor
# survived (gate 4 runs them; under load most of a large module's mutants end here)
UNJUDGED = {"not_run", "timeout", "crash"}


def cover(
    candidates: Iterable[Kept],
    per_function: int,
    covered: set[str] | None = None,
    taken: Counter | None = None,
) -> list[Kept]:
    """Greedy set cover of mutants by inputs, starting from `covered` (kills of tests already kept)
    and `taken` (tests already kept per function)."""
    before = set(covered or ())
    covered = set(before)
    taken = Counter(taken or {})
    pool = [k for k in candidates if k.kills - covered]
    chosen: list[Kept] = []
    while pool:
        best = max(pool, key=lambda k: (len(k.kills - covered), -k.size, -_origin_rank(k)))
        if not best.kills - covered:
            break
        chosen.append(best)
        covered |= best.kills
        taken[best.function] += 1
        pool = [
            k
            for k in pool
            if k is not best and k.kills - covered and taken[k.function] < per_function
        ]
    return prune(chosen, before)


def prune(chosen: list[Kept], covered: set[str] | None = None) -> list[Kept]:
    """Keep a case only when it kills a mutant no other kept case (nor `covered`) kills: greedy
    picks the largest kill set first, and later picks can cover all of it. The fewest kills are
    weighed first, so the broad cases stay; what the suite kills does not change."""
    kept = list(chosen)
    for k in sorted(chosen, key=lambda k: (len(k.kills), -k.size)):
        others = set(covered or ()).union(*(o.kills for o in kept if o is not k))
        if k.kills <= others:
            kept.remove(k)
    return kept


def _origin_rank(k: Kept) -> int:
    """Among equals, an input a person wrote (a test, a doctest) reads best."""
    return {"tests": 3, "doctest": 2, "variant": 1, "regex": 1}.get(k.input.get("origin", ""), 0)


def foresee(
    chosen: list[Kept],
    mutants: list[Mutant],
    status: dict[str, str],
    spans: dict[str, tuple[int, int]],
) -> tuple[float | None, set[str]]:
    """(gate 4's score in percent as the probe sees it, the functions in its scope). The writer
    scopes gate 4 to the lines of the functions the tests target (`gates.scope`), so the mutants
    of the helpers they call are not counted here either."""
    scope = {k.function for k in chosen if k.function in spans}
    lines = {n for fn in scope for n in range(spans[fn][0], spans[fn][1] + 1)}
    counted = [
        m
        for m in mutants
        if any(n in lines for n in range(m.line, m.end_line + 1))
        and status.get(m.id, "not_run") not in UNCOUNTED | UNJUDGED
    ]
    if not counted:
        return None, scope
    killed = set().union(*(k.kills for k in chosen)) if chosen else set()
    return 100.0 * sum(m.id in killed for m in counted) / len(counted), scope


def fit_threshold(
    chosen: list[Kept],
    mutants: list[Mutant],
    status: dict[str, str],
    spans: dict[str, tuple[int, int]],
    threshold: float,
) -> tuple[list[Kept], list[str]]:
    """Leave out, one function at a time, the tests whose removal raises the foreseen score the
    most, until it reaches the threshold; returns (tests kept, functions left out)."""
    left_out: list[str] = []
    while chosen:
        score, _ = foresee(chosen, mutants, status, spans)
        if score is None or score >= threshold:
            break
        options = []
        for fn in dict.fromkeys(k.function for k in chosen):
            rest = [k for k in chosen if k.function != fn]
            options.append((foresee(rest, mutants, status, spans)[0] or 0.0, fn, rest))
        _, fn, chosen = max(options, key=lambda o: o[0])
        left_out.append(fn)
    return chosen, left_out
