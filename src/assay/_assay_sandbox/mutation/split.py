"""When a mutant's test is slow enough to set apart, and what the children of a split mutant share.

A mutant can make a test far slower than in the baseline without making it fail or hang: tenacity's
`wait_none` turned into a one-second wait makes every retrying test sleep, 1 to 20 s each, while the
test that kills it takes a millisecond. Run one after the other, the killer waits behind the
sleepers. So a test past `SPLIT_FACTOR` x its baseline time (and past what a new child costs to
start) keeps its child to itself, and a new child runs the tests after it. The child left behind
holds no core while it sleeps, so it does not count against the workers; one that computes splits
only when a core is free. `Group` is what the children of one mutant share; `Running`, what the pool
watches of each child.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..fork import Child
from .patch import Hunt
from .plan import Job
from .protocol import Verdict

# a test past this many times its baseline time (x pace) is slow under this mutant
SPLIT_FACTOR = 4.0
SPLIT_MIN_S = 0.1  # ... and past this long: a split costs a fork, and a fresh import in some modes
SPLIT_AGAIN_S = 0.05  # ... or this long, once the mutant has slowed a test down
IDLE_WINDOW_S = 0.05  # how long a slow test's child is watched to tell waiting from computing
# children a mutant may add beside its first: bounds what one mutant takes from the others
MAX_SPLITS = 32
MAX_CHILDREN = 4  # children alive at once, per worker: most of them sleep, but each holds memory
# after a test that slept past its backstop, the tests after it go to this many children side by
# side (they likely sleep too: each hang costs about a second, and a sleeping child holds no core)
HANG_FANOUT = 4


@dataclass
class Group:
    """The children one mutant runs in, and what they found so far."""

    ordered: list[str]  # the tests, in the order the first child got them
    started: float
    live: set[int] = field(default_factory=set)
    splits: int = 0
    done: int = 0  # tests completed, over all children
    slow: set[str] = field(default_factory=set)  # classes (or modules) of its tests that ran slow
    hang: Verdict | None = None  # the Timeout of the first test that hung, should no test fail
    over: bool = False
    hunt: Hunt = field(default_factory=Hunt)  # what its children look for


def split_after(baseline_s: float, setup_s: float, splits: int) -> float:
    """Seconds a test may run before the rest of its mutant's tests go to a new child:
    `baseline_s` is its baseline time at the current pace, `setup_s` what the new child takes to
    reach its first test. Once the mutant has split (`splits`), it is known to slow tests down:
    the next one goes sooner."""
    if splits:
        return max(SPLIT_FACTOR * baseline_s, SPLIT_AGAIN_S)
    return max(SPLIT_FACTOR * baseline_s, SPLIT_MIN_S, setup_s)


@dataclass(eq=False)
class Running:
    """One child of a mutant, as the pool watches it: the test it is in, its deadline, its
    split state."""

    job: Job
    child: Child
    ordered: list[str]  # the tests it runs, in order
    group: Group  # the children of its mutant
    deadline: float
    # seconds granted to the current step: CPU for a test, wall time for a set-up or the gap after
    # one
    budget: float
    since: float  # when the current step began
    test: str | None = None  # the test it is in, None between tests
    solo: str | None = None  # a slow test it keeps alone, the tests after it gone to a new child
    idle: bool = False  # that slow test sleeps: the child holds no core
    check: float | None = None  # when to look at the current test again (slow enough to split?)
    cpu: tuple[int, float] | None = None  # CPU ticks of the child, and when read
    begun: bool = False  # its first test started
    # seconds it had waited for a core when its current step began (None: unknown)
    waited: float | None = 0.0
    granted: float = 0.0  # seconds added to its deadline for that waiting
    backstop: float = 0.0  # wall seconds its current test may take when it sleeps or blocks
    hangs: int = 0  # tests of its mutant that hung one after another before it started
    # CPU ticks of the child and the processes under it at the last look, and when (None: unknown)
    family: tuple[int | None, float] = (None, 0.0)
    cpu_start: float | None = None  # its CPU seconds when its current test began (None: unknown)
    # the deadline its test passed: "cpu", or "wall" (it slept or blocked), or "blocked" (for good:
    # `blocked`)
    hung: str = ""
    # CPU seconds its set-up may use: what one like it used (x the test rule); None: none seen yet
    setup_cpu: float | None = None
    stopped: bool = False  # its solo test passed: the tests after it are another child's
