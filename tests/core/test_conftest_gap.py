"""A project whose conftest does not load under the test interpreter's pytest cannot judge any test
file: `unvalidated` with the conftest named, exit non-zero, never "rejected at compile" (boltons
24.0.0's `pytest_ignore_collect(path, config)` under pytest 9 rejected every file)."""

from __future__ import annotations

from assay.api import verify
from assay.config import Settings
from assay.gates.compile import broken_conftest
from assay.model import Verdict

FILES = {
    "src/calc/__init__.py": "def double(n):\n    return n * 2\n",
    # a hook argument no pytest has: the plugin manager refuses the conftest
    "tests/conftest.py": "def pytest_collection_modifyitems(session, config, items, path):\n"
    "    pass\n",
    "tests/test_calc.py": "from calc import double\n\n\ndef test_double():\n"
    "    assert double(2) == 4\n",
}


def test_a_conftest_that_does_not_load_leaves_the_file_unvalidated_naming_it(project):
    root = project(FILES)
    report = verify([root / "tests/test_calc.py"], Settings(gates=["compile"], cache=False))
    f = report.files[0]
    gate = f.gates[0]
    assert (f.verdict, gate.gate, report.exit_code) == (Verdict.UNVALIDATED, "compile", 1)
    assert gate.feedback.splitlines()[:2] == [
        "UNVALIDATED: Gate 1 — THE PROJECT'S CONFTEST DOES NOT LOAD",
        "tests/test_calc.py: tests/conftest.py does not load: Argument(s) {'path'} are declared in "
        "the hookimpl but can not be found in the hookspec",
    ]
    assert report.summary()["environment"], "counted as a gap of the environment"


def test_a_crash_in_the_candidate_itself_is_not_put_on_a_conftest():
    crash = (
        'File "tests/test_calc.py", line 1, in <module>\n'
        "pluggy.PluginValidationError: Plugin 'tests/conftest.py' for hook 'x'\nboom"
    )
    assert broken_conftest(crash, "tests/test_calc.py") == "tests/conftest.py"
    assert broken_conftest(crash, "tests/conftest.py") is None  # the candidate is that conftest
    assert broken_conftest('File "tests/test_calc.py", line 3\nNameError: x', "tests/x.py") is None
