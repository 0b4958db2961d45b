"""Gate 4 judges each test: one that catches nothing another test of the file does not catch is
`low_value`; each target module is held to its own code class; a failing score names the tests
closest to each survivor."""

from __future__ import annotations

from assay.api import verify
from assay.config import Settings
from assay.model import GateStatus, Verdict

LIB = {
    "src/calc/__init__.py": "",
    "src/calc/ops.py": "def clamp(n, lo, hi):\n    if n < "
    "lo:\n        return lo\n    if n > hi:\n        return hi\n"
    "    return n\n",
    "src/calc/report.py": "import logging\n\nfrom calc.ops "
    "import clamp\n\nlog = logging.getLogger(__name__)\n\n\n"
    "def percent(n):\n    value = clamp(n, 0, 100)\n    return f'{value}%'\n",
}


def settings() -> Settings:
    s = Settings(gates=["compile", "green", "mutation"], cache=False)
    s.sandbox.timeout_s = 20
    return s


def test_tests_that_catch_nothing_new_are_low_value_and_the_rest_accepted(project):
    root = project(
        {
            **LIB,
            "tests/test_ops.py": """
        import pytest
        from calc.ops import clamp

        def test_below():
            assert clamp(-5, 0, 10) == 0

        def test_below_again():
            assert clamp(-1, 0, 10) == 0

        def test_runs():
            clamp(3, 0, 10)

        @pytest.mark.parametrize("n, want", [(11, 10), (10, 10), (5, 5), (0, 0)])
        def test_table(n, want):
            assert clamp(n, 0, 10) == want
        """,
        }
    )
    f = verify([root / "tests/test_ops.py"], settings()).files[0]
    gate = f.gates[-1]
    assert (f.verdict, gate.status) == (Verdict.ACCEPTED, GateStatus.WARN)
    by_name = {t.id.split("::")[1]: t for t in f.tests}
    assert by_name["test_runs"].verdict is Verdict.LOW_VALUE
    assert by_name["test_runs"].reason == "kills no mutant of the code it runs"
    # the two tests below the range catch the same mutants: the first one in the file keeps
    # its place
    assert by_name["test_below"].verdict is Verdict.ACCEPTED
    assert by_name["test_below_again"].verdict is Verdict.LOW_VALUE
    assert "other tests of the file kill too" in by_name["test_below_again"].reason
    # a parametrized test is one test: its cases share its verdict
    assert {by_name[f"test_table[{c}]"].verdict for c in ("11-10", "10-10", "5-5", "0-0")} == {
        Verdict.ACCEPTED
    }
    assert gate.feedback.startswith("WARN: Gate 4 — TESTS THAT CATCH NOTHING NEW")


def test_each_module_is_held_to_its_own_class_and_survivors_name_their_closest_tests(project):
    root = project(
        {
            **LIB,
            "tests/test_report.py": """
        from calc.ops import clamp
        from calc.report import percent

        def test_percent_above():
            percent(150)  # receives what report.py's mutants change, checks none of it

        def test_clamp_low():
            assert clamp(-1, 0, 5) == 0

        def test_clamp_high():
            assert clamp(150, 0, 100) == 100
        """,
        }
    )
    f = verify([root / "tests/test_report.py"], settings()).files[0]
    gate = f.gates[-1]
    modules = {m["file"]: m for m in gate.details["modules"]}
    assert (
        modules["src/calc/ops.py"]["code_class"] == "pure"
        and modules["src/calc/ops.py"]["threshold"] == 50
    )
    assert modules["src/calc/report.py"]["code_class"] == "service"
    assert modules["src/calc/report.py"]["threshold"] == 40
    # together the two modules would pass the strictest class's 50%; on its own report.py does not
    # reach 40%
    assert (modules["src/calc/ops.py"]["passed"], modules["src/calc/report.py"]["passed"]) == (
        True,
        False,
    )
    assert gate.status is GateStatus.REJECT
    lines = gate.feedback.splitlines()
    assert lines[0].startswith("REJECT: Gate 4 — LOW MUTATION SCORE (src/calc/report.py ")
    assert "   Closest tests: tests/test_report.py::test_percent_above" in lines
