"""Flaky detection that is not a coin toss (issue 25, point 7): a test that hangs on unseeded
randomness is `flaky` or `rejected` in every run, and gate 4's runs count as evidence."""

from __future__ import annotations

import pytest

from assay.api import verify
from assay.config import Settings
from assay.execution.runner import alone
from assay.gates.stability import MAX_RERUNS, alone_count, rerun_count
from assay.model import Verdict
from tests.conftest import write_project

LIB = {
    "src/stats/__init__.py": "",
    "src/stats/core.py": """
    def largest(xs):
        best = xs[0]
        for x in xs[1:]:
            if x > best:
                best = x
        return best
    """,
}

# passes 75% of the time: the larger of two draws from 1..10 exceeds 5
DRAWN = """
import random

from stats.core import largest


def test_largest_of_fixed():
    assert largest([3, 9, 4]) == 9


def test_largest_of_random_draws():
    xs = [random.randint(1, 10) for _ in range(2)]
    assert largest(xs) > 5
"""


@pytest.mark.slow  # twenty verify runs
def test_a_test_on_unseeded_randomness_is_flaky_or_rejected_in_20_of_20_runs(tmp_path):
    # 20 copies, each judged on its own (cache off): 20 runs of the file
    files = {f"tests/test_draw_{i:02d}.py": DRAWN for i in range(20)}
    root = write_project(tmp_path / "stats", {**LIB, **files})
    report = verify(
        [root / "tests"], Settings(gates=["green", "stability", "mutation"], cache=False)
    )
    verdicts = {f.path: (f.verdict.value, f.rejected_at) for f in report.files}
    assert len(verdicts) == 20
    accepted = {p: v for p, v in verdicts.items() if v[0] not in ("flaky", "rejected")}
    assert not accepted, verdicts


def test_a_test_failing_on_the_unmutated_code_in_gate_4_makes_the_file_flaky(project):
    # stands for a draw that fails only in gate 4's baseline: this test fails only in the worker
    root = project(
        {
            **LIB,
            "tests/test_worker.py": """
            import sys

            from stats.core import largest


            def test_largest():
                assert largest([1, 3, 2]) == 3


            def test_largest_outside_the_worker():
                assert largest([2, 1]) == 2
                assert not any(name.endswith("mutation.server") for name in sys.modules)
            """,
        }
    )
    settings = Settings(gates=["green", "stability", "mutation"], cache=False)
    f = verify([root / "tests/test_worker.py"], settings).files[0]
    assert (f.verdict, f.rejected_at) == (Verdict.FLAKY, "mutation")
    flaky = [t for t in f.tests if t.verdict is Verdict.FLAKY]
    assert [t.id for t in flaky] == ["tests/test_worker.py::test_largest_outside_the_worker"]
    assert "on the unmutated code in gate 4's baseline" in flaky[0].reason
    assert "REJECT: Gate 4 — FLAKY TESTS" in f.gates[-1].feedback


def test_fast_files_are_rerun_more_within_the_budget():
    assert rerun_count(3, 0.5, {"a": 0.001, "b": 0.001}) == 38
    # pytest's own cost per test counts: 455 fast cases (inflection) get the configured 3, not 50
    assert rerun_count(3, 0.5, {f"t{i}": 0.0 for i in range(455)}) == 3
    # ... and 47 of them run alone, each test function's first case among them (`runner.alone`)
    assert alone_count(0.5, {f"t{i}": 0.0 for i in range(455)}) == 47
    ids = [f"t.py::f[{i}]" for i in range(5)] + ["t.py::g[0]", "t.py::g[1]"]
    assert alone(ids, 3) == ["t.py::f[0]", "t.py::f[1]", "t.py::g[0]"]
    assert alone(ids, None) == ids
    assert rerun_count(3, 1.0, {"a": 0.0}) == MAX_RERUNS
    assert rerun_count(3, 0.5, {"a": 2.0}) == 3  # slow: the configured reruns
    assert rerun_count(0, 0.5, {"a": 0.001}) == 0  # reruns off stay off


def test_the_reruns_stop_at_the_first_run_a_test_did_not_pass(project):
    # passes once (gate 2), then fails in every run: the first rerun settles it
    marker = """
    from pathlib import Path


    def test_creates_marker():
        marker = Path("marker.txt")
        assert not marker.exists()
        marker.write_text("x")
    """
    root = project({**LIB, "tests/test_marker.py": marker})
    f = verify([root / "tests/test_marker.py"], Settings(gates=["green", "stability"], cache=False))
    assert (f.files[0].verdict, f.files[0].rejected_at) == (Verdict.FLAKY, "stability")
    stability = f.files[0].gates[-1]
    assert (stability.details["runs"], stability.details["plan"]) == (2, ["rerun 1"])
    assert "passed 1 of 2 runs" in stability.feedback


def test_each_forked_rerun_draws_anew_from_numpy(project):
    # numpy's global generator, unlike `random`'s, is not reseeded after a fork: every rerun drew
    # what the first did. A stand-in with numpy's legacy API, its state fixed at import
    fake_numpy = {
        "numpy/__init__.py": "from numpy import random\n",
        "numpy/random.py": """
        import random as _stdlib

        _state = _stdlib.Random(1)  # its first draw is 0.13


        def seed(n):
            _state.seed(n)


        def random():
            return _state.random()
        """,
    }
    drawn = "import numpy\n\n\ndef test_draw():\n    assert numpy.random.random() < 0.5\n"
    root = project({**LIB, **fake_numpy, "tests/test_np.py": drawn})
    f = verify([root / "tests/test_np.py"], Settings(gates=["green", "stability"], cache=False))
    assert (f.files[0].verdict, f.files[0].rejected_at) == (Verdict.FLAKY, "stability")


@pytest.mark.slow  # gates 2-5 with gate 4
def test_a_smell_that_cannot_make_a_test_flaky_is_not_named_the_cause_of_a_flaky_verdict(project):
    """mistune 3.4.0's test_misc.py: a timing test failed in gate 4's baseline, and three tests with
    no assertion came first as "the likely cause of the reject below": a missing assertion makes
    no outcome change between runs. An assertion decided by randomness or the clock (AS024) can."""
    root = project(
        {
            **LIB,
            "tests/test_worker.py": """
            import random
            import sys

            from stats.core import largest


            def test_largest():
                assert largest([1, 3, 2]) == 3


            def test_runs_only():
                largest([4, 5])


            def test_largest_outside_the_worker():
                assert largest([2, 1]) == 2
                assert not any(name.endswith("mutation.server") for name in sys.modules)
            """,
        }
    )
    settings = Settings(gates=["green", "stability", "mutation", "smells"], cache=False)
    f = verify([root / "tests/test_worker.py"], settings).files[0]
    assert (f.verdict, f.rejected_at) == (Verdict.FLAKY, "mutation")
    feedback = next(g for g in f.gates if g.gate == "mutation").feedback
    assert "likely cause" not in feedback, feedback
    assert feedback.startswith("REJECT: Gate 4 — FLAKY TESTS"), feedback
    assert "AS001 test_runs_only" in feedback.split("ALSO: Gate 5 — TEST SMELLS", 1)[1], feedback
