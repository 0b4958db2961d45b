"""Gate 3 judges the runs its plan made: a plan stops early only at a run in which a test it watches
did not pass, so fewer runs than steps with none failing means runs vanished (a run that ended
abnormally while no watched test was running). A run that did not happen is not a pass: the file
is `unvalidated`, the cause named, never accepted on fewer runs."""

from __future__ import annotations

import pytest

from assay.api import verify
from assay.config import Settings
from assay.model import GateStatus, Verdict

LIB = {
    "src/calc/__init__.py": "",
    "src/calc/ops.py": "def add(a, b):\n    return a + b\n",
}

# skipped at gate 2 (the first call: a counter in HOME), so not a test gate 3 watches; from the
# second call on it kills its own process, and with it the rerun
SKIPPED_THEN_KILLS = """
import os
import pathlib
import signal

import pytest

from calc.ops import add


def test_add():
    assert add(1, 2) == 3


def test_setting_up():
    counter = pathlib.Path(os.environ["HOME"], "calls")
    calls = int(counter.read_text()) + 1 if counter.exists() else 1
    counter.write_text(str(calls))
    if calls == 1:
        pytest.skip("first run")
    os.kill(os.getpid(), signal.SIGKILL)
"""


def test_a_rerun_killed_while_no_watched_test_ran_leaves_the_file_unvalidated(project):
    root = project({**LIB, "tests/test_killed.py": SKIPPED_THEN_KILLS})
    s = Settings(gates=["compile", "green", "stability"], cache=False)
    s.sandbox.timeout_s = 30
    f = verify([root / "tests/test_killed.py"], s).files[0]
    gate = f.gates[-1]
    assert (gate.gate, gate.status) == ("stability", GateStatus.SKIP), gate.details
    assert f.verdict is Verdict.UNVALIDATED
    assert "RERUNS DID NOT ALL HAPPEN" in gate.feedback
    # the cause: which run, what ended it, while which test ran
    assert "rerun 1" in gate.feedback and "tests/test_killed.py::test_setting_up" in gate.feedback
    # and the runs after it, which did not happen
    assert "did not run" in gate.feedback


# quick at gate 2 (a mark in HOME), as slow in the reruns as a loaded machine makes them
SLOWER_IN_RERUNS = """
import os
import pathlib
import time

import pytest

from calc.ops import add


@pytest.mark.parametrize("n", range(8))
def test_add(n):
    seen = pathlib.Path(os.environ["HOME"], f"seen-{n}")
    time.sleep(1.0 if seen.exists() else 0.05)
    seen.touch()
    assert add(n, n) == 2 * n
"""


@pytest.mark.slow
def test_a_rerun_whose_tests_spend_the_runs_timeout_blames_none_of_them(project):
    """textdistance 4.6.3's `test_common.py` (168 hypothesis tests, 42 s under plain pytest at load
    15) was `flaky`: "test_normalization_monotonic[alg23]: passed 1 of 2 runs; timed out when
    rerun 1", the test that happened to be running when the rerun of the whole file reached the
    60 s timeout. A rerun killed while its running test had run less than half of it ran out of
    time for all its tests: `unvalidated`, the timeout to raise named, no test flaky."""
    root = project({**LIB, "tests/test_load.py": SLOWER_IN_RERUNS})
    s = Settings(gates=["compile", "green", "stability"], cache=False)
    s.sandbox.timeout_s = 5
    f = verify([root / "tests/test_load.py"], s).files[0]
    gate = f.gates[-1]
    assert f.verdict is Verdict.UNVALIDATED, gate.feedback
    assert not [t for t in f.tests if t.verdict is Verdict.FLAKY], gate.feedback
    assert "RERUNS DID NOT ALL HAPPEN" in gate.feedback
    assert "the run reached its 5 s timeout after" in gate.feedback
    assert "raise the timeout (--timeout, [tool.assay.sandbox] timeout_s)" in gate.feedback
