"""A test blocked for good under a mutant (its only thread waits, with no time limit, on a lock of
its own process) is stopped at the pool's first look, not at its wall backstop: the same Timeout
and the same test to blame. A wait a timer may still interrupt is left to run."""

from __future__ import annotations

import sys

import pytest

from assay._assay_sandbox.mutation.protocol import MutantDone, Status
from assay._assay_sandbox.protocol import EVERY_TEST_FUNCTION
from assay.config import SandboxConfig
from assay.config.mutation import MutationConfig
from assay.execution.workspace import Workspace
from assay.mutation.engine import Engine
from assay.mutation.mutants import generate
from assay.sandbox import Sandbox
from tests.conftest import write_project

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="read from Linux's /proc")

WAIT = {
    "src/wait/__init__.py": "",
    "src/wait/answer.py": """\
        import concurrent.futures


        def answer(x):
            fut = concurrent.futures.Future()
            fut.set_result(x * 2)
            return fut.result()
        """,
    "tests/test_answer.py": """\
        from wait.answer import answer


        def test_answer():
            assert answer(2) == 4


        def test_answer_again():
            assert answer(3) == 6
        """,
    "tests/test_alarm.py": """\
        import signal

        from wait.answer import answer


        class Late(Exception):
            pass


        def _late(signum, frame):
            raise Late()


        def test_answer_in_time():
            signal.signal(signal.SIGALRM, _late)
            signal.setitimer(signal.ITIMER_REAL, 0.5)
            try:
                assert answer(2) == 4
            finally:
                signal.setitimer(signal.ITIMER_REAL, 0)
        """,
}


@pytest.fixture(scope="module")
def wait_root(tmp_path_factory):
    return write_project(tmp_path_factory.mktemp("wait") / "wait", WAIT)


def _unresolved(root, tests: str):
    """The verdict of `fut.set_result(x * 2)` -> `None` (the future never resolves) on `tests`."""
    source = (root / "src/wait/answer.py").read_text()
    mutant = next(
        m
        for m in generate("src/wait/answer.py", source)
        if m.original == "fut.set_result(x * 2)" and m.replacement == "None"
    )
    events: list[object] = []
    box = Sandbox(SandboxConfig(timeout_s=120), protect=root)
    with Workspace(root) as ws:
        engine = Engine(ws, box, sys.executable, ["src"], MutationConfig(workers=2))
        engine.run(
            ["src/wait/answer.py"],
            [tests],
            progress=events.append,
            killers=EVERY_TEST_FUNCTION,
            only={mutant.id},
        )
    return next(ev.verdict for ev in events if isinstance(ev, MutantDone) and ev.id == mutant.id)


def test_a_test_waiting_for_ever_on_its_own_lock_is_stopped_before_its_backstop(wait_root):
    # `fut.result()` on a future nothing resolves: one thread, waiting with no time limit
    verdict = _unresolved(wait_root, "tests/test_answer.py")
    assert verdict.status is Status.TIMEOUT, verdict
    assert verdict.killed_by == ["tests/test_answer.py::test_answer"], verdict
    assert "waited with no time limit on a lock of its own process" in verdict.reason, verdict
    # the budget it is reported against is still the backstop's
    assert verdict.budget_s >= 1.0, verdict


def test_a_wait_a_caught_alarm_may_end_is_not_stopped_as_blocked(wait_root):
    # the same wait, but the test set a timer whose handler raises: the test fails (Killed), as it
    # did when only the backstop stopped a wait
    verdict = _unresolved(wait_root, "tests/test_alarm.py")
    assert verdict.status is Status.KILLED, verdict
    assert verdict.killed_by == ["tests/test_alarm.py::test_answer_in_time"], verdict
