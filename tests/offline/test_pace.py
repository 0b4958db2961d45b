"""The probe's budget under load (issue 28): seconds of an idle machine, stretched by the slowdown
the probe measures, so that a loaded machine explores every function an idle one does, only more
slowly. At load 25-35 on 2 cores the first module of a field run kept nothing: "not probed: the
probe's time ran out before it" for all twelve of inflection's functions."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import time

import pytest

from assay._assay_sandbox import launch
from assay._assay_sandbox.offline.pace import MAX_WAIT_S, Clock, Pace, tree_cpu
from assay._assay_sandbox.protocol import OfflineFunction, OfflineJob

FUNCTIONS = 8
MODULE = "\n\n".join(
    textwrap.dedent(f"""
        def f{n}(x: int) -> int:
            if x > {n}:
                return x * {n + 2}
            return x - {n}
        """)
    for n in range(FUNCTIONS)
)
HOG = "while True: pass"


@pytest.mark.slow
def test_a_probe_slowed_by_cpu_hogs_beside_it_still_reaches_every_function(tmp_path):
    """Slow (seconds of CPU, several times that in wall time: the probe is made slow). Four CPU
    hogs per core run beside a probe of eight small functions with a 3 s budget: measured in wall
    seconds, the share was gone after the first few functions; measured in seconds of an idle
    machine, every function is explored."""
    (tmp_path / "m.py").write_text(MODULE)
    inputs = [{"args": [str(v)], "kwargs": {}, "origin": "tests"} for v in range(-20, 20)]
    job = OfflineJob(
        user_root=str(tmp_path),
        scratch_root=str(tmp_path),
        out=str(tmp_path / "out.json"),
        module="m",
        path=str(tmp_path / "m.py"),
        imports=[f"from m import f{n}" for n in range(FUNCTIONS)],
        functions=[
            OfflineFunction(f"f{n}", "function", list(inputs), []) for n in range(FUNCTIONS)
        ],
        mutants=[],
        budget_s=3.0,
        hypothesis_examples=0,
        max_slowdown=100.0,  # the writer's cap (`MAX_SLOWDOWN`) would bind at load 40 and more
    )
    (tmp_path / "job.json").write_text(job.to_json())
    hogs = [subprocess.Popen([sys.executable, "-c", HOG]) for _ in range(4 * (os.cpu_count() or 1))]
    try:
        subprocess.run(
            launch.argv(sys.executable, "offline", str(tmp_path / "job.json")),
            cwd=tmp_path,
            check=True,
            timeout=3.0 * job.max_slowdown + 30,
        )
    finally:
        for hog in hogs:
            hog.kill()
            hog.wait()
    found = json.loads((tmp_path / "out.json").read_text())
    reached = {name: bool(f.get("kept")) for name, f in found["functions"].items()}
    assert reached == {f"f{n}": True for n in range(FUNCTIONS)}, {
        name: {k: v for k, v in f.items() if k != "kept"} for name, f in found["functions"].items()
    }
    assert found["slowdown"] > 1.0  # it saw the hogs


def test_a_budget_in_idle_seconds_reaches_its_marks_by_the_wall_clock_end_at_the_latest():
    """The marks of a budget (`Clock.at`) lie at or after the idle-time mark and never past the
    wall-clock end, whatever the slowdown read."""
    pace = Pace(cap=4.0)
    assert 1.0 <= pace.slowdown <= 4.0
    start = pace.elapsed()
    clock = Clock(pace, end=pace.last + 1.0)
    assert clock.at(start + 0.2) <= pace.last + 1.0
    assert clock.at(start + 100.0) == pace.last + 1.0
    assert pace.until(start + 0.5) >= pace.last + 0.5 - 1e-3


WORK_THEN_WAIT = """
import time
t = time.process_time()
while time.process_time() - t < {cpu}:
    pass
time.sleep({wait})
"""


@pytest.mark.slow  # it waits 3-5 s
def test_the_budget_counts_the_cpu_seconds_the_work_got_not_the_wall_time_it_took():
    """A child works 0.3 CPU-s and then waits 3 s, as a process starved of the CPU waits: the
    clock counts the CPU (the work the budget buys), whatever the load. Counting the wall time
    divided by a spin read afterwards - 1.0 when the spin happens to run uncontended, as it did
    in a streak at load 50 - took 3.3 s of a 30 s budget for 0.3 s of work."""
    pace = Pace(cap=20.0)
    start, cpu = pace.elapsed(), tree_cpu()
    subprocess.run([sys.executable, "-c", WORK_THEN_WAIT.format(cpu=0.3, wait=3.0)], check=True)
    pace.measure()
    used = tree_cpu() - cpu
    assert used >= 0.25  # os.times counts in clock ticks
    assert pace.elapsed() - start == pytest.approx(used, abs=0.05)
    assert pace.slowdown > 1.0  # 3.3 s of wall for it: the next marks are projected further


def test_work_done_in_lanes_side_by_side_counts_once_per_lane():
    """Two children working 0.3 CPU-s each at the same time (the mutants' workers) spend the
    budget of one lane's work, not of both added up."""
    pace = Pace(cap=20.0)
    start, cpu = pace.elapsed(), tree_cpu()
    code = WORK_THEN_WAIT.format(cpu=0.3, wait=0.0)
    children = [subprocess.Popen([sys.executable, "-c", code]) for _ in range(2)]
    for child in children:
        child.wait()
    pace.measure(lanes=2)
    used = tree_cpu() - cpu
    assert pace.elapsed() - start <= used / 2 + 0.05


@pytest.mark.slow  # it waits 3-5 s
def test_short_pieces_of_work_are_counted_by_their_cpu_once_there_is_enough_to_read():
    """The mutants' loop reads the clock as each child ends: ten children of a few hundredths of
    a CPU-s each, a wait of 0.5 s after each. Each piece alone is too little to read; counted
    as they add up, the clock takes their CPU. Before, a piece too small to read was counted by
    its wall time over a spin - the waits spent the budget."""
    pace = Pace(cap=20.0)
    start, cpu = pace.elapsed(), tree_cpu()
    for _ in range(10):
        subprocess.run([sys.executable, "-c", WORK_THEN_WAIT.format(cpu=0.02, wait=0.0)])
        time.sleep(0.5)
        pace.measure()
    # the last pieces, still too little to read, are counted once their interval has waited
    # MAX_WAIT_S (before that `elapsed` extrapolates them at the slowdown in force: CI read 1.14 s
    # for 0.31 s of CPU with up to 2 s of such a tail)
    time.sleep(MAX_WAIT_S)
    pace.measure()
    used = tree_cpu() - cpu
    assert pace.elapsed() - start == pytest.approx(used, abs=0.3)
