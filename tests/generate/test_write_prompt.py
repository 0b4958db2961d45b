"""The write prompt for a small model (issue 28): code that still parses when a long table is cut,
methods shown under their own class, a prompt that ends with the behaviours to test and the import
lines to start with, and a pasted copy of the code under test taken out of an answer, its tests
kept. Pure functions on files in tmp_path: no model, no subprocess."""

from __future__ import annotations

import ast

from assay.llm.brief import write_brief
from assay.llm.context import existing_tests
from assay.llm.excerpt import Module, Named, excerpt
from assay.project import Project
from assay.writers.copies import strip_copies
from assay.writers.imports import add_missing_imports, module_bindings
from assay.writers.salvage import cut_failures
from tests.conftest import write_project

RULES = "RULES = [\n" + "".join(f"    ({i}, 'r{i}'),\n" for i in range(30)) + "]\n"
WORDS = (
    '"""Words."""\n\n'
    + RULES
    + '''

class Shelf:
    def put(self, word: str) -> None:
        self.word = word


class Stack:
    def push(self, word: str) -> None:
        if not word:
            raise ValueError("empty")
        self.top = word


def plural(word: str) -> str:
    """The plural.

    >>> plural("cat")
    'cats'
    """
    for n, rule in RULES:
        if word.endswith(rule):
            return word
    return word + "s"
'''
)


ODD = """\
from unittest import mock

from words import core


def test_plural_mocked():
    with mock.patch.object(core, "plural") as fake:
        assert core.plural("a") is fake.return_value
"""
OWN = """\
from words.core import plural


def test_plural_adds_s():
    assert plural("dog") == "dogs"
"""


def project(tmp_path) -> Project:
    root = write_project(
        tmp_path / "p",
        {
            "src/words/__init__.py": "",
            "src/words/core.py": WORDS,
            "tests/test_a_mocked.py": ODD,
            "tests/test_core.py": OWN,
        },
        '[tool.pytest.ini_options]\npythonpath = ["src"]\n',
    )
    return Project.load(root)


def test_a_long_table_is_cut_so_that_the_excerpt_still_parses(tmp_path):
    text = excerpt(project(tmp_path), Module("src/words/core.py", [Named("plural")]))
    assert "    (3, 'r3'),\n    # ... 26 more lines\n]" in text and "(29, 'r29')" not in text
    code = text.split("\n", 1)[1].split("# not yet run")[0]
    ast.parse(code)  # before: the table stopped after five entries, unclosed


def test_methods_are_shown_under_their_own_class(tmp_path):
    # asked in another order than the file's: each method still follows its class's header
    wanted = [Named("Stack.push"), Named("Shelf.put")]
    text = excerpt(project(tmp_path), Module("src/words/core.py", wanted))
    assert text.index("class Shelf") < text.index("def put") < text.index("class Stack")
    assert text.index("class Stack") < text.index("def push")


def test_the_brief_names_imports_behaviours_and_an_example_from_the_docstring(tmp_path):
    wanted = [Named("plural"), Named("Stack.push")]
    brief = write_brief(project(tmp_path), Module("src/words/core.py", wanted, "words.core"))
    assert brief.imports == "import pytest\n\nfrom words.core import Stack, plural"
    assert brief.behaviours == [
        "`Stack.push` raises `ValueError` when `not word`",
        "`plural` on its docstring's examples",
        "`plural` when `word.endswith(rule)` is true, and when it is false",
    ]
    assert brief.example_is_ours
    assert brief.example == "def test_plural_example():\n    assert plural(\"cat\") == 'cats'"


PASTED = """\
import pytest
from words.core import Stack

RULES = [(0, "r0")]


def plural(word):
    return word + "s"


def test_plural():
    assert plural("cat") == "cats"


def test_push():
    with pytest.raises(ValueError):
        Stack().push("")
"""


def test_a_pasted_copy_is_taken_out_and_its_names_imported():
    code, copied = strip_copies(PASTED, {"RULES", "plural", "Stack", "Shelf"}, "words.core")
    assert copied == ["RULES", "plural"]
    assert code.startswith(
        "import pytest\nfrom words.core import Stack\nfrom words.core import plural\n"
    )
    assert "def plural" not in code and "RULES" not in code and "def test_push" in code


def test_a_file_without_a_copy_or_without_tests_is_left_alone():
    mine = "from words.core import plural\n\n\ndef test_plural():\n    assert plural('a') == 'as'\n"
    assert strip_copies(mine, {"plural"}, "words.core") == (mine, [])
    only_copy = "def plural(word):\n    return word + 's'\n"
    assert strip_copies(only_copy, {"plural"}, "words.core") == (only_copy, [])


def test_the_one_style_sample_comes_from_the_test_file_named_after_the_module(tmp_path):
    text = existing_tests(project(tmp_path), "src/words/core.py", calls=frozenset({"plural"}))
    assert text.startswith("# tests/test_core.py\n")
    assert "def test_plural_adds_s" in text and "# tests: test_plural_mocked" in text
    assert "mock.patch" not in text  # before: each file's sample, the mocked one's first


MODULE = """\
import re
from decimal import Decimal as D

LIMIT = 3


def cut(text):
    return re.sub(" +", " ", text)[:LIMIT]
"""


def test_names_the_module_binds_are_imported_others_left_to_the_feedback():
    answer = (
        '"""Tests."""\n\n\ndef test_cut(tmp_path):\n    for word in ["a  b"]:\n'
        "        assert cut(word) == D(LIMIT) or re.escape(word) or MISSING or pkg.text\n"
        "    with pytest.raises(TypeError):\n        cut(None)\n"
    )
    code, imported = add_missing_imports(answer, module_bindings(MODULE, "pkg.text"))
    assert imported == ["D", "LIMIT", "cut", "pkg", "pytest", "re"]
    assert code.startswith(
        '"""Tests."""\nfrom decimal import Decimal as D\nfrom pkg.text import LIMIT\n'
        "from pkg.text import cut\nimport pkg.text\nimport pytest\nimport re\n"
    )
    assert "MISSING" not in imported  # nobody's name: gate 2 and its advice
    assert add_missing_imports(code, module_bindings(MODULE, "pkg.text")) == (code, [])


def test_a_test_whose_only_check_failed_is_said_to_go_for_that_reason():
    source = (
        "import pytest\n\n\n@pytest.mark.parametrize('n', [1, 2])\ndef test_one(n):\n"
        "    assert n == 1\n\n\ndef test_two():\n    int('x')\n    assert True\n\n\n"
        "def test_three():\n    assert 3 == 3\n"
    )
    _, cuts = cut_failures(
        source,
        {"t.py::test_one[2]": 6, "t.py::test_two": 10},
        [
            "t.py::test_one[2]",
            "t.py::test_two",
        ],
    )
    assert [c.describe() for c in cuts] == [
        "test_one (the whole test: its only check failed)",  # before: "is not in an assertion"
        "test_two (the whole test: its failure is not in an assertion)",
    ]
