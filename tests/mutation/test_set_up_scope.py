"""A `unittest.TestCase`'s `setUp` is its fixture: the code it runs is out of gate 4's scope, as a
pytest fixture's is. simpleeval 1.0.8's `test_deliberately_missed_features.py` (two tests that a
lambda raises `FeatureNotAvailable`) was rejected at gate 4, 56.5% < 60%, every survivor in
`SimpleEval.__init__`, which the `DRYTest.setUp` of `tests/base.py` calls for every test. A test
that checks the defaults of the object `setUp` built then reaches no mutant: gate 4 cannot judge
it (a note, as for a test a conftest fixture feeds), never `low_value`."""

from __future__ import annotations

import textwrap

import pytest

from assay.gates.set_up import set_up_fed
from assay.project import Project
from tests.conftest import verify_json

FILES = {
    "calc/__init__.py": "",
    "calc/ev.py": """
        class FeatureNotAvailable(Exception):
            pass


        class Evaluator:
            def __init__(self, names=None):
                self.names = names if names is not None else {}
                self.max_power = 4000000
                self.max_string = 100000
                self.functions = {"abs": abs, "min": min, "max": max}
                self.track = False
                self.mode = "strict"
                self.depth = 0
                self.history = []
                self.limit = 50 * 2

            def eval(self, text):
                if text.startswith("lambda"):
                    raise FeatureNotAvailable(text)
                return int(text) + 1
        """,
    "tests/__init__.py": "",
    "tests/base.py": """
        import unittest

        from calc.ev import Evaluator


        class DRYTest(unittest.TestCase):
            def setUp(self):
                self.e = Evaluator()
        """,
    "tests/test_missed.py": """
        from calc.ev import FeatureNotAvailable

        from .base import DRYTest


        class TestMissed(DRYTest):
            def test_lambda(self):
                with self.assertRaises(FeatureNotAvailable):
                    self.e.eval("lambda x: 22")

            def test_number(self):
                self.assertEqual(self.e.eval("41"), 42)


        class TestDefaults(DRYTest):
            def test_no_names(self):
                self.assertEqual(self.e.names, {})
        """,
}


def test_the_tests_a_set_up_feeds_are_known_by_method(project):
    root = project(FILES)
    source = textwrap.dedent(FILES["tests/test_missed.py"])
    how = "takes its objects from setUp (tests/base.py)"
    assert set_up_fed(Project.load(root), "tests/test_missed.py", source) == {
        "TestMissed::test_lambda": how,
        "TestMissed::test_number": how,
        "TestDefaults::test_no_names": how,
    }


def test_a_set_up_that_builds_nothing_of_the_project_feeds_no_test(project):
    files = {
        **FILES,
        "tests/test_plain.py": """
            import tempfile
            import unittest

            from calc.ev import Evaluator


            class TestPlain(unittest.TestCase):
                def setUp(self):
                    self.tmp = tempfile.mkdtemp()

                def test_eval(self):
                    self.assertEqual(Evaluator().eval("1"), 2)
            """,
    }
    root = project(files)
    source = textwrap.dedent(files["tests/test_plain.py"])
    assert set_up_fed(Project.load(root), "tests/test_plain.py", source) == {}


@pytest.mark.slow  # gate 4 end to end
def test_the_code_a_set_up_runs_is_out_of_gate_4s_scope(project, tmp_path):
    root = project(FILES, "[tool.assay]\ngates = ['compile', 'green', 'mutation']\n")
    f, shown = verify_json(root, "tests/test_missed.py", tmp_path / "r.json")
    gate = next(g for g in f["gates"] if g["gate"] == "mutation")
    assert f["verdict"] == "accepted", (gate, shown)
    # Evaluator.__init__ runs in setUp only: none of its mutants is the file's
    assert gate["scope"]["functions"] == ["calc/ev.py::Evaluator.eval"], gate
    tests = {t["id"].split("::", 1)[1]: t for t in f["tests"]}
    assert tests["TestMissed::test_lambda"]["verdict"] == "accepted"
    t = tests["TestDefaults::test_no_names"]
    assert t["verdict"] == "accepted", t
    assert t["note"] == (
        "gate 4 cannot judge it: it takes its objects from setUp (tests/base.py), and none of the"
        " code it runs in gate 4's scope (calc/ev.py) has a mutant"
    ), t


@pytest.mark.slow  # gate 4 end to end
def test_a_file_that_only_reads_what_set_up_built_is_not_a_test_of_no_code(project, tmp_path):
    files = {
        **FILES,
        "tests/test_defaults.py": """
            from .base import DRYTest


            class TestDefaults(DRYTest):
                def test_no_names(self):
                    self.assertEqual(self.e.names, {})

                def test_limit(self):
                    self.assertEqual(self.e.limit, 100)
            """,
    }
    root = project(files, "[tool.assay]\ngates = ['compile', 'green', 'mutation']\n")
    f, shown = verify_json(root, "tests/test_defaults.py", tmp_path / "r.json")
    gate = next(g for g in f["gates"] if g["gate"] == "mutation")
    # its tests run no function of the project themselves: not "a test of no code", a skip
    assert f["verdict"] != "rejected", (gate, shown)
    assert gate["status"] == "skip", gate
    assert "takes its objects from setUp (tests/base.py)" in gate["reason"], gate
