"""Gate 3's reruns of plain tests skip pytest's per-test protocol (`_assay_sandbox/lean.py`), and a
test that does not pass there counts only once pytest's own protocol confirms it (issue 25, point
10: the reruns' cost, without fewer reruns)."""

from __future__ import annotations

import pytest

from assay.api import verify
from assay.config import Settings
from assay.model import Verdict

LIB = {
    "src/calc/__init__.py": "",
    "src/calc/ops.py": "def add(a, b):\n    return a + b\n",
}

# plain tests (functions, methods, direct parametrize, fixtures, a unittest case with its class
# set-up and subtests) around tests that need pytest's protocol (tmp_path): a class-scoped fixture
# alive across a method of its class that does not ask for it, torn down before the next class
MIXED = """
import os
import unittest

import pytest

from calc.ops import add


@pytest.fixture(scope="class")
def made():
    made = {"open": True}
    yield made
    made["open"] = False


def test_plain():
    assert add(1, 2) == 3


@pytest.mark.parametrize("a, b, total", [(1, 1, 2), (2, 3, 5)])
def test_cases(a, b, total):
    assert add(a, b) == total


class TestFirst:
    def test_made(self, made):
        assert made["open"]
        type(self).seen = made

    def test_plain_method(self):
        assert add(0, 0) == 0

    def test_made_still(self, made):
        assert made["open"]


class TestSecond:
    def test_plain_method(self):
        assert add(1, 0) == 1

    def test_made_again(self, made):
        assert made["open"] and made is not getattr(TestFirst, "seen", None)


def test_tmp(tmp_path):
    assert add(2, 2) == 4


@pytest.fixture
def opened():
    state = {"open": True}
    yield state
    state["open"] = False


def test_fixtures(opened, monkeypatch):
    monkeypatch.setenv("CALC_MODE", "strict")
    assert opened["open"] and os.environ["CALC_MODE"] == "strict"


def test_fixtures_undone():
    assert "CALC_MODE" not in os.environ


class TestCase(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.shared = {"open": True}

    @classmethod
    def tearDownClass(cls):
        cls.shared["open"] = False

    def setUp(self):
        self.total = add(1, 1)

    def test_set_up(self):
        self.assertEqual(self.total, 2)
        self.assertTrue(self.shared["open"])

    def test_subtests(self):
        for n in (1, 2):
            with self.subTest(n=n):
                self.assertEqual(add(n, 0), n)
"""

# passes under pytest's protocol only (its runner is on the stack): not flaky
PROTOCOL_ONLY = """
import traceback

from calc.ops import add


def test_add():
    assert add(1, 2) == 3


def test_under_pytests_runner():
    files = [frame.filename for frame in traceback.extract_stack()]
    assert any(f.endswith("_pytest/runner.py") for f in files)
"""

GATES = [["compile", "green", "stability"], ["green", "stability"]]


def settings(gates: list[str]) -> Settings:
    s = Settings(gates=gates, cache=False)
    s.sandbox.timeout_s = 30
    return s


@pytest.mark.parametrize("gates", GATES, ids=["run-ahead", "own-process"])
def test_plain_tests_are_rerun_lean_with_the_set_up_state_of_pytests_protocol(project, gates):
    # gates 1-2's process runs the plan ahead; without gate 1 gate 3 starts its own
    root = project({**LIB, "tests/test_mixed.py": MIXED})
    f = verify([root / "tests/test_mixed.py"], settings(gates)).files[0]
    assert f.verdict is Verdict.ACCEPTED, f.gates[-1].feedback
    details = f.gates[-1].details
    assert len([p for p in details["plan"] if p.startswith("rerun")]) >= 3
    assert details["plan"][-2:] == ["random order (seed 20260601)", "alone"]
    # every run (reruns, random order, each test alone) screened its plain tests lean, and none
    # failed there: the fixtures' set-up and teardown around them were pytest's
    assert details["lean"] == len(details["plan"])
    assert "lean_only" not in details


