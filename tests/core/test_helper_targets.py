"""A test file that runs the project through a helper module of its test directory is held to the
modules its tests reach, as a file that imports only a package: pyflakes 4.1.0's
`test/test_dict.py` imports only `messages` (its expected message classes) and
`test.harness.TestCase`, whose `flakes()` runs `checker.Checker`. Gate 4 scored the file on
`messages.py` alone and rejected it for survivors in the messages' `__str__`, which no test of it
reads, while the checker it tests was out of scope. (Taking the helper's own imports as targets
instead missed yamllint's rules, which its harness loads by name.)"""

from __future__ import annotations

import textwrap

import pytest

from assay.project import Project
from tests.conftest import verify_json

FILES = {
    "lint/__init__.py": "",
    "lint/messages.py": """
        class Message:
            text = "message"

            def __init__(self, where):
                self.where = where

            def __str__(self):
                return f"{self.where}: {self.text}"


        class Duplicate(Message):
            text = "duplicate name"
        """,
    "lint/checker.py": """
        from lint.messages import Duplicate


        def check(source):
            seen, found = set(), []
            for i, word in enumerate(source.split()):
                if word in seen:
                    found.append(Duplicate(i))
                seen.add(word)
            return found
        """,
    "lint/test/__init__.py": "",
    "lint/test/harness.py": """
        import unittest

        from lint import checker


        class TestCase(unittest.TestCase):
            def flakes(self, source, *expected):
                got = [type(m) for m in checker.check(source)]
                self.assertEqual(got, list(expected))
        """,
    "lint/test/test_dup.py": """
        from lint import messages as m
        from lint.test.harness import TestCase


        class Test(TestCase):
            def test_duplicate(self):
                self.flakes("a b a", m.Duplicate)

            def test_twice(self):
                self.flakes("a a a", m.Duplicate, m.Duplicate)

            def test_none(self):
                self.flakes("a b c")
        """,
}


def test_a_helper_module_of_the_test_directory_is_found_by_absolute_and_relative_import(project):
    root = project(FILES)
    source = textwrap.dedent(FILES["lint/test/test_dup.py"])
    proj = Project.load(root)
    assert proj.targets_of(source, "lint/test/test_dup.py") == ["lint/messages.py"]
    assert proj.helper_of(source, "lint/test/test_dup.py") == "lint/test/harness.py"
    relative = source.replace("from lint.test.harness import", "from .harness import")
    assert proj.helper_of(relative, "lint/test/test_dup.py") == "lint/test/harness.py"
    # names a helper only passes on (jmespath's `from tests import unittest, OrderedDict`)
    assert proj.helper_of("from lint.test.harness import unittest\n", "lint/test/test_x.py") is None
    # a test file or a conftest is no helper
    assert proj.helper_of("from lint.test import test_dup\n", "lint/test/test_x.py") is None


@pytest.mark.slow  # gate 4 end to end: ~6 s at load 10
def test_a_file_is_judged_on_what_its_helper_runs(project, tmp_path):
    root = project(FILES, "[tool.assay]\ngates = ['compile', 'green', 'mutation']\n")
    f, shown = verify_json(root, "lint/test/test_dup.py", tmp_path / "r.json")
    assert f["verdict"] == "accepted", (f["gates"], shown)
    [gate] = [g for g in f["gates"] if g["gate"] == "mutation"]
    assert "lint/checker.py" in gate["reached"], gate


def test_a_helper_the_file_runs_the_project_through_is_part_of_its_cache_key(project):
    from assay.config import Settings
    from assay.model import Candidate
    from assay.verdict_key import cache_key

    root = project(FILES)
    rel = "lint/test/test_dup.py"
    proj = Project.load(root)
    source = (root / rel).read_text()
    candidate = Candidate(None, rel, source, targets=proj.targets_of(source, rel))
    before = cache_key(proj, candidate, Settings(), "py")
    harness = root / "lint/test/harness.py"
    harness.write_text(harness.read_text().replace("list(expected)", "list(expected)[:1]"))
    assert cache_key(Project.load(root), candidate, Settings(), "py") != before
