"""Test ids of any length (python-multipart: a generated method named after its parameter's value,
10 million characters): a huge id travels through no file whole, so it neither makes a file
`unvalidated` ("File too large") nor costs minutes; reports keep it readable, shortened with a
digest of the whole id."""

from __future__ import annotations

import re

import pytest

from assay._assay_sandbox.short_ids import LIMIT, shorten
from assay.api import verify
from assay.model import Verdict

HUGE_TESTS = {
    "src/calc.py": """
        def double(text):
            if not text:
                return ""
            return text + text
        """,
    "tests/test_calc.py": """
        import pytest

        from calc import double

        HUGE = "\\r\\n" * 200_000


        class Cases(type):
            # as python-multipart's `parametrize_class`: one method per case, named after its value
            def __new__(mcls, name, bases, namespace):
                for text in (HUGE, "ab"):
                    def test(self, text=text):
                        assert double(text) == text * 2

                    namespace["test_double_" + text.encode().hex()] = test
                return super().__new__(mcls, name, bases, namespace)


        class TestDouble(metaclass=Cases):
            def test_empty(self):
                assert double("") == ""


        @pytest.mark.parametrize(
            "text", [HUGE, HUGE + "x", "ab"], ids=["ab" * 200_000, "ab" * 200_000 + "x", "ab"]
        )
        def test_double_param(text):
            assert double(text) == text + text
        """,
}
CONFIG = "[tool.pytest.ini_options]\npythonpath = ['src']\n"
DIGEST = re.compile(r"\.\.\.[0-9a-f]{12}\]?$")


def test_shortened_ids_are_bounded_stable_and_distinct():
    long_param = "tests/t.py::test_x[" + "a" * 5000 + "]"
    other = "tests/t.py::test_x[" + "a" * 4999 + "b]"
    assert shorten("tests/t.py::test_x[1]") == "tests/t.py::test_x[1]"
    short = shorten(long_param)
    assert len(short) <= LIMIT and short == shorten(long_param) != shorten(other)
    # the function's id is whole: a fresh collection names it on pytest's command line
    assert short.startswith("tests/t.py::test_x[aaaa") and DIGEST.search(short)
    long_name = "tests/t.py::TestX::test_" + "b" * 5000
    assert len(shorten(long_name)) <= LIMIT and shorten(long_name).startswith("tests/t.py::TestX")


@pytest.mark.slow  # a verify of gates 1-4, about 7 s
def test_a_test_id_of_a_million_characters_is_judged_under_a_short_readable_id(project):
    root = project(HUGE_TESTS, CONFIG)
    report = verify([root / "tests"], root=root)
    [f] = report.files
    assert f.verdict is Verdict.ACCEPTED, f
    ids = [t.id for t in f.tests]
    assert len(ids) == len(set(ids)) == 6
    assert all(len(i) <= LIMIT for i in ids), [len(i) for i in ids]
    huge = [i for i in ids if DIGEST.search(i)]
    assert len(huge) == 3  # the two huge parameters and the huge method name
    assert sum(i.startswith("tests/test_calc.py::test_double_param[abab") for i in huge) == 2
    assert any(i.startswith("tests/test_calc.py::TestDouble::test_double_0d0a0d0a") for i in huge)
    # gate 4 ran the huge tests against the mutants, under their short ids
    mutation = next(g for g in f.gates if g.gate == "mutation")
    assert mutation.details["killed"] >= 2, mutation.details
