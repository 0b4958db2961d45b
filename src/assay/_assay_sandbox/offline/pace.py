"""The offline writer's clock under load: a budget in seconds of an idle machine.

On a machine shared with other work the probe gets a fraction of a core, and a budget in wall-clock
seconds buys a fraction of the work: at load 25-35 on 2 cores the probe explored two or three of a
module's functions (or none, the interpreter's start having taken the share) before its time was
gone. The slowdown is measured as the share of a core a short CPU-bound spin gets - its wall time
over the CPU time it used: 1 on an idle core, about 10 when ten runnable processes share one -
and every share and limit of the probe is stretched by it, so that a loaded machine does the work
of an idle one, more slowly, up to `MAX_SLOWDOWN` times the budget. A function that sleeps does
not read as load: the spin measures the CPU the machine gives, not what the code under test does.
Used by the probe in the sandbox and by the writer around it (mining, the gates).
"""

from __future__ import annotations

import time

SPIN_S = 0.02  # CPU seconds one measure spins (about 0.1 s of wall time at load 10 on 2 cores)
# a budget stretches at most this much (a 30 s budget: 600 s of wall time). The slowdown is read
# per core (runnable processes sharing one), so the cap binds at the same load per core on any
# machine: 10 bound above load ~20 on 2 cores, where the field bench kept fewer kills for it
# (bench/README.md, "Seventh pass"); 20 binds above load ~40
MAX_SLOWDOWN = 20.0
KEEP = 3  # the slowdown in force: the median of the last measures


def spin(cpu_s: float = SPIN_S) -> float:
    """Wall time over CPU time of `cpu_s` of busy work in this thread (at least 1)."""
    wall, cpu = time.monotonic(), time.thread_time()
    while time.thread_time() - cpu < cpu_s:
        sum(range(200))
    used = max(1e-6, time.thread_time() - cpu)
    return max(1.0, (time.monotonic() - wall) / used)


class Pace:
    """Idle seconds spent since it was made (`elapsed`), counted at the slowdown measured along
    the way (`measure`), and the wall-clock moment an idle-seconds mark is reached (`until`).
    `cap` bounds the slowdown; `spent` seconds (already idle ones) may be counted from before."""

    def __init__(self, cap: float = MAX_SLOWDOWN, spent: float = 0.0):
        self.cap = max(1.0, cap)
        self.spent = spent
        self.samples: list[float] = []
        self.slowdown = 1.0
        self.last = time.monotonic()
        self.measure()

    def measure(self) -> float:
        """Measure the slowdown now (a short spin) and count the time since the last measure at
        the mean of the two; the slowdown in force after it."""
        sample = min(self.cap, spin())
        self.samples = [*self.samples, sample][-KEEP:]
        before, self.slowdown = self.slowdown, sorted(self.samples)[len(self.samples) // 2]
        if len(self.samples) == 1:
            before = self.slowdown
        now = time.monotonic()
        self.spent += (now - self.last) / ((before + self.slowdown) / 2)
        self.last = now
        return self.slowdown

    def count(self, spent: float) -> None:
        """Take `spent` idle seconds as the time spent until now (another clock's account of an
        interval it measured more closely)."""
        self.spent, self.last = spent, time.monotonic()

    def elapsed(self) -> float:
        """Idle seconds spent so far."""
        return self.spent + (time.monotonic() - self.last) / self.slowdown

    def until(self, mark: float) -> float:
        """The `time.monotonic()` at which `elapsed()` reaches `mark`, at the slowdown in force."""
        return time.monotonic() + (mark - self.elapsed()) * self.slowdown

    def wall(self, idle_s: float) -> float:
        """Wall seconds that `idle_s` idle seconds take now."""
        return idle_s * self.slowdown


class Clock:
    """A budget's marks (idle seconds, `pace`) as `time.monotonic()` moments, never past `end`
    (the wall-clock limit whatever the load)."""

    def __init__(self, pace: Pace, end: float):
        self.pace, self.end = pace, end

    def at(self, mark: float) -> float:
        return min(self.pace.until(mark), self.end)
