"""Warming the worker before it forks mutant children: what every child would otherwise
compute again.

The baseline runs in children, so the worker itself never ran a test: its `re` cache is empty and no
item knows its `location` (a cached path computation pytest makes for each test it runs). Each
mutant child computed both again (inflection, 40 tests in a child: 62-86 ms cold, 29 ms warm). A
compiled pattern depends only on (pattern, flags), a location only on the item's path: filling them
in the parent changes nothing a test can observe but speed. Caches of the project's own
(`lru_cache`, registries) are never warmed: their contents are what a mutant may change (`state`).
"""

from __future__ import annotations

import contextlib
import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pytest

_DEBUG = 128  # re.DEBUG: compiling prints


def patterns() -> list[list]:
    """In a baseline child, after its tests: the (pattern, flags) pairs in `re`'s cache, oldest
    first, as JSON (a bytes pattern as latin-1 text, tagged)."""
    out = []
    for key in list(getattr(re, "_cache", {})):
        if len(key) == 3 and isinstance(key[2], int) and not key[2] & _DEBUG:
            if isinstance(key[1], str):
                out.append(["s", key[1], key[2]])
            elif isinstance(key[1], bytes):
                out.append(["b", key[1].decode("latin-1"), key[2]])
    return out


def compile_all(found: list[list]) -> int:
    """In the worker: compile each pattern once (a pattern that no longer compiles is skipped);
    how many."""
    done = 0
    for kind, text, flags in found:
        try:
            re.compile(text if kind == "s" else text.encode("latin-1"), flags)
            done += 1
        except (re.error, TypeError, ValueError, OverflowError):
            continue
    return done


def warm(items: list[pytest.Item], found: list[list]) -> None:
    """In the worker, before forking: the baseline's patterns compiled, each item's location known,
    the failure watch registered."""
    from .patch import FailureWatch

    compile_all(found)
    for item in items:
        with contextlib.suppress(Exception):  # a plugin's item type: the child meets the same error
            _ = item.location
    FailureWatch.on(items)
