"""One workspace serves candidate after candidate (a repair loop's attempts), and nothing of one
reaches the next: proved with real pytest runs of in-memory candidates that leave files, edit the
code under test and write bytecode."""

from __future__ import annotations

from assay import api
from assay.config import Settings
from assay.model import Verdict
from assay.pipeline import Verifier
from assay.project import Project
from tests.conftest import tree_digest

LIB = {"src/calc/__init__.py": "", "src/calc/ops.py": "def add(a, b):\n    return a + b\n"}

DIRTY = """
import pathlib
import calc.ops

def test_leaves_traces():
    pathlib.Path("marker.txt").write_text("from the first candidate")
    src = pathlib.Path(calc.ops.__file__)
    src.write_text(src.read_text().replace("a + b", "a - b"))
    assert calc.ops.add(2, 2) == 4
"""
CLEAN = """
import pathlib
import calc.ops

def test_sees_a_pristine_copy():
    assert not pathlib.Path("marker.txt").exists()
    assert "a + b" in pathlib.Path(calc.ops.__file__).read_text()
    assert calc.ops.add(2, 2) == 4
"""


def test_candidates_in_one_reused_workspace_do_not_see_each_other(project):
    root = project(LIB)
    before = tree_digest(root)
    settings = Settings(gates=["compile", "green"], cache=False, jobs=1)
    proj = Project.load(root)
    verifier = Verifier(proj, settings, use_cache=False)
    try:
        first = verifier.verify_file(api.candidate(proj, "tests/test_attempt.py", DIRTY))
        second = verifier.verify_file(api.candidate(proj, "tests/test_attempt.py", CLEAN))
        third = verifier.verify_file(api.candidate(proj, "tests/test_other.py", CLEAN))
        workspaces = verifier.pool.workspaces
    finally:
        verifier.close()
    assert first.rejected_at == "green" and "deleted or rewrote" not in first.gates[-1].feedback
    assert "changed project files: src/calc/ops.py" in first.gates[-1].feedback
    assert second.verdict is Verdict.ACCEPTED, second.gates[-1].feedback
    assert third.verdict is Verdict.ACCEPTED, third.gates[-1].feedback
    assert len(workspaces) == 1 and workspaces[0].resets == 3
    assert tree_digest(root) == before  # in-memory candidates never reach the user's tree


def test_verify_takes_in_memory_candidates_next_to_files(project):
    root = project(
        {
            **LIB,
            "tests/test_disk.py": "from calc.ops import add\n\ndef test_add():\n"
            "    assert add(1, 2) == 3\n",
        }
    )
    proj = Project.load(root)
    mem = api.candidate(
        proj,
        "tests/test_mem.py",
        "from calc.ops import add\n\ndef test_neg():\n    assert add(-1, 1) == 0\n",
    )
    assert mem.targets == ["src/calc/ops.py"] and mem.path is None
    report = api.verify(
        [root / "tests/test_disk.py"],
        Settings(gates=["compile", "green"], cache=False),
        candidates=[mem],
    )
    assert [(f.path, f.verdict) for f in report.files] == [
        ("tests/test_disk.py", Verdict.ACCEPTED),
        ("tests/test_mem.py", Verdict.ACCEPTED),
    ]
    assert not (root / "tests/test_mem.py").exists()
