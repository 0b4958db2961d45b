"""A project whose pytest addopts distribute its tests with xdist (nameparser 2.6: `-n auto --dist
worksteal`): the tests ran in worker processes, where assay's in-process plugins saw none, and every
file was "rejected at compile: no tests collected" while plain pytest collected them."""

from __future__ import annotations

import importlib.util

import pytest

from assay import api
from assay.model import Verdict


@pytest.mark.parametrize("opts", ["-n auto --dist worksteal", "-n2", "--numprocesses=2"])
def test_a_file_of_a_project_run_by_xdist_is_collected_and_judged(project, opts):
    if importlib.util.find_spec("xdist") is None:
        pytest.skip("pytest-xdist is not installed beside assay")
    root = project(
        {
            "src/calc/__init__.py": "def add(a, b):\n    return a + b\n",
            "tests/test_add.py": """
            from calc import add

            class AddTestCase:
                def test_add(self):
                    assert add(1, 2) == 3
            """,
        },
        f"""
        [tool.pytest.ini_options]
        addopts = "{opts}"
        python_classes = ["*TestCase"]
        pythonpath = ["src"]
        """,
    )
    report = api.verify(
        [root / "tests/test_add.py"],
        root=root,
        use_cache=False,
        overrides={"gates": ["compile", "green"]},
    )
    (entry,) = report.files
    assert entry.verdict is Verdict.ACCEPTED, [g.feedback for g in entry.gates]
    assert [t.id for t in entry.tests] == ["tests/test_add.py::AddTestCase::test_add"]
