"""One test per family of related functions where their cases fit one: the tests of related
targets (`blend.relations`, and inverse pairs seen in the probe, `inverse`) that are small - a test
of statements, or a table of at most `MAX_FOLDED` rows - become one test of statements of at most
`MAX_STATEMENTS` cases, whatever their call shapes. toolz's `tail` and `last` (a table of each:
`last` is `tail(1, seq)[0]`), or isodate's `parse_date` and `date_isoformat` (each parses what the
other writes): a reader names such a test ("the tail of a sequence", "ISO dates both ways"), where
two merely alike functions (`first`, `count`) would be a grab-bag and stay apart. Two small tests of
one function (tables of other call shapes) are one test the same way.

Each case keeps its call and its assertion with its message, so the test fails on every mutant one
of the tests it replaces failed on; a statement that fails gate 2 costs its own case
(`combined.case_at`), as in any test of statements.
"""

from __future__ import annotations

from assay.writers.offline.combined import MAX_FOLDED, MAX_STATEMENTS
from assay.writers.offline.probe import Kept


def gather(
    items: list[tuple[list[Kept], bool]], related: dict[str, set[str]]
) -> list[tuple[list[Kept], bool]]:
    """The tests of a file (cases, whether statements), small tests of related functions joined
    into one test of statements at the place of its first member; so are two small tests of one
    function (two tables of other shapes). Packing: the smallest tests first, each into the first
    joined test it is related to (a function of one is, or is related to, a function of the
    other) and fits (`MAX_STATEMENTS` cases in all)."""
    small = [
        n for n, (cases, statements) in enumerate(items) if statements or len(cases) <= MAX_FOLDED
    ]
    fns = [set(k.function for k in cases) for cases, _ in items]
    bins: list[list[int]] = []
    for n in sorted(small, key=lambda n: (len(items[n][0]), n)):
        for b in bins:
            size = sum(len(items[m][0]) for m in b) + len(items[n][0])
            near = any((related.get(f, set()) | {f}) & fns[m] for f in fns[n] for m in b)
            if near and size <= MAX_STATEMENTS:
                b.append(n)
                break
        else:
            bins.append([n])
    head = {}  # item index -> the first item of its joined test
    for b in bins:
        if len(b) > 1:
            for n in b:
                head[n] = min(b)
    out: list[tuple[list[Kept], bool]] = []
    joined: dict[int, list[Kept]] = {}
    for n, (cases, statements) in enumerate(items):
        first = head.get(n)
        if first is None:
            out.append((cases, statements))
        elif first == n:
            joined[n] = list(cases)
            out.append((joined[n], True))
        else:
            joined[first].extend(cases)
    order = ("return", "iter", "raise")
    for cases in joined.values():  # per function in the order they came, returns before raises
        rank = {f: r for r, f in enumerate(dict.fromkeys(k.function for k in cases))}
        cases.sort(key=lambda k: (rank[k.function], order.index(k.outcome["k"])))
    return out
