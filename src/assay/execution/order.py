"""The order files start in: the longest first, by what each file's gates took in the previous run
(kept in the store under `durations`), so that the files still running at the end are short ones
and no core idles while one long file finishes alone (longest processing time first). Files never
timed start first, in the order given: any of them may be long. The report keeps the order given.
"""

from __future__ import annotations

from collections.abc import Sequence

from assay.store import Store

NAMESPACE = "durations"


def longest_first(store: Store, files: Sequence[str]) -> list[int]:
    """Indices into `files` in the order to start them."""
    took = [store.get(NAMESPACE, rel) for rel in files]
    return sorted(range(len(files)), key=lambda i: (took[i] is not None, -(took[i] or 0.0), i))


def remember(store: Store, rel: str, seconds: float) -> None:
    """What `rel`'s gates took this run: a hint for the next run's order, never a verdict."""
    store.put(NAMESPACE, rel, round(seconds, 3))
