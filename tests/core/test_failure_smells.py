"""A smell that says a test checks too little or repeats another never makes a test fail: after a
failed test it follows the failure, it is not "the likely cause of the reject below". aiofiles
25.1.0's test_os.py (a test deleted a project file) was told to fix `AS008 duplicate test` first;
a smell that may make a test fail (the code under test mocked) still goes first."""

from __future__ import annotations

import pytest

from tests.conftest import run_cli

FILES = {
    "calc.py": "def add(a, b):\n    return a + b\n",
    "tests/test_calc.py": """
        from unittest import mock

        import calc
        from calc import add


        def test_wrong():
            assert add(2, 2) == 5


        def test_same():
            assert add(1, 1) == 2


        def test_again():
            assert add(1, 1) == 2


        def test_mocked():
            with mock.patch("calc.add", return_value=9):
                assert calc.add(1, 1) == 9
        """,
}


def test_smells_that_cannot_fail_a_test_follow_the_failure(project):
    root = project(FILES, "[tool.assay]\ngates = ['compile', 'green', 'smells']\n")
    proc = run_cli("verify", "tests/test_calc.py", "-f", "text", cwd=root)
    out = proc.stdout
    failure = out.index("REJECT: Gate 2 — TEST FAILURE")
    duplicate = out.index("AS008 test_again")
    mocked = out.index("AS005 test_mocked")
    assert mocked < failure < duplicate, out
    assert "ALSO: Gate 5 — TEST SMELLS (static check; not what makes a test fail)" in out, out
    assert out.index("not what makes a test fail") < duplicate, out


LOW_SCORE = {
    "calc.py": """
        def add(a, b):
            return a + b


        def sign(x):
            if x > 0:
                return 1
            if x < 0:
                return -1
            return 0
        """,
    "tests/test_calc.py": """
        from calc import add, sign


        def test_add():
            assert add(1, 2) == 3


        def test_add_type():
            assert isinstance(add(1, 2), int)


        def test_sign():
            sign(-5)
            sign(0)
            assert sign(5) == 1
        """,
}


@pytest.mark.slow  # gate 4
def test_smells_of_tests_that_run_no_survivor_follow_a_low_score(project):
    """platformdirs 4.3.6's test_api.py: rejected at gate 4 for android.py, whose survivors only
    `test_android_active` runs, with AS009 on four `isinstance` tests put first as "the likely
    cause of the reject below"."""
    root = project(LOW_SCORE, "[tool.assay]\ngates = ['compile', 'green', 'mutation', 'smells']\n")
    proc = run_cli("verify", "tests/test_calc.py", "-f", "text", cwd=root)
    out = proc.stdout
    low = out.index("REJECT: Gate 4 — LOW MUTATION SCORE")
    weak = out.index("AS009 test_add_type")
    assert low < weak, out
    assert "in tests that run none of the mutants that survived" in out, out
