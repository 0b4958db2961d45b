"""A file whose every test the project's own pytest selection leaves out is not judged: jsonpath-ng
1.17's tests/pyinstaller/test_pyinstaller.py (`pytestmark = pytest.mark.pyinstaller`, and
`-m=not pyinstaller` in the project's addopts) was "rejected at compile: no tests collected (no
test_* functions or Test* classes)", its test function in plain sight."""

from __future__ import annotations

import pytest

from tests.conftest import verify_json

FILES = {
    "calc/__init__.py": "",
    "calc/ops.py": "def add(a, b):\n    return a + b\n",
    "tests/test_frozen.py": """
        import pytest

        from calc.ops import add

        pytestmark = pytest.mark.frozen


        def test_add():
            assert add(1, 2) == 3
        """,
}
CONFIG = """
[tool.pytest.ini_options]
addopts = ["-m", "not frozen"]
markers = ["frozen: builds an executable"]

[tool.assay]
gates = ["compile", "green"]
"""


def test_a_file_the_projects_selection_leaves_out_is_unvalidated_with_the_selection(
    project, tmp_path
):
    root = project(FILES, CONFIG)
    f, shown = verify_json(root, "tests/test_frozen.py", tmp_path / "r.json")
    assert (f["verdict"], f["rejected_at"]) == ("unvalidated", "compile"), shown
    feedback = f["gates"][0]["feedback"]
    assert "every test of the file is deselected by -m 'not frozen'" in feedback, feedback
    assert "pytest_args" in feedback


@pytest.mark.slow  # a second whole verify, through the CLI
def test_the_same_file_with_the_selection_that_runs_it_is_judged(project, tmp_path):
    root = project(FILES, CONFIG + '\n[tool.assay.python]\npytest_args = ["-m", "frozen"]\n')
    f, shown = verify_json(root, "tests/test_frozen.py", tmp_path / "r.json")
    assert f["verdict"] == "accepted", shown
