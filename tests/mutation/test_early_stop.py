"""Gate 4 runs no more than its verdict needs: once the score is certain to reach the threshold the
sampled mutants left do not count (they still prove the tests that have not killed yet), and a test
the observer slows too much runs unobserved instead of timing out under mutants that change
nothing."""

from __future__ import annotations

import sys

from assay._assay_sandbox.protocol import PROVE_EACH_TEST
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
# every boundary but 60's: `>= 60` -> `> 60` survives, so the file cannot reach 100%
GRADE_TESTS = """from calc.grade import grade


def test_boundaries():
    assert [grade(s) for s in (90, 89, 80, 79, 70, 69, 59)] == ["A", "B", "B", "C", "C", "D", "F"]


def test_top():
    assert grade(100) == "A"


def test_runs():
    grade(95)
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


def _run(root, target: str, test: str, **run) -> MutationResult:
    sandbox = Sandbox(SandboxConfig(timeout_s=30), protect=root)
    with Workspace(root) as ws:
        engine = Engine(ws, sandbox, sys.executable, ["src"], MutationConfig(workers=2))
        return engine.run([target], [test], scoped=True, killers=PROVE_EACH_TEST, **run)


def test_a_certain_pass_stops_counting_and_still_proves_each_test(project):
    root = project(
        {
            "src/calc/__init__.py": "",
            "src/calc/grade.py": GRADE,
            "tests/test_grade.py": GRADE_TESTS,
        }
    )
    target, test = "src/calc/grade.py", "tests/test_grade.py"
    early = _run(root, target, test, enough={target: 20.0})
    stopped = [r for _, r in early.scored if r.reason == EARLY_STOP]
    counted = [r for _, r in early.scored if r.status in COUNTED]
    assert stopped and {r.status for r in stopped} == {Status.IGNORED}
    assert early.early_stopped == len(stopped)
    # certain: the kills alone reach 20% of every mutant that could have counted
    assert 100 * sum(r.status in DETECTED for r in counted) >= 20 * (len(counted) + len(stopped))
    ids = [t.id for t in early.tests]
    assert set(attribute(early, ids, exact=False).low_value) == {"tests/test_grade.py::test_runs"}
    # 100% is never certain with a survivor: the whole sample counts
    whole = _run(root, target, test, enough={target: 100.0})
    assert whole.early_stopped == 0
    assert any(r.status is Status.SURVIVED for _, r in whole.scored)
    assert len([r for _, r in whole.scored if r.status in COUNTED]) > len(counted)


def test_a_test_the_observer_slows_runs_unobserved_not_into_false_timeouts(project):
    root = project(
        {"src/calc/__init__.py": "", "src/calc/bag.py": BAG, "tests/test_bag.py": BAG_TESTS}
    )
    run = _run(root, "src/calc/bag.py", "tests/test_bag.py", observe=True)
    statuses = {m.line: r.status for m, r in run.scored if m.line in (8, 9)}
    # `self.adds += 1` and the returned bag change what the test receives and nothing it checks
    assert statuses and set(statuses.values()) == {Status.SURVIVED}
    assert not [m.id for m, r in run.scored if r.status is Status.TIMEOUT]
