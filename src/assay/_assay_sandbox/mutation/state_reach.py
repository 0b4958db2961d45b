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
    mutated: set[tuple[str, int]] | None = None,
) -> tuple[set[str], bool]:
    """Add the tests that may read module state written by a test running the mutated line, and the
    earlier writers of state the selected tests read. Returns (tests, whether they must run in
    collection order). `inert(key, name)`: a write the mutant cannot shape (a memo cache of code it
    cannot reach). A write reaches the tests after it up to the first one whose setup resets the
    global (`Baseline.reset_after`: schedule's `setUp` clears the job list every test fills) and
    runs none of the `mutated` lines (rel, line) before its own code (None: none resets)."""
    if not baseline.writes:
        return ids, False
    position = baseline.position

    def reset_after(writer: str, global_: tuple[str, str]) -> int:
        return (
            len(baseline.ids) if mutated is None else baseline.reset_after(writer, global_, mutated)
        )

    written = {
        w for t in direct for w in baseline.writes.get(t, ()) if inert is None or not inert(*w)
    }
    out = set(ids)
    for global_ in written:
        # (writer, the last test its write reaches) for each test running the line that wrote it
        spans = [
            (position[t], reset_after(t, global_))
            for t in direct
            if global_ in baseline.writes.get(t, ())
        ]
        known = None if readers is None else readers.readers_of(*global_)
        if known is None:  # anyone may read it: every later test its write reaches
            out.update(t for t in baseline.tests if any(p < position[t] <= q for p, q in spans))
        elif global_ not in baseline.resets:  # as before resets were known: every reader (in
            # the child the writers run first, before readers earlier in collection order)
            out.update(known)
        else:  # a global setups reset: the readers the sequential run lets see the write
            out.update(t for t in known if any(p < position[t] <= q for p, q in spans))
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
                    reach = reset_after(writer, (key, name))
                    if any(at < position[t] < reach for t in tests):
                        out.add(writer)
                        added = True
                        break
    return out, bool(written) or out != ids