@pytest.mark.parametrize("gates", GATES, ids=["run-ahead", "own-process"])
def test_a_failure_seen_only_without_pytests_protocol_is_not_flaky(project, gates):
    root = project({**LIB, "tests/test_protocol.py": PROTOCOL_ONLY})
    f = verify([root / "tests/test_protocol.py"], settings(gates)).files[0]
    assert f.verdict is Verdict.ACCEPTED, f.gates[-1].feedback
    details = f.gates[-1].details
    # the first rerun saw it fail; run again under the protocol it passed, and so did every
    # run after it (reruns, random order, alone), under the protocol too
    assert details["lean"] == 1, details
    assert list(details["lean_only"]) == ["tests/test_protocol.py::test_under_pytests_runner"]
    assert (
        "AssertionError"
        in details["lean_only"]["tests/test_protocol.py::test_under_pytests_runner"]
    )
    assert len([p for p in details["plan"] if p.startswith("rerun")]) >= 3


def test_a_test_that_fails_alone_only_without_pytests_protocol_is_not_flaky(project):
    # only the isolated step: each test alone, the one that needs pytest's runner run again
    root = project({**LIB, "tests/test_protocol.py": PROTOCOL_ONLY})
    s = settings(["compile", "green", "stability"])
    s.stability.reruns, s.stability.random_order = 0, False
    f = verify([root / "tests/test_protocol.py"], s).files[0]
    assert f.verdict is Verdict.ACCEPTED, f.gates[-1].feedback
    details = f.gates[-1].details
    assert (details["plan"], details["lean"]) == (["alone"], 1)
    assert list(details["lean_only"]) == ["tests/test_protocol.py::test_under_pytests_runner"]


# each passes once (gate 2), then fails in every run: the first rerun, lean, must see it
STATEFUL = {
    "unittest": """
    import unittest
    from pathlib import Path


    class TestMarker(unittest.TestCase):
        def test_creates_marker(self):
            marker = Path("marker.txt")
            self.assertFalse(marker.exists())
            marker.write_text("x")
    """,
    "subtest": """
    import unittest
    from pathlib import Path


    class TestMarker(unittest.TestCase):
        def test_creates_marker(self):
            for name in ("a", "b"):
                with self.subTest(name=name):
                    marker = Path(f"marker-{name}.txt")
                    self.assertFalse(marker.exists())
                    marker.write_text("x")
    """,
    "fixture": """
    from pathlib import Path

    import pytest


    @pytest.fixture
    def marker():
        return Path("marker.txt")


    def test_creates_marker(marker):
        assert not marker.exists()
        marker.write_text("x")
    """,
}


@pytest.mark.parametrize("kind", sorted(STATEFUL))
def test_a_lean_rerun_sees_a_failure_and_the_protocol_confirms_it(project, kind):
    root = project({**LIB, "tests/test_marker.py": STATEFUL[kind]})
    f = verify([root / "tests/test_marker.py"], settings(["compile", "green", "stability"]))
    report = f.files[0]
    assert (report.verdict, report.rejected_at) == (Verdict.FLAKY, "stability")
    details = report.gates[-1].details
    assert (details["runs"], details["plan"], details["lean"]) == (2, ["rerun 1"], 1)
    assert "lean_only" not in details


# passes once per fresh process: run twice in one process it fails (state left in the module)
ONCE_PER_PROCESS = """
from calc.ops import add

SEEN = []


def test_first_call():
    SEEN.append(add(1, 1))
    assert SEEN == [2]
"""


def test_reruns_in_one_process_only_screen_a_test_that_keeps_state_is_not_flaky(project):
    root = project({**LIB, "tests/test_once.py": ONCE_PER_PROCESS})
    f = verify([root / "tests/test_once.py"], settings(["compile", "green", "stability"]))
    report = f.files[0]
    assert report.verdict is Verdict.ACCEPTED, report.gates[-1].feedback
    details = report.gates[-1].details
    # the reruns together failed at their second round: each rerun then ran in a fork of its own
    assert details["together"] == 0
    assert details["lean"] == len(details["plan"])


