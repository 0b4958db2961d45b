"""Gate 4 runs no more than its verdict needs: once the score is sure to reach the threshold the
sampled mutants left do not count (they still prove the tests that have not killed yet), and a test
the observer slows too much runs unobserved instead of timing out under mutants that change
nothing."""

from __future__ import annotations

import random
import sys

import pytest

from assay._assay_sandbox.mutation.enough import Enough, lower_bound
from assay._assay_sandbox.mutation.protocol import Verdict
from assay._assay_sandbox.protocol import PROVE_EACH_TEST, MutantSpec
from assay.config import SandboxConfig
from assay.config.mutation import MutationConfig
from assay.execution.workspace import Workspace
from assay.mutation.attribution import attribute
from assay.mutation.engine import Engine
from assay.mutation.model import COUNTED, DETECTED, EARLY_STOP, MutationResult, Status
from assay.sandbox import Sandbox

GRADE = """def grade(score):
    if score >= 90:
        return "A"
    if score >= 80:
        return "B"
    if score >= 70:
        return "C"
    if score >= 60:
        return "D"
    return "F"
"""
SIGN = """def sign(n):
    if n > 0:
        return 1
    if n < 0:
        return -1
    return 0
"""
# every boundary of grade but 60's; sign never meets 0, so `return 0` -> `return 1` survives
GRADE_TESTS = """from calc.grade import grade
from calc.sign import sign


def test_boundaries():
    assert [grade(s) for s in (90, 89, 80, 79, 70, 69, 59)] == ["A", "B", "B", "C", "C", "D", "F"]


def test_top():
    assert grade(100) == "A"


def test_runs():
    grade(95)


def test_sign():
    assert (sign(5), sign(-5)) == (1, -1)
"""
BAG = """class Bag:
    def __init__(self):
        self.items = []
        self.adds = 0

    def add(self, item):
        self.items.append([item] * 20)
        self.adds += 1
        return self
"""
# each call returns a bag of up to 1000 lists: the observer walks 2000 nodes of it 1000 times
BAG_TESTS = """from calc.bag import Bag


def test_many():
    bag = Bag()
    for i in range(1000):
        bag.add(i)
    assert len(bag.items) == 1000
"""


def _run(root, targets: list[str], test: str, **run) -> MutationResult:
    sandbox = Sandbox(SandboxConfig(timeout_s=30), protect=root)
    with Workspace(root) as ws:
        engine = Engine(ws, sandbox, sys.executable, ["src"], MutationConfig(workers=2))
        return engine.run(targets, [test], scoped=True, killers=PROVE_EACH_TEST, **run)


def test_a_module_certain_to_pass_stops_counting_and_still_proves_each_test(project):
    root = project(
        {
            "src/calc/__init__.py": "",
            "src/calc/grade.py": GRADE,
            "src/calc/sign.py": SIGN,
            "tests/test_grade.py": GRADE_TESTS,
        }
    )
    grade, sign = "src/calc/grade.py", "src/calc/sign.py"
    run = _run(root, [grade, sign], "tests/test_grade.py", enough={grade: 20.0, sign: 100.0})
    stopped = [(m, r) for m, r in run.scored if r.reason == EARLY_STOP]
    assert stopped and {r.status for _, r in stopped} == {Status.IGNORED}
    assert run.early_stopped == len(stopped)
    # grade.py was sure: its kills reach 20% of every mutant of it that could have counted
    # (certain), or the 99.9% lower bound of its score so far reaches 20% (confident)
    assert {m.file for m, _ in stopped} == {grade}
    mine = [r for m, r in run.scored if m.file == grade]
    counted = [r for r in mine if r.status in COUNTED]
    detected = sum(r.status in DETECTED for r in counted)
    assert (
        100 * detected >= 20 * (len(counted) + len(stopped))
        or lower_bound(detected, len(counted)) >= 0.2
    )
    # sign.py can never be certain of 100% with a survivor: its whole sample counts, whatever
    # grade.py does
    signs = [r for m, r in run.scored if m.file == sign]
    assert any(r.status is Status.SURVIVED for r in signs)
    assert not any(r.reason == EARLY_STOP for r in signs)
    ids = [t.id for t in run.tests]
    assert set(attribute(run, ids, exact=False).low_value) == {"tests/test_grade.py::test_runs"}


def test_a_test_the_observer_slows_runs_unobserved_not_into_false_timeouts(project):
    root = project(
        {"src/calc/__init__.py": "", "src/calc/bag.py": BAG, "tests/test_bag.py": BAG_TESTS}
    )
    run = _run(root, ["src/calc/bag.py"], "tests/test_bag.py", observe=True)
    statuses = {m.line: r.status for m, r in run.scored if m.line in (8, 9)}
    # `self.adds += 1` and the returned bag change what the test receives and nothing it checks
    assert statuses and set(statuses.values()) == {Status.SURVIVED}
    assert not [m.id for m, r in run.scored if r.status is Status.TIMEOUT]


def _mutants(n: int, rel: str = "src/calc/grade.py") -> list[MutantSpec]:
    return [MutantSpec(f"m{i}", rel, 0, 1, "x", i + 1, i + 1, i + 1, "grade") for i in range(n)]


