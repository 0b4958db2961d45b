"""A project whose pytest config turns pytest-cov on (`addopts = --cov --cov-report=html`, as
wcwidth's tox.ini does): assay's own pytest runs must not measure coverage nor write htmlcov/ - the
green gate took that session-end write for files the tests changed and rejected every file. And a
pytest usage error (`-p no:cov` in pytest_args against `--cov` in addopts) is a configuration error,
exit 2, never a verdict."""

from __future__ import annotations

import pytest

from tests.conftest import run_cli

pytest.importorskip("pytest_cov")  # in the dev extras

FILES = {
    "src/wid/__init__.py": """\
        def width(text):
            if not text:
                return 0
            return len(text)
        """,
    "tests/test_wid.py": """\
        import coverage

        from wid import width

        def test_width():
            assert coverage.Coverage.current() is None  # a probe: pytest-cov measures no run
            assert width("ab") == 2
            assert width("") == 0
        """,
    "tox.ini": "[pytest]\naddopts = --cov --cov-report=html\n",
}
FAST = '[tool.assay]\ngates = ["compile", "green"]\n'
NO_COV = '[tool.assay.python]\npytest_args = ["-p", "no:cov"]\n'


def test_verify_ignores_the_projects_coverage_settings(project):
    root = project(FILES, FAST)
    done = run_cli("verify", "tests/test_wid.py", "--no-cache", "-q", cwd=root)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "accepted" in done.stdout


def test_mutate_ignores_the_projects_coverage_settings(project):
    root = project(FILES)
    done = run_cli(
        "mutate", "src/wid/__init__.py", "--tests", "tests", "--no-cache", "-q", cwd=root
    )
    assert done.returncode == 0, done.stdout + done.stderr  # the probe failed: no mutant killed
    assert "killed 5" in done.stdout


def test_targets_measure_the_tests_not_pytest_cov(project):
    root = project(
        {
            **FILES,
            "tests/test_wid.py": "from wid import width\n\n\n"
            "def test_width():\n    assert width('ab') == 2\n",
        }
    )
    done = run_cli("targets", "--no-cache", cwd=root)
    assert done.returncode == 0, done.stdout + done.stderr
    # 2 of its 3 lines run: pytest-cov's own measurement would leave assay's coverage.py with none
    assert "width  line 1  coverage 67%" in done.stdout


@pytest.mark.parametrize(
    "command",
    [
        ["verify", "tests/test_wid.py", "-q"],
        ["mutate", "src/wid", "--tests", "tests", "-q"],
        ["targets"],
    ],
)
def test_a_pytest_usage_error_is_a_configuration_error(project, command):
    root = project(FILES, FAST + NO_COV)
    done = run_cli(*command, "--no-cache", cwd=root)
    assert done.returncode == 2, done.stdout + done.stderr
    (line,) = done.stderr.strip().splitlines()
    assert "unrecognized arguments: --cov" in line
    assert "[tool.assay.python]" in line and "addopts" in line
    assert "Traceback" not in done.stderr
