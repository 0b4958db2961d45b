"""Gate 2 blames a test file only for what its tests write: files the pytest session writes around
them (`--junitxml` in the project's addopts, a conftest's report at session end) are noted, not
charged, while a test that rewrites a project file is still rejected."""

from __future__ import annotations

from assay.api import verify
from assay.config import Settings
from assay.model import Verdict
from assay.report.text import renderable
from tests.conftest import tree_digest

FILES = {
    "src/calc/__init__.py": "def double(x):\n    return 2 * x\n",
    # the user's last run left them in the tree: the session rewrites them
    "report.xml": "<testsuites/>\n",
    "session.log": "old\n",
    "data.txt": "keep me\n",
    "tests/conftest.py": """\
        def pytest_sessionfinish(session):
            with open("session.log", "w") as fh:
                fh.write(f"{session.testscollected} collected\\n")
        """,
    "tests/test_good.py": """\
        from calc import double

        def test_double():
            assert double(2) == 4
        """,
    "tests/test_writes.py": """\
        from calc import double

        def test_double_and_scribble():
            with open("data.txt", "w") as fh:
                fh.write("scribbled")
            assert double(3) == 6
        """,
}
PYPROJECT = '[tool.pytest.ini_options]\naddopts = "--junitxml=report.xml"\n'


def test_session_writes_are_noted_and_test_writes_still_rejected(project):
    root = project(FILES, PYPROJECT)
    before = tree_digest(root)
    report = verify(
        [root / "tests/test_good.py", root / "tests/test_writes.py"],
        Settings(gates=["compile", "green"], cache=False),
    )
    assert tree_digest(root) == before
    good, writes = report.files
    assert good.verdict is Verdict.ACCEPTED, good.gates[-1].feedback
    green = good.gates[-1]
    assert green.details["ignored_writes"] == ["report.xml", "session.log"]
    shown = "\n".join(str(part) for part in renderable(report).renderables)
    assert (
        "tests/test_good.py — green note: changes to report.xml, session.log not counted" in shown
    )
    assert (writes.verdict, writes.rejected_at) == (Verdict.REJECTED, "green")
    assert "the tests changed project files: data.txt." in writes.gates[-1].feedback
    assert "report.xml" not in writes.gates[-1].feedback