def _after(outcomes: str, threshold: float = 60.0, planned: int = 100) -> list[bool]:
    """Whether the module is sure to pass after each outcome (K killed, S survived) of the first
    of `planned` sampled mutants."""
    enough = Enough({"src/calc/grade.py": threshold}, {})
    mutants = _mutants(planned)
    enough.plan(mutants)
    status = {"K": Status.KILLED, "S": Status.SURVIVED, "T": Status.TIMEOUT}
    sure = []
    for m, o in zip(mutants[: len(outcomes)], outcomes, strict=True):
        enough.count(m, Verdict(status[o]))
        sure.append(enough.certain(m.file))
    return sure


def test_a_module_far_above_its_threshold_is_sure_long_before_its_kills_reach_the_sample():
    # certain would need 60 kills of 100; 15 kills in a row put the score's 99.9% lower bound
    # at 61%
    assert _after("K" * 15) == [False] * 14 + [True]
    # one survivor costs a few more: 18 kills of 19
    assert _after("S" + "K" * 30).index(True) == 18
    assert lower_bound(18, 19) >= 0.6 > lower_bound(17, 18)


def test_a_module_near_its_threshold_runs_on_and_one_that_may_fail_never_stops():
    # 75% over 40 counted: likely a pass, but not at 99.9%; the sample runs on
    assert not any(_after("KKKS" * 10))
    # a threshold of 100 is never sure before it is certain
    assert not any(_after("K" * 99, threshold=100.0))
    assert _after("K" * 100, threshold=100.0)[-1]


def test_the_stop_reads_outcomes_in_the_samples_order_not_in_the_order_runs_end():
    """20 sampled mutants, 60%: twelve kills in the sample's order make it certain, whichever
    runs end first; what ended after them does not count (before: it did, and a loaded machine's
    order of ends moved a file's score from 80% to 75%)."""
    K, S = Status.KILLED, Status.SURVIVED
    outcomes = [K] * 11 + [S] + [K] * 2 + [S] * 6
    mutants = _mutants(20)
    seen = set()
    for seed in range(50):
        ends = list(range(20))
        random.Random(seed).shuffle(ends)
        enough = Enough({"src/calc/grade.py": 60.0}, {})
        enough.plan(mutants)
        for i in ends:
            enough.count(mutants[i], Verdict(outcomes[i]))
        assert enough.certain("src/calc/grade.py")
        seen.add(tuple(sorted(enough.past(), key=lambda i: int(i[1:]))))
    assert seen == {tuple(f"m{i}" for i in range(13, 20))}
    # a compile error past the stop does not count either; one not covered stays as it is
    enough = Enough({"src/calc/grade.py": 60.0}, {})
    enough.plan(mutants)
    for m, status in zip(
        mutants[:14], [K] * 12 + [Status.COMPILE_ERROR, Status.NO_COVERAGE], strict=True
    ):
        enough.count(m, Verdict(status))
    assert enough.past() == ["m12"]


def test_a_small_sample_runs_whole_its_survivors_are_worth_more_than_the_runs_saved():
    # 3 kills of 5 would be certain at 60%: the stop waits for 10 outcomes, or all there are
    assert _after("KKKKS", planned=5) == [False] * 4 + [True]  # sure once nothing is left
    assert _after("K" * 10, planned=12) == [False] * 9 + [True]


def test_a_survivor_whose_tests_saw_what_the_original_gave_does_not_hold_the_stop_back():
    """parse's `test_search.py`: three in four of the sample's survivors ended Unexercised (their
    tests received what the original gave), yet each counted as a survivor until the end: the stop
    came at 82 of 100 sampled mutants. Such a survivor (`quiet`) now counts as none."""
    grade = "src/calc/grade.py"
    mutants = _mutants(100)
    enough = Enough({grade: 60.0}, {}, observe=True)
    enough.plan(mutants)
    sure = []
    for i, m in enumerate(mutants[:40]):
        if i % 2:
            enough.count(m, Verdict(Status.SURVIVED), quiet=True)
        else:
            enough.count(m, Verdict(Status.KILLED))
        sure.append(enough.certain(grade))
    # 15 kills and nothing else counted: the 99.9% lower bound reaches 60%
    assert sure.index(True) == 28
    assert enough.cut[grade] == 29
    # at the end: a quiet survivor before the stop that did not end Unexercised means the stop
    # may have leaned to a pass (the engine runs the sample again without it)
    quiet_before = [m.id for m in mutants[1:29:2]]
    assert enough.unsure(set(quiet_before)) == []
    assert enough.unsure(set(quiet_before[1:])) == [quiet_before[0]]
    # one past the stop does not count whatever it ends as
    assert mutants[29].id not in enough.unsure(set())
    # a survivor that is not quiet still counts as one: 50% never reaches 60%
    enough = Enough({grade: 60.0}, {}, observe=True)
    enough.plan(mutants)
    for i, m in enumerate(mutants[:40]):
        enough.count(m, Verdict(Status.SURVIVED if i % 2 else Status.KILLED))
    assert not enough.certain(grade)


