"""Gates 1-3 of the files of one directory in one pytest session (`_assay_sandbox.batch`): each
file in a fork of a session configured once, with the verdicts a process per file gives. Real pytest
runs; the sessions are counted by the fixture project's own conftest."""

from __future__ import annotations

from assay.api import verify
from assay.config import Settings
from assay.config.run import StabilityConfig
from assay.gates.compile import CompileGate
from assay.gates.green import GreenGate
from assay.gates.stability import StabilityGate
from assay.model import Verdict
from tests.execution.test_plan_ahead import CONFTEST, LIB, STEADY, SessionsGate

# the fixture project and its session counter are test_plan_ahead's
# a file's tests leave a file in HOME: a fresh process of the next file would not see it
LEAVES_HOME = """
import pathlib

from calc.ops import add


def test_add_and_leave_a_file_in_home():
    (pathlib.Path.home() / "left.txt").write_text("from the first file")
    assert add(1, 2) == 3
"""
HOME_CLEAN = """
import pathlib

from calc.ops import add


def test_home_holds_nothing_of_another_file():
    assert not (pathlib.Path.home() / "left.txt").exists()
    assert add(2, 2) == 4
"""
BROKEN = """
from calc.ops import add

raise RuntimeError("this module cannot be imported")


def test_add():
    assert add(1, 2) == 3
"""
DAMAGES = """
import pathlib

from calc.ops import add


def test_add_and_rewrite_a_data_file():
    assert add(1, 2) == 3
    pathlib.Path("tests/data.txt").write_text("rewritten")
"""


def test_files_of_a_directory_share_one_session_and_keep_their_verdicts(project):
    root = project(
        {
            **LIB,
            "tests/conftest.py": CONFTEST,
            "tests/test_a_leaves_home.py": LEAVES_HOME,
            "tests/test_b_home_clean.py": HOME_CLEAN,
            "tests/test_c_broken.py": BROKEN,
            "tests/test_d_damages.py": DAMAGES,
            "tests/test_e_steady.py": STEADY,
            "tests/data.txt": "as shipped",
        }
    )
    # jobs=1: one file at a time, one batch; a small rerun budget keeps the test cheap
    s = Settings(
        gates=["compile", "green", "stability"],
        cache=False,
        jobs=1,
        stability=StabilityConfig(budget_s=0.1),
    )
    gates = [CompileGate(s), GreenGate(s), StabilityGate(s), SessionsGate(s)]
    report = verify([root / "tests"], s, gates=gates)
    leaves, clean, broken, damages, steady = sorted(report.files, key=lambda f: f.path)
    sessions = {f.path.split("/")[-1]: f.gates[-1].details.get("sessions") for f in report.files}
    # a, b and c in the batch's session (b found no trace of a); d rewrote a file: the batch
    # ended there, and d and e ran one process each, as without a batch (was 5: one per file); d
    # could rewrite the file again in the workspace the batch left (restored files stay writable)
    assert leaves.verdict is Verdict.ACCEPTED, leaves.gates[-1].feedback
    assert clean.verdict is Verdict.ACCEPTED, clean.gates[-1].feedback
    assert broken.verdict is Verdict.REJECTED and broken.rejected_at == "compile"
    assert "this module cannot be imported" in broken.gates[0].feedback
    assert damages.verdict is Verdict.REJECTED and damages.rejected_at == "green"
    assert "changed project files: tests/data.txt" in damages.gates[1].feedback
    assert steady.verdict is Verdict.ACCEPTED, steady.gates[-1].feedback
    assert sum(s for s in sessions.values() if s) == 3, sessions
    assert sessions["test_a_leaves_home.py"] == 1
    # gate 3's plan ran ahead in the batch's forks too: no session of its own
    assert clean.gates[2].details["runs"] > 5


# the project binds sys.stdout as it is imported (structlog's `_output.py`: `from sys import
# stdout`), and the directory's conftest imports the project, before any file is collected
BINDS_STDOUT = {
    "src/calc/__init__.py": "",
    "src/calc/out.py": "import sys\nfrom sys import stdout\n\n\ndef same():\n"
    "    return stdout is sys.stdout and not stdout.closed\n",
}
CONFTEST_IMPORTS = CONFTEST + "\n\nimport calc.out  # noqa: E402,F401\n"
USES_STDOUT = """
from calc.out import same


def test_the_stdout_bound_at_import_is_the_one_in_use():
    assert same()
"""


def test_what_the_project_bound_of_the_sessions_stdout_stays_in_use_in_a_batch(project):
    """structlog 26.1 (never seen): in a batch of its 17 files, 36 `test_pickle` cases of
    `test_output.py` failed at gate 2 ("I/O operation on closed file", "Only WriteLoggers to
    sys.stdout ... can be pickled"), alone they pass, as under pytest: each fork stopped and
    restarted pytest's global capture, which closed the stdout the project had bound while the
    conftest imported it. A fork now empties the session's capture files and keeps them."""
    root = project(
        {
            **BINDS_STDOUT,
            "tests/conftest.py": CONFTEST_IMPORTS,
            "tests/test_a.py": USES_STDOUT,
            "tests/test_b.py": USES_STDOUT.replace("test_the", "test_b_the"),
        },
        "[tool.pytest.ini_options]\npythonpath = ['src']\n",
    )
    s = Settings(gates=["compile", "green"], cache=False, jobs=1)
    gates = [CompileGate(s), GreenGate(s), SessionsGate(s)]
    report = verify([root / "tests"], s, gates=gates)
    for f in report.files:
        assert f.verdict is Verdict.ACCEPTED, f.gates[1].feedback
    sessions = {f.path.split("/")[-1]: f.gates[-1].details.get("sessions") for f in report.files}
    assert sum(n for n in sessions.values() if n) == 1, sessions  # the two files in one batch
