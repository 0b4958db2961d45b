"""Tests written in one module and run in another (mixins in `tests/__init__.py`, base classes):
judged where they are written, reported under the name they run as."""

from __future__ import annotations

import textwrap

from assay.api import lint, verify
from assay.config import Settings
from assay.model import GateStatus
from assay.smells import analyze

WIDTH = {
    "wc.py": """\
        def width(text):
            return sum(2 if ord(c) > 0x1100 else 1 for c in text)
        """,
    "tests/__init__.py": """\
        from wc import width


        class WidthMixin:
            def test_ascii(self):
                assert width("ab") == 2

            def test_wide(self):
                assert width("\\u3042") == width("\\u3042")
        """,
    "tests/test_width.py": """\
        import unittest

        from tests import WidthMixin


        class TestWidth(WidthMixin, unittest.TestCase):
            pass
        """,
}


def rows(findings):
    return [(f.rule, f.path, f.line, f.test) for f in findings]


def test_inheriting_file_is_judged_on_the_mixin_tests_it_runs_not_reported_as_testless(project):
    root = project(WIDTH)
    source = (root / "tests/test_width.py").read_text()
    assert rows(analyze(source, "tests/test_width.py", {}, root=root)) == [
        ("AS006", "tests/__init__.py", 9, "TestWidth::test_wide")
    ]
    # without the project's files the inherited tests are unknown, but the file still has tests
    assert analyze(source, "tests/test_width.py", {}) == []


def test_mixin_module_given_to_smells_is_checked_and_each_finding_reported_once(project):
    root = project(WIDTH)
    report = lint([root / "tests/__init__.py", root / "tests/test_width.py"], root=root)
    assert rows(report.findings) == [("AS006", "tests/__init__.py", 9, "WidthMixin::test_wide")]
    assert report.exit_code == 1


def test_overridden_and_same_file_base_tests_are_judged_once_where_written(project):
    root = project(
        {
            **WIDTH,
            "tests/test_width.py": """\
                import unittest

                from tests import WidthMixin


                class Checks:
                    def test_empty(self):
                        assert True


                class TestWidth(Checks, WidthMixin, unittest.TestCase):
                    def test_wide(self):
                        self.assertEqual(width("\\u3042"), 2)
                """,
        }
    )
    source = (root / "tests/test_width.py").read_text()
    # a base class of the same file runs as a test of each class inheriting it, as pytest collects
    assert rows(analyze(source, "tests/test_width.py", {}, root=root)) == [
        ("AS006", "tests/test_width.py", 8, "TestWidth::test_empty")
    ]


def test_verify_gate_reports_the_inherited_smell_at_the_mixin(project):
    root = project(WIDTH)
    settings = Settings(gates=["compile", "smells"], cache=False)
    (f,) = verify([root / "tests/test_width.py"], settings).files
    gate = f.gates[-1]
    assert gate.status == GateStatus.REJECT
    assert "tests/__init__.py:9 AS006 test_wide: tautology" in gate.feedback


def test_a_mixin_also_run_in_its_own_module_is_inherited_all_the_same(project):
    root = project(
        {
            **WIDTH,
            "tests/base.py": textwrap.dedent(WIDTH["tests/__init__.py"])
            + "\n\nclass TestDefaultWidth(WidthMixin):\n    pass\n",
            "tests/test_width.py": WIDTH["tests/test_width.py"].replace(
                "from tests import", "from tests.base import"
            ),
        }
    )
    source = (root / "tests/test_width.py").read_text()
    assert rows(analyze(source, "tests/test_width.py", {}, root=root)) == [
        ("AS006", "tests/base.py", 9, "TestWidth::test_wide")
    ]


def test_a_mixin_run_by_two_classes_is_one_feedback_line_and_two_failing_tests(project):
    root = project(
        {
            "tests/test_checks.py": """\
                import unittest


                class Checks:
                    def test_empty(self):
                        assert True


                class TestA(Checks, unittest.TestCase):
                    pass


                class TestB(Checks, unittest.TestCase):
                    pass
                """,
        }
    )
    settings = Settings(gates=["compile", "smells"], cache=False)
    (f,) = verify([root / "tests/test_checks.py"], settings).files
    gate = f.gates[-1]
    assert gate.feedback.count("AS006") == 1
    assert sorted(t.id for t in gate.tests) == [
        "tests/test_checks.py::TestA::test_empty",
        "tests/test_checks.py::TestB::test_empty",
    ]


def test_a_helper_of_a_base_class_in_another_file_asserts(project):
    """nameparser 2.6's tests call `self.m(actual, expected, hn)`, an assert helper of
    `tests.base.HumanNameTestBase`: 40 tests of a file were AS001 "no assertion" (a reject)."""
    root = project(
        {
            "tests/__init__.py": "",
            "tests/base.py": """\
                class NameTestBase:
                    def m(self, actual, expected):
                        assert actual == expected, f"{actual!r} != {expected!r}"
                """,
            "tests/test_names.py": """\
                from tests.base import NameTestBase


                class NamesTestCase(NameTestBase):
                    def test_first(self):
                        self.m("Jose Aznar".split()[0], "Jose")

                    def test_nothing(self):
                        "Jose Aznar".split()
                """,
        }
    )
    source = (root / "tests/test_names.py").read_text()
    found = rows(analyze(source, "tests/test_names.py", {}, root=root))
    assert [(rule, test) for rule, _, _, test in found] == [
        ("AS001", "NamesTestCase::test_nothing")
    ]
