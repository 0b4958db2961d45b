"""A child blocked for good: its only thread waits, with no time limit, on a lock of its own.

A mutant that leaves a `concurrent.futures.Future` unresolved (tenacity's `fut.set_result(val)` ->
`None`) makes every test that asks the future for its outcome wait on its condition forever; the
pool held each such test to its wall backstop (1 s), one test after another. Such a wait can end
only by another thread of the process (a private futex is no other process's to wake) or by a
signal; with one thread, no timer and no process under it to send one, it never ends. The pool asks
at each look (the first 0.1 s into the test, then at its CPU budget) and stops it then: the same
Timeout, with the same test to blame, that the backstop would give, most of a second sooner.

Read from /proc (Linux; elsewhere, or where /proc can not say, nothing is blocked for good):
`status` (threads, voluntary context switches, signals caught), `syscall` (the call it waits in),
`timers` (POSIX timers), `task/*/children` (processes it started).
"""

from __future__ import annotations

import os
import platform
import signal

# the futex call's number, by machine
FUTEX = {"x86_64": 202, "aarch64": 98, "arm64": 98}.get(platform.machine())
FUTEX_WAIT, FUTEX_WAIT_BITSET = 0, 9
FUTEX_PRIVATE_FLAG = 128  # a lock of this process only
FUTEX_CLOCK_REALTIME = 256
FUTEX_CMD_MASK = ~(FUTEX_PRIVATE_FLAG | FUTEX_CLOCK_REALTIME)  # the command alone
# when the pool first looks at a test (before its CPU budget, 0.25 s, where that is longer): a test
# blocked for good is stopped then; one that is not goes on to its budget as before
BLOCKED_LOOK_S = 0.1
# a caught SIGALRM: a timer (`signal.alarm`, pytest-timeout) may yet interrupt the wait
ALARM = 1 << (signal.SIGALRM - 1)


def _status(pid: int) -> tuple[int, int, int] | None:
    """Threads, voluntary context switches, the mask of signals caught."""
    try:
        with open(f"/proc/{pid}/status", "rb") as fh:
            fields = dict(line.split(b":", 1) for line in fh.read().splitlines() if b":" in line)
        return (
            int(fields[b"Threads"]),
            int(fields[b"voluntary_ctxt_switches"]),
            int(fields[b"SigCgt"], 16),
        )
    except (OSError, KeyError, ValueError):
        return None


def _waits_forever(pid: int) -> bool:
    """Whether the process's (only) thread is in a futex wait on a private lock with no timeout."""
    try:
        with open(f"/proc/{pid}/syscall", "rb") as fh:
            call = fh.read().split()
    except OSError:
        return False
    if FUTEX is None or len(call) < 5 or call[0] != str(FUTEX).encode():
        return False
    try:
        op, timeout = int(call[2], 16), int(call[4], 16)
    except ValueError:
        return False
    return (
        op & FUTEX_CMD_MASK in (FUTEX_WAIT, FUTEX_WAIT_BITSET)
        and op & FUTEX_PRIVATE_FLAG != 0
        and timeout == 0
    )


def _alone(pid: int) -> bool:
    """No POSIX timer and no process it started (either could send a signal)."""
    try:
        with open(f"/proc/{pid}/timers", "rb") as fh:
            if fh.read().strip():
                return False
        for task in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{task}/children", "rb") as fh:
                if fh.read().strip():
                    return False
    except OSError:
        return False
    return True


def blocked_for_good(pid: int) -> bool:
    """Whether child `pid` can never go on: one thread, waiting in the same futex call (no
    voluntary switch) from before the first look at its threads to after the last, with no
    time limit, on a lock of its own process, and nothing that could signal it (a caught SIGALRM,
    a POSIX timer, a process it started)."""
    first = _status(pid)
    if first is None or first[0] != 1 or first[2] & ALARM:
        return False
    if not _waits_forever(pid) or not _alone(pid):
        return False
    return _status(pid) == first
