"""When a test is slow enough to set apart, and how a child's CPU use tells waiting
from computing."""

import os
import time

from assay._assay_sandbox.fork import cpu_ticks, idle
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
