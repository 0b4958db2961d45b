"""Does a call read the command line? A function that reads `sys.argv` beyond the program's name
(`docopt(doc)`'s `sys.argv[1:]`) has an outcome that depends on how pytest was started: `pytest`
alone and `pytest -k x` give it different arguments, the probe's worker others again. Such an
outcome is not pinned."""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator
from typing import Any


class _Watched(list):
    """`sys.argv` during a call: remembers a read of anything but `argv[0]`."""

    read = False

    def __getitem__(self, i: Any) -> Any:
        if i != 0:
            _Watched.read = True
        return super().__getitem__(i)

    def __iter__(self) -> Iterator[Any]:
        _Watched.read = True
        return super().__iter__()

    def __len__(self) -> int:
        _Watched.read = True
        return super().__len__()

    def __contains__(self, item: object) -> bool:
        _Watched.read = True
        return super().__contains__(item)

    def copy(self) -> list:
        _Watched.read = True
        return list(super().__iter__())


@contextlib.contextmanager
def watched() -> Iterator[list[bool]]:
    """Within: `sys.argv` watched; the list yielded holds, after, whether the call read it."""
    saved = sys.argv
    _Watched.read = False
    sys.argv = _Watched(saved)
    out = [False]
    try:
        yield out
    finally:
        out[0] = _Watched.read
        sys.argv = saved
