"""A smell that says a test checks too little or repeats another never makes a test fail: after a
failed test it follows the failure, it is not "the likely cause of the reject below". aiofiles
25.1.0's test_os.py (a test deleted a project file) was told to fix `AS008 duplicate test` first;
a smell that may make a test fail (the code under test mocked) still goes first."""

from __future__ import annotations

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
