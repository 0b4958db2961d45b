"""`pytest --assay` in a real pytest subprocess on a project with a good and a weak test file."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

from tests.agents.fixture import calc_project

# without --assay the plugin must not load assay: this conftest says what was imported
PROBE = textwrap.dedent(
    """
    import sys

    def pytest_unconfigure(config):
        with open("imported.txt", "w") as out:
            out.write(str("assay.api" in sys.modules))
    """
)


def pytest_run(root, *args, autoload=False):
    """pytest with only this plugin loaded (the others of the environment cost a second each),
    or, with `autoload`, every installed one as a user's run has them."""
    env = {**os.environ, "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "" if autoload else "1"}
    plugin = [] if autoload else ["-p", "assay.pytest_plugin"]
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *plugin, *args],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_assay_option_fails_the_run_on_a_weak_file_with_the_verify_summary(calc_repo):
    root = calc_repo
    weak = pytest_run(root, "--assay", "--doctest-modules", "tests", "calc.py")
    assert weak.returncode == 1, weak.stdout + weak.stderr
    assert "6 passed" in weak.stdout  # the tests themselves pass: the gates fail the run
    summary = weak.stdout.split("assay verify")[-1]
    assert "tests/test_weak.py" in summary
    assert "AS001" in summary  # the feedback, as `assay verify` prints it
    assert "2 files: 1 accepted, 1 rejected" in summary  # calc.py's doctest is not a test file

    good = pytest_run(root, "--assay", "tests/test_good.py")
    assert good.returncode == 0, good.stdout + good.stderr
    assert "1 accepted, 0 rejected" in good.stdout


def test_without_the_option_or_with_the_plugin_off_nothing_happens(tmp_path):
    root = calc_project(tmp_path / "proj")
    (root / "tests" / "conftest.py").write_text(PROBE)
    plain = pytest_run(root, "tests")
    assert plain.returncode == 0, plain.stdout + plain.stderr
    assert "assay verify" not in plain.stdout
    assert (root / "imported.txt").read_text() == "False"

    off = pytest_run(root, "-p", "no:assay", "tests", autoload=True)
    assert off.returncode == 0, off.stdout + off.stderr
    assert "assay verify" not in off.stdout
