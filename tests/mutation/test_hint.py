"""Tests named after the words of a mutated line are tried first; words every test names
weigh nothing."""

from __future__ import annotations

import pytest

from assay._assay_sandbox.mutation.hint import HINT_P, Hints
from assay._assay_sandbox.protocol import MutantSpec
from assay.config import SandboxConfig
from assay.mutation.model import Status
from assay.sandbox import Sandbox
from tests.mutation._mutation_support import run_engine

SOURCE = """PLURALS = [
    (r"(?i)(octop|vir)i$", r"\\1us"),
    (r"(?i)(ox)$", r"\\1en"),
]
"""
TESTS = [
    "tests/test_words.py::test_plural[octopus-octopi]",
    "tests/test_words.py::test_plural[virus-viri]",
    "tests/test_words.py::test_plural[ox-oxen]",
    "tests/test_words.py::test_plural[cat-cats]",
]


def _mutant(line: int) -> MutantSpec:
    return MutantSpec(
        id=f"words.py#{line}",
        file="words.py",
        start=0,
        end=1,
        replacement="''",
        line=line,
        end_line=line,
        stmt_line=1,
        function="<module>",
    )


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


RULES = """RULES = {}


def _irregular(singular, plural):
    if singular[0] == plural[0]:
        RULES[singular] = plural
    else:
        RULES[singular] = "" + plural


_irregular("person", "people")
_irregular("man", "men")
_irregular("child", "children")
_irregular("cow", "kine")


def pluralize(word):
    return RULES.get(word, word + "s")
"""
WORDS = [
    "ant",
    "bee",
    "cat",
    "dog",
    "eel",
    "fox",
    "gnu",
    "hen",
    "ibis",
    "jay",
    "koi",
    "lark",
    "mole",
    "newt",
    "owl",
    "pig",
    "quail",
    "rat",
    "seal",
    "toad",
    "cow",
]
PAIRS = "\n".join(f'    ("{w}", "{w}s"),' for w in WORDS[:-1])


def test_a_branch_only_one_import_time_call_takes_is_tried_with_the_test_named_after_that_call(
    project,
):
    # the mutated line runs at import for `_irregular("cow", "kine")` alone: its words name
    # the killer
    root = project(
        {
            "src/irr/__init__.py": "",
            "src/irr/rules.py": RULES,
            "tests/test_rules.py": "import pytest\nfrom irr.rules import pluralize\n\n\n"
            f"@pytest.mark.parametrize('word, plural', [\n{PAIRS}\n    ('cow', 'kine'),\n])\n"
            "def test_pluralize(word, plural):\n    assert pluralize(word) == plural\n",
        }
    )
    run = run_engine(
        root,
        Sandbox(SandboxConfig(timeout_s=60), protect=root),
        ["src/irr/rules.py"],
        ["tests/test_rules.py"],
    )
    ((m, r),) = [(m, r) for m, r in run.scored if m.line == 8 and m.operator == "string"]
    assert r.status is Status.KILLED
    assert r.killed_by == ["tests/test_rules.py::test_pluralize[cow-kine]"]
    assert r.tests_completed == 1  # tried first among the 21 tests that read the table
