"""A low-value test whose only check is that an exception type is raised says why it kills
nothing: arrow 1.4.0's `with pytest.raises(TypeError): get(None)` read "kills none of the 27
mutants of the code it runs", though every mutant of its `None` check still ends in a TypeError
raised further on."""

from __future__ import annotations

import textwrap

import pytest

from assay.api import verify
from assay.gates.raises_only import raises_only
from assay.model import Verdict

TESTS = """
    import unittest

    import pytest

    from pkg import parse


    def test_none():
        with pytest.raises(TypeError):
            parse(None)


    def test_int():
        assert parse(3) == 3


    def test_message():
        with pytest.raises(TypeError, match="not a value"):
            parse(None)


    class TestParse(unittest.TestCase):
        def test_str(self):
            with self.assertRaises(TypeError):
                parse("x")
    """


def test_the_tests_that_check_only_an_exception_type():
    assert raises_only(textwrap.dedent(TESTS)) == {
        "test_none": "TypeError",
        "TestParse::test_str": "TypeError",
    }


@pytest.mark.slow
def test_the_low_value_reason_says_the_mutants_raise_that_type_too(project):
    root = project(
        {
            "pkg/__init__.py": """
                def parse(x):
                    if x is None:
                        raise TypeError("None is not a value")
                    if isinstance(x, int):
                        return x
                    raise TypeError(f"cannot parse {x!r}")
                """,
            "tests/test_parse.py": TESTS,
        },
        "[tool.assay]\ngates = ['compile', 'green', 'mutation']\n",
    )
    f = verify([root / "tests"], root=root, use_cache=False).files[0]
    tests = {t.id.split("::", 1)[1]: t for t in f.tests}
    none = tests["test_none"]
    assert none.verdict is Verdict.LOW_VALUE, tests
    assert none.reason.endswith(
        ": it checks only that TypeError is raised, and the code raises one under each mutant "
        "too, from elsewhere: check the message as well (`match=`, `assertRaisesRegex`)"
    ), none.reason
    assert tests["test_message"].verdict is Verdict.ACCEPTED
