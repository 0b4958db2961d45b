"""What a run's children wrote of each test's observations (`observe`): one JSON line per test,
its digest and, where it may be needed, each observation point's hash (`exercised.steady`)."""

from __future__ import annotations

import json
from typing import Any, NamedTuple

MAX_POINTS = 2000  # a test with more points keeps only its digest (judged whole, as before)


class Seen(NamedTuple):
    """One test's observations in one run: the digest of them all, and each point's hash (None
    when there were more than `MAX_POINTS`)."""

    digest: str
    points: tuple[str, ...] | None


def json_line(test: str, digest: str, points: list[str] | None = None) -> str:
    row: dict[str, Any] = {"test": test, "digest": digest}
    if points is not None and len(points) <= MAX_POINTS:
        row["points"] = points
    return json.dumps(row) + "\n"


def read(path: str) -> dict[str, Seen]:
    """test -> what it saw, as a run's children wrote it; a test seen twice with two digests (a
    split mutant ran it twice) has none."""
    out: dict[str, Seen] = {}
    twice: set[str] = set()
    try:
        with open(path, encoding="utf-8") as fh:
            for line in fh:
                try:
                    row = json.loads(line)
                    points = row.get("points")
                    seen = Seen(row["digest"], None if points is None else tuple(points))
                    test = row["test"]
                except (ValueError, KeyError, TypeError, AttributeError):
                    continue
                if out.setdefault(test, seen).digest != seen.digest:
                    twice.add(test)
    except OSError:
        pass
    return {test: digest for test, digest in out.items() if test not in twice}
