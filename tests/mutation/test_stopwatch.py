"""A test's measured time (baseline durations, the deadlines under mutants) is never below the CPU
time it used, nor negative, whatever the run-queue wait read from the scheduler says."""

from __future__ import annotations

import time

from assay._assay_sandbox.fork import clock, stopwatch, took


def test_a_measured_time_is_at_least_the_cpu_it_used():
    start = stopwatch()
    cpu = time.process_time()
    total = 0
    while time.process_time() - cpu < 0.05:
        total += 1
    used = time.process_time() - cpu
    assert took(start) >= used > 0
    # a clock that ran backwards since the start (the scheduler's wait ahead of the wall clock)
    assert took((clock() + 60.0, time.process_time() + 60.0)) == 0.0
