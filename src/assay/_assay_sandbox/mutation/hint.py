"""Tests whose names hold the words of a mutated line: likely killers, tried first.

Table-driven tests carry their data in their ids (`test_pluralize[ox-oxen]`), and a table row
carries the same words (`(r"(?i)(ox)$", r"\\1en")`): the mutant of that row is killed by the test
named after it, which line coverage cannot tell apart from the 170 other tests that read the table.
A line of a function that the module body calls while it builds such a table
(`_irregular('cow', 'kine')`) also carries the words of the calls that ran it: a branch only that
call takes is killed by the test named after it. A word weighs more the fewer covering tests name it
(one in every name tells nothing). Only the order of the tests changes, never which tests run or the
verdict: a wrong hint costs one test.
"""

from __future__ import annotations

import math
import re

from ..protocol import MutantSpec

_WORD = re.compile(r"[a-z0-9]{2,}")
# chance of killing given to the best-named test (below a killer of the same line: 0.9)
HINT_P = 0.8


class Hints:
    def __init__(self, paths: dict[str, str], sites: dict[tuple[str, int], set[int]] | None = None):
        # (rel, line) -> lines of the module body whose calls ran it at import
        self.sites = sites or {}
        self.lines: dict[str, list[str]] = {}
        for rel, path in paths.items():
            try:
                with open(path, encoding="utf-8") as fh:
                    self.lines[rel] = fh.read().lower().splitlines()
            except (OSError, UnicodeDecodeError):
                self.lines[rel] = []

    def chances(self, m: MutantSpec, tests: list[str]) -> dict[str, float]:
        """Test -> chance of killing `m` from the words they share (only tests that share one)."""
        lines = self.lines.get(m.file, [])
        calls = {
            site
            for line in range(m.line, m.end_line + 1)
            for site in self.sites.get((m.file, line), ())
        }
        words = set(
            _WORD.findall(
                "\n".join(
                    lines[m.line - 1 : m.end_line]
                    + [lines[c - 1] for c in calls if 0 < c <= len(lines)]
                )
            )
        )
        if not words or not tests:
            return {}
        names = {t: t.rpartition("::")[2].lower() for t in tests}
        score: dict[str, float] = {}
        for word in words:
            named = [t for t, name in names.items() if word in name]
            if named and len(named) < len(tests):
                weight = math.log(len(tests) / len(named))
                for t in named:
                    score[t] = score.get(t, 0.0) + weight
        best = max(score.values(), default=0.0)
        return {t: HINT_P * s / best for t, s in score.items()} if best else {}