def test_fast_reruns_run_one_after_another_in_one_fork(project):
    root = project({**LIB, "tests/test_protocol.py": "def test_a():\n    assert 1 + 1 == 2\n"})
    f = verify([root / "tests/test_protocol.py"], settings(["compile", "green", "stability"]))
    details = f.files[0].gates[-1].details
    reruns = [p for p in details["plan"] if p.startswith("rerun")]
    assert len(reruns) >= 3
    assert details["together"] == len(reruns)


def test_a_slow_files_reruns_each_get_a_fork(project):
    # no budget for more reruns than configured: not a fast file, no screen in one process first
    root = project({**LIB, "tests/test_protocol.py": "def test_a():\n    assert 1 + 1 == 2\n"})
    s = settings(["compile", "green", "stability"])
    s.stability.budget_s = 0
    details = verify([root / "tests/test_protocol.py"], s).files[0].gates[-1].details
    assert len([p for p in details["plan"] if p.startswith("rerun")]) == 3
    assert (details["together"], details["lean"]) == (0, len(details["plan"]))


# fails once, in the first rerun (a counter in HOME: the green run is the first call), then passes:
# a test that failed once on unchanged code is flaky, however its later runs go
FAILS_ONCE = """
import os
import pathlib

from calc.ops import add


def test_add():
    counter = pathlib.Path(os.environ["HOME"], "calls")
    calls = int(counter.read_text()) + 1 if counter.exists() else 1
    counter.write_text(str(calls))
    assert calls != 2
    assert add(1, 2) == 3
"""


def test_a_lean_failure_the_protocol_does_not_repeat_is_kept_when_lean_passes_again(project):
    """A lean failure then a pass under pytest's protocol is either lean's (the test needs the
    protocol: it fails lean again) or chance; forgiving every such failure gave a flaky test a
    second roll on its first failure (a one-in-four test went unseen in 53% of five-rerun plans,
    against 24% with no lean runs; 31% now). A lean run again tells them apart."""
    root = project({**LIB, "tests/test_once.py": FAILS_ONCE})
    s = settings(["compile", "green", "stability"])
    s.stability.budget_s = 0  # reruns each in a fork of their own, no screen in one process
    f = verify([root / "tests/test_once.py"], s).files[0]
    assert f.verdict is Verdict.FLAKY, f.gates[-1].details
    assert "failed when rerun 1" in f.tests[0].reason


# passes at gate 2 (the first call: a counter in HOME), hangs on the second, and fails at once
# from the third on: the outcome tells which run gate 3 kept
HANGS_ONCE = """
import os
import pathlib
import time

from calc.ops import add


def test_add():
    counter = pathlib.Path(os.environ["HOME"], "calls")
    calls = int(counter.read_text()) + 1 if counter.exists() else 1
    counter.write_text(str(calls))
    if calls == 2:
        time.sleep(600)
    assert calls == 1, f"call {calls}"
    assert add(1, 2) == 3
"""


@pytest.mark.slow  # a timeout of 15 s, once
@pytest.mark.parametrize(
    "budget, kept, lean",
    [(0, "timed out when rerun 1", None), (None, "failed when rerun 1", 0)],
    ids=["each-rerun-its-fork", "reruns-together-first"],
)
def test_a_test_that_hangs_costs_one_timeout_in_gate_3(project, budget, kept, lean):
    """A lean rerun that timed out stands (the protocol's run of the same step would cost a
    second timeout, and its failure is kept all the same); when the reruns run together first and
    a test hangs there, the first rerun is the protocol's, with no lean run before it (which would
    hang again)."""
    root = project({**LIB, "tests/test_hangs.py": HANGS_ONCE})
    # gate 3 in its own process (without gate 1, no plan run ahead, whose hang would end it)
    s = settings(["green", "stability"])
    s.sandbox.timeout_s = 15  # the green run's process must start within it on a busy machine
    if budget is not None:
        s.stability.budget_s = budget
    f = verify([root / "tests/test_hangs.py"], s).files[0]
    assert f.verdict is Verdict.FLAKY, f.gates[-1].details
    # the lean run's timeout, kept; or the protocol's run at once (its third call fails)
    assert kept in f.tests[0].reason, f.tests[0].reason
    if lean is not None:  # no lean run before the protocol's
        assert f.gates[-1].details["lean"] == lean
