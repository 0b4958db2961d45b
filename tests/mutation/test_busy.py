"""A busy machine: time a test spends waiting for a core (other processes hold them) is not its own.
It inflates neither the baseline's durations nor a mutant's run past its deadline: the verdicts are
those of an idle machine. Made real here by pinning the run and three busy loops to one core."""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import textwrap

import pytest

from assay.config import SandboxConfig
from assay.mutation.model import Status
from assay.sandbox import Sandbox
from tests.mutation._mutation_support import run_engine

pytestmark = pytest.mark.skipif(
    not hasattr(os, "sched_setaffinity"), reason="no CPU affinity on this platform"
)


@contextlib.contextmanager
def one_busy_core(loops: int = 3):
    """This process (and what it starts) and `loops` busy loops share one core; put back after."""
    before = os.sched_getaffinity(0)
    os.sched_setaffinity(0, {min(before)})
    burners = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(loops)]
    try:
        yield
    finally:
        for burner in burners:
            burner.kill()
            burner.wait()
        os.sched_setaffinity(0, before)


MEASURE = textwrap.dedent("""
    import json, time
    from assay._assay_sandbox.fork import clock, waited
    wall, own, cpu = time.perf_counter(), clock(), time.process_time()
    total = sum(i % 7 for i in range(3_000_000))
    print(json.dumps({"wall": time.perf_counter() - wall, "own": clock() - own,
                      "cpu": time.process_time() - cpu, "waited": waited()}))
""")


def test_time_spent_waiting_for_a_core_is_not_a_tests_time():
    with one_busy_core():
        out = subprocess.run(
            [sys.executable, "-c", MEASURE], capture_output=True, text=True, check=True
        )
    took = json.loads(out.stdout)
    if took["waited"] == 0.0:
        pytest.skip(
            "this kernel does not say how long a process waited for a core (/proc/self/schedstat)"
        )
    # four processes on one core: it waited most of the time
    assert took["wall"] > 2 * took["cpu"], took
    # what is left is its own work
    assert abs(took["own"] - took["cpu"]) < 0.25 * took["cpu"] + 0.02, took


PROJECT = {
    "src/busy/__init__.py": "",
    "src/busy/work.py": textwrap.dedent("""
        def work(n):
            total = 0
            for i in range(n):
                total += i % 7
            return total
    """),
    "tests/test_work.py": textwrap.dedent("""
        from busy.work import work


        def test_work():
            assert work(4_000_000) == 11_999_994
    """),
}


def test_a_test_slowed_by_a_busy_machine_is_not_a_hang(tmp_path):
    # each mutant of the loop body still runs the whole loop (0.1-0.2 s of work) and fails at the
    # end; its deadline is 1.5 x that + 0.05 s, and on a core shared four ways the run takes about
    # four times as long
    for rel, text in PROJECT.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    box = Sandbox(SandboxConfig(timeout_s=120), protect=tmp_path)
    with one_busy_core():
        run = run_engine(
            tmp_path,
            box,
            ["src/busy/work.py"],
            ["tests/test_work.py"],
            timeout_s=0.05,
            timeout_factor=1.5,
        )
    body = {(m.original, m.replacement): r for m, r in run.scored if m.line == 5}
    assert body[("7", "8")].status is Status.KILLED, body[("7", "8")].reason
    assert body[("+=", "-=")].status is Status.KILLED, body[("+=", "-=")].reason
    # the baseline's duration is the test's own time: a fraction of a mutant's wall time on the
    # shared core
    assert run.tests[0].duration < 0.6 * min(r.duration_s for r in body.values()), run.tests


SPIN = {
    "src/spin/__init__.py": "",
    "src/spin/work.py": textwrap.dedent("""
        def work(n):
            total = 0
            for i in range(n):
                total += i % 7
            return total


        def double(x):
            return 2 * x
    """),
    "tests/test_spin.py": textwrap.dedent("""
        import pytest

        from spin.work import double, work


        def test_work_first():
            assert work(2_000_000) == 5_999_995


        @pytest.mark.parametrize("x", range(12))
        def test_double(x):
            assert double(x) == x + x
    """),
}


@pytest.mark.slow  # 35-45 s under load: it keeps both cores busy
def test_a_baseline_child_waiting_for_a_core_is_not_idle(tmp_path):
    # test_work_first computes with twelve tests behind it. On a core shared five ways (the two
    # baseline children, three busy loops) its child gets a fifth of the core: measured against the
    # wall clock it looks idle, as a child that sleeps does, and its tail went to new children
    # (cachetools' baselines at load 45: 5-6 x their CPU on a quiet machine). The time it waited
    # for the core is not idleness: only the one hand-on a run makes a quarter second in (the
    # second half of its tests) remains.
    for rel, text in SPIN.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    box = Sandbox(SandboxConfig(timeout_s=120), protect=tmp_path)
    with one_busy_core():
        run = run_engine(tmp_path, box, ["src/spin/work.py"], ["tests/test_spin.py"])
    assert run.baseline.children == {"traced": 2, "untraced": 2}, run.baseline
    assert [t.outcome for t in run.tests] == ["passed"] * 13
    doubled = [r for m, r in run.scored if m.line == 10]
    assert doubled and all(r.status is Status.KILLED for r in doubled), doubled
