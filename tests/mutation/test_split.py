"""When a test is slow enough to set apart, and how a child's CPU use tells waiting
from computing."""

import math
import os
import subprocess
import sys
import time

from assay._assay_sandbox.fork import cpu_ticks, family_ticks, fork, idle, watch
from assay._assay_sandbox.mutation.baseline import _Run, _Segment
from assay._assay_sandbox.mutation.split import (
    SPLIT_AGAIN_S,
    SPLIT_FACTOR,
    SPLIT_MIN_S,
    split_after,
)


def test_a_test_is_set_apart_past_its_baseline_time_and_what_a_new_child_costs():
    assert split_after(0.001, 0.0, 0) == SPLIT_MIN_S  # a fast test: the floor
    assert split_after(1.0, 0.0, 0) == SPLIT_FACTOR * 1.0
    # a fresh import in the new child costs more than the floor
    assert split_after(0.001, 0.3, 0) == 0.3
    # once the mutant has slowed a test down, the next one goes sooner, whatever a new child costs
    assert split_after(0.001, 0.3, 1) == SPLIT_AGAIN_S


def test_cpu_use_is_read_for_own_children_only():
    pid = os.fork()
    if pid == 0:
        time.sleep(0.3)
        os._exit(0)
    try:
        assert isinstance(cpu_ticks(pid), int)
        assert cpu_ticks(os.getpid()) is None  # not a child of this process: its parent differs
    finally:
        os.waitpid(pid, 0)
    assert cpu_ticks(pid) is None  # gone


def test_waiting_is_under_a_quarter_of_a_core_with_one_tick_of_slack():
    assert idle(101, 100, 0.05)  # one 10 ms tick in a short window
    assert not idle(103, 100, 0.05)
    assert idle(110, 100, 1.0) and not idle(130, 100, 1.0)
    assert not idle(None, 100, 1.0) and not idle(100, None, 1.0)


def test_a_childs_family_cpu_counts_the_processes_it_started():
    # a test waiting on a subprocess that computes is making progress: the child's own CPU time
    # does not show it, its family's does (the wall backstop moves on while it grows)
    burn = (
        "import sys, time\nend = time.process_time() + 0.3\nwhile time.process_time() < end: pass"
        "\nprint('burnt', flush=True)\ntime.sleep(30)"
    )
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        proc = subprocess.Popen([sys.executable, "-c", burn], stdout=subprocess.PIPE)
        os.write(w, b"%8d" % proc.pid)
        proc.stdout.readline()  # type: ignore[union-attr]
        os.write(w, b"b")  # the subprocess computed 0.3 s and lives on, sleeping
        time.sleep(30)
        os._exit(0)
    os.close(w)
    burner = int(os.read(r, 8))
    try:
        own, family = cpu_ticks(pid), family_ticks(pid)
        assert own is not None and family is not None
        os.read(r, 1)
        assert family_ticks(pid) - family >= 20  # type: ignore[operator]
        assert cpu_ticks(pid) - own < 10  # type: ignore[operator]
    finally:
        os.kill(burner, 9)
        os.kill(pid, 9)
        os.waitpid(pid, 0)
        os.close(r)
    assert family_ticks(pid) is None  # gone


def test_a_baseline_child_paused_as_it_ended_is_done_not_resumed():
    # the traced run reports a write and the untraced children after it pause (SIGSTOP); one whose
    # last line was on its way had ended: once reaped it is done, never resumed (SIGCONT to a pid
    # that is gone stopped the whole baseline: "ProcessLookupError: No such process")
    ended = []
    for _ in range(2):
        child = fork(lambda report: {"stopped": None})
        watch([child], lambda c: math.inf, lambda c, msg: None)
        segment = object.__new__(_Segment)
        segment.child, segment.result, segment.paused = child, {"stopped": 1}, False
        ended.append(segment)
    ended[1].pause()  # its pid is gone: a no-op
    run = object.__new__(_Run)
    run.segments, run.resumed = ended, 0
    run.resume(time.monotonic())
    assert run.resumed == 0