def test_a_mutant_still_running_does_not_hold_the_stop_back_where_no_outcome_of_it_could():
    """parse's `test_search.py`: a Timeout at the 27th place of the sample held the stop back
    while the other core ran 47 more sampled mutants as counted, all dropped once it ended. The
    rule now reads on past an outcome still to come, taken as a survivor: the stop is sure to come
    at or before that place, so what comes after runs only to prove tests; the stop itself is
    still found in the sample's order."""
    grade = "src/calc/grade.py"
    mutants = _mutants(100)
    enough = Enough({grade: 60.0}, {})
    enough.plan(mutants)
    for m in mutants[1:11]:  # the first still runs: 10 kills after it are not enough
        enough.count(m, Verdict(Status.KILLED))
    assert not enough.certain(grade)
    for m in mutants[11:21]:
        enough.count(m, Verdict(Status.KILLED))
    assert lower_bound(20, 21) >= 0.6
    assert enough.certain(grade)
    assert enough.past() == []  # no stop found yet: the first has no outcome
    enough.count(mutants[0], Verdict(Status.SURVIVED))
    # 18 kills of 19 in the sample's order, as if every outcome had come in order
    assert enough.cut[grade] == 19
    assert enough.past() == ["m19", "m20"]


# the observer slows it by far (each add returns the bag: its lists are walked at every call), yet
# it ends well within its deadline under a generous `timeout_s`; it notes each end it reached while
# observed
NOTED_TESTS = """import os
import sys

from calc.bag import Bag


def test_many():
    bag = Bag()
    for i in range(300):
        bag.add(i)
    assert len(bag.items) == 300
    if "observe" in getattr(sys.gettrace(), "__module__", ""):
        with open(os.path.join(os.environ["HOME"], "observed-ends"), "a") as fh:
            fh.write("end\\n")
"""


@pytest.mark.slow  # a whole engine run
def test_a_test_past_its_observed_limit_is_stopped_there_not_at_its_deadline(project):
    # from its limit on (3 x its untraced time + 0.02 s) it runs unobserved anyway: the rest of
    # its deadline (2 x that + 3 s here) was spent for nothing
    root = project(
        {"src/calc/__init__.py": "", "src/calc/bag.py": BAG, "tests/test_bag.py": NOTED_TESTS}
    )
    sandbox = Sandbox(SandboxConfig(timeout_s=30), protect=root)
    with Workspace(root) as ws:
        engine = Engine(
            ws, sandbox, sys.executable, ["src"], MutationConfig(workers=2, timeout_s=3.0)
        )
        run = engine.run(
            ["src/calc/bag.py"],
            ["tests/test_bag.py"],
            scoped=True,
            killers=PROVE_EACH_TEST,
            observe=True,
        )
        ends = ws.run_dir / "home" / "observed-ends"
        noted = ends.read_text() if ends.exists() else ""
    statuses = {m.line: r.status for m, r in run.scored if m.line in (8, 9)}
    # the same verdicts as when it ran on: unobserved, its survivors stay Survived
    assert statuses and set(statuses.values()) == {Status.SURVIVED}
    assert not [m.id for m, r in run.scored if r.status is Status.TIMEOUT]
    assert noted == ""


# grade as above, with notes its callers never receive: their mutants survive and change nothing a
# test receives (Unexercised); the boundaries test kills most of the rest
NOTED = """def grade(score):
    notes = []
    notes.append("checked " + str(score))
    notes.append(len(notes) * 2 + 1)
    notes.append(score - 1 > 0 and "pos" or "neg")
    notes.append(score * 3 - 7)
    notes.append("kept" if score > 10 else "dropped")
    notes.append(max(score, 5) // 2)
    if score >= 90:
        return "A"
    if score >= 80:
        return "B"
    if score >= 70:
        return "C"
    if score >= 60:
        return "D"
    return "F"
"""
BOUNDARIES = """from calc.grade import grade


def test_boundaries():
    assert [grade(s) for s in (90, 89, 80, 79, 70, 69, 60, 59)] == list("ABBCCDDF")
"""


@pytest.mark.slow  # a whole engine run
def test_survivors_a_test_receives_nothing_of_do_not_hold_a_real_runs_stop_back(project):
    """The observing pool tells the stop which survivors are quiet: with them counted as
    survivors the module (about half its mutants quiet) was never sure at 60% and its whole
    sample ran as counted; now it stops, the quiet ones end Unexercised, and the file's score
    counts only what came before the stop."""
    root = project(
        {
            "src/calc/__init__.py": "",
            "src/calc/grade.py": NOTED,
            "tests/test_grade.py": BOUNDARIES,
        }
    )
    grade = "src/calc/grade.py"
    run = _run(root, [grade], "tests/test_grade.py", observe=True, enough={grade: 60.0})
    statuses = [r.status for _, r in run.scored]
    assert Status.UNEXERCISED in statuses
    assert run.early_stopped > 0
    counted = [s for s in statuses if s in COUNTED]
    assert sum(s in DETECTED for s in counted) * 100 >= 60 * len(counted)
