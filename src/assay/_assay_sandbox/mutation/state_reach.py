"""Which tests a mutant's module state can reach: the readers of what the tests running the
mutated line wrote, up to the first test whose setup resets it, and the earlier writers of what the
selected tests read (`plan`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .baseline_record import Baseline
    from .readers import Readers


def with_state(
    ids: set[str],
    direct: set[str],
    baseline: Baseline,
    readers: Readers | None,
    inert: Callable[[str, str], bool] | None = None,
) -> tuple[set[str], bool]:
    """Add the tests that may read module state written by a test running the mutated line, and the
    earlier writers of state the selected tests read. Returns (tests, whether they must run in
    collection order). `inert(key, name)`: a write the mutant cannot shape (a memo cache of code it
    cannot reach). A write reaches the tests after it up to the first one whose setup resets the
    global (`Baseline.reset_after`: schedule's `setUp` clears the job list every test fills)."""
    if not baseline.writes:
        return ids, False
    position = baseline.position
    written = {
        w for t in direct for w in baseline.writes.get(t, ()) if inert is None or not inert(*w)
    }
    out = set(ids)
    for global_ in written:
        # (writer, the last test its write reaches) for each test running the line that wrote it
        spans = [
            (position[t], baseline.reset_after(t, global_, direct))
            for t in direct
            if global_ in baseline.writes.get(t, ())
        ]
        known = None if readers is None else readers.readers_of(*global_)
        if known is None:  # anyone may read it: every later test its write reaches
            out.update(t for t in baseline.tests if any(p < position[t] <= q for p, q in spans))
        else:
            out.update(t for t in known if _reached(position[t], spans, len(baseline.ids)))
    if readers is not None:
        added = True
        # earlier tests whose writes the selected tests may read: they ran first in the baseline,
        # and no test between reset what they wrote (one that resets it in its setup reads it there,
        # but the write is the baseline's: the writer does not run the mutated line)
        while added:
            added = False
            for writer, names in baseline.writes.items():
                if writer in out:
                    continue
                at = position[writer]
                for key, name in names:
                    if inert is not None and inert(key, name):
                        continue
                    tests = (readers.readers_of(key, name) or set()) & out
                    if not any(position[t] > at for t in tests):
                        continue
                    reach = baseline.reset_after(writer, (key, name), direct)
                    if any(at < position[t] < reach for t in tests):
                        out.add(writer)
                        added = True
                        break
    return out, bool(written) or out != ids


def _reached(at: int, spans: list[tuple[int, int]], end: int) -> bool:
    """Whether a known reader at position `at` may read a write made at a span's start and reaching
    up to its end. Where no setup resets it (the span runs to the `end`), every reader, as before
    resets were known (in the child the writers run first, before readers earlier in collection
    order); where one does, those the sequential run lets see it: a test after the reset reads the
    reset value."""
    return any(q == end or p < at <= q for p, q in spans)
