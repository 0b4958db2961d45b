"""The offline writer's clock under load: a budget in seconds of an idle machine.

On a machine shared with other work the probe gets a fraction of a core, and a budget in wall-clock
seconds buys a fraction of the work: at load 25-35 on 2 cores the probe explored two or three of a
module's functions (or none, the interpreter's start having taken the share) before its time was
gone. The budget counts the CPU seconds the work got (this process and the children it waited for,
divided by the lanes that ran side by side): at every `measure` the interval's CPU is what was
spent, and its wall time over that CPU is the slowdown by which the next marks are projected onto
the wall clock - 1 on an idle core, about 10 when ten runnable processes share one. So a loaded
machine does the work of an idle one, more slowly, up to `MAX_SLOWDOWN` times the budget. Before,
the slowdown was a 20 ms spin read at each measure and the wall time in between was divided by
it: a streak of uncontended spins (1.0 at load 50) counted a starved interval as idle time and
cut the probe short, so toolz's score swung with the load (bench/README.md, "Ninth pass"). An
interval with too little CPU to read runs on (`elapsed` extrapolates at the slowdown in force)
until it has enough; one that waited `MAX_WAIT_S` counts its CPU, at least its wall time over
the cap (a wait is not load: the spin read it as idle time). The spin gives the first reading.
Used by the probe in the sandbox and by the writer around it (mining, the gates).
"""

from __future__ import annotations

import os
import time

SPIN_S = 0.02  # CPU seconds one measure spins (about 0.1 s of wall time at load 10 on 2 cores)
# a budget stretches at most this much (a 30 s budget: 600 s of wall time). The slowdown is read
# per core (runnable processes sharing one), so the cap binds at the same load per core on any
# machine: 10 bound above load ~20 on 2 cores, where the field bench kept fewer kills for it
# (bench/README.md, "Seventh pass"); 20 binds above load ~40
MAX_SLOWDOWN = 20.0
KEEP = 3  # the slowdown in force: the median of the last measures
MIN_CPU_S = 0.2  # an interval with at least this much CPU (per lane) is read by its own CPU
MAX_WAIT_S = 2.0  # an interval this long with less CPU waited: counted, no reading taken


def spin(cpu_s: float = SPIN_S) -> float:
    """Wall time over CPU time of `cpu_s` of busy work in this thread (at least 1)."""
    wall, cpu = time.monotonic(), time.thread_time()
    while time.thread_time() - cpu < cpu_s:
        sum(range(200))
    used = max(1e-6, time.thread_time() - cpu)
    return max(1.0, (time.monotonic() - wall) / used)


def tree_cpu() -> float:
    """CPU seconds of this process and of the children it has waited for (theirs included)."""
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


class Pace:
    """Idle seconds spent since it was made (`elapsed`), counted at the slowdown measured along
    the way (`measure`), and the wall-clock moment an idle-seconds mark is reached (`until`).
    `cap` bounds the slowdown; `spent` seconds (already idle ones) may be counted from before."""

    def __init__(self, cap: float = MAX_SLOWDOWN, spent: float = 0.0):
        self.cap = max(1.0, cap)
        self.spent = spent
        self.samples: list[float] = []
        self.slowdown = 1.0
        self.last, self.cpu = time.monotonic(), tree_cpu()
        self.measure()

    def measure(self, lanes: int = 1) -> float:
        """Count the time since the last measure by its CPU (over `lanes` processes that worked
        side by side) and read the slowdown from it, once it has enough (see the module's
        docstring); the slowdown in force after it."""
        now, cpu = time.monotonic(), tree_cpu()
        wall, used = now - self.last, (cpu - self.cpu) / max(1, lanes)
        if used >= MIN_CPU_S:  # the work's own account: the budget counts its CPU
            self._read(min(self.cap, max(1.0, wall / used)))
            self.spent += min(used, wall)
        elif not self.samples:  # nothing read yet: a spin
            self._read(min(self.cap, spin()))
            self.spent += wall / self.slowdown
        elif wall >= MAX_WAIT_S:  # waiting, not working: its CPU, never under the cap's share
            self.spent += max(used, wall / self.cap)
        else:  # too little CPU to read yet (a mutant's child): counted when there is enough
            return self.slowdown
        self.last, self.cpu = now, cpu
        return self.slowdown

    def _read(self, sample: float) -> None:
        self.samples = [*self.samples, sample][-KEEP:]
        self.slowdown = sorted(self.samples)[len(self.samples) // 2]

    def count(self, spent: float, slowdown: float | None = None) -> None:
        """Take `spent` idle seconds as the time spent until now (another clock's account of an
        interval it measured more closely), and its `slowdown` reading when it gives one."""
        self.spent, self.last, self.cpu = spent, time.monotonic(), tree_cpu()
        if slowdown is not None:
            self._read(min(self.cap, max(1.0, slowdown)))

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

    def at(self, mark: float, lanes: int = 0) -> float:
        """`mark`'s moment; with `lanes`, measured first (the work since, over that many)."""
        if lanes:
            self.pace.measure(lanes)
        return min(self.pace.until(mark), self.end)
