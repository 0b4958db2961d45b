"""Tests named after the words of a mutated line are tried first; words every test names weigh nothing."""

from __future__ import annotations

import pytest

from assay._assay_sandbox.mutation.hint import HINT_P, Hints
from assay._assay_sandbox.protocol import MutantSpec

SOURCE = '''PLURALS = [
    (r"(?i)(octop|vir)i$", r"\\1us"),
    (r"(?i)(ox)$", r"\\1en"),
]
'''
TESTS = ["tests/test_words.py::test_plural[octopus-octopi]", "tests/test_words.py::test_plural[virus-viri]",
         "tests/test_words.py::test_plural[ox-oxen]", "tests/test_words.py::test_plural[cat-cats]"]


def _mutant(line: int) -> MutantSpec:
    return MutantSpec(id=f"words.py#{line}", file="words.py", start=0, end=1, replacement="''", line=line,
                      end_line=line, stmt_line=1, function="<module>")


def test_the_tests_named_after_a_table_row_come_first_and_the_rest_are_not_hinted(tmp_path):
    path = tmp_path / "words.py"
    path.write_text(SOURCE, encoding="utf-8")
    hints = Hints({"words.py": str(path)})
    octopus = hints.chances(_mutant(2), TESTS)
    assert set(octopus) == set(TESTS[:2]) and max(octopus.values()) == pytest.approx(HINT_P)
    ox = hints.chances(_mutant(3), TESTS)
    assert max(ox, key=ox.__getitem__) == TESTS[2] and TESTS[3] not in ox
    # "plural" is in every name: no hint from it; a line without words gives none
    assert hints.chances(_mutant(4), TESTS) == {}
    assert Hints({"gone.py": str(tmp_path / "gone.py")}).chances(_mutant(2), TESTS) == {}
