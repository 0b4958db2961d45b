"""Gate 4's time budget: one slow test that covers the whole module runs on every survivor
(croniter's `test_croniter_speed.py`: 1,125 s for a 15 s file). The sample shrinks to a prefix of
itself within `mutation.budget` x the file's own run; the verdict says so, and a failing score
on too few mutants is not judged. The progress total is the sample, not every mutant in scope.
A test's deadline follows the shortest of its baseline times (a load-inflated one let slowed
mutants run until the test's own time limit failed them)."""

from __future__ import annotations

import sys

import pytest

from assay._assay_sandbox.mutation.budget import MIN_SAMPLE, within
from assay._assay_sandbox.mutation.protocol import Progress
from assay.config import SandboxConfig
from assay.config.mutation import MutationConfig
from assay.execution.workspace import Workspace
from assay.mutation.budgeted import undecided
from assay.mutation.engine import Engine
from assay.mutation.model import Status
from assay.sandbox import Sandbox
from tests.conftest import verify_json

RULES = """
    def price(qty, unit):
        if qty <= 0:
            return 0
        total = qty * unit
        if qty >= 10:
            total = total * 0.9
        if total > 100:
            total = total - 5
        return round(total, 2)


    def label(total):
        if total == 0:
            return "free"
        if total < 10:
            return "cheap"
        if total < 50:
            return "fair"
        return "dear"


    def tax(total, rate=0.2):
        return round(total * (1 + rate), 2)


    def shipping(weight):
        if weight <= 1:
            return 3
        if weight <= 5:
            return 7
        return 7 + (weight - 5) * 2
    """
# one slow test that runs everything and checks little, cheap ones beside it
TESTS = """
    from shop.rules import label, price, shipping, tax


    def test_free():
        assert price(0, 5) == 0


    def test_cheap():
        assert label(5) == "cheap"


    def test_fair():
        assert label(30) == "fair"


    def test_light():
        assert shipping(1) == 3


    def test_everything_slowly():
        burnt = sum(i * i for i in range(1_500_000))  # its seconds, in the test itself
        assert burnt > 0
        assert price(3, 4) > 0
        assert label(price(20, 10)) in ("free", "cheap", "fair", "dear")
        assert tax(100) > 100
        assert shipping(10) > 0
    """
FILES = {"shop/__init__.py": "", "shop/rules.py": RULES, "tests/test_rules.py": TESTS}
SLOW = "tests/test_rules.py::test_everything_slowly"


def test_the_sample_is_cut_to_a_prefix_within_the_budget_never_below_its_least():
    ids = [f"m{i}" for i in range(100)]
    # 1 s each as survivors, a 2 s file: 20 x 3 s (the least a run counts for) = 60 s -> 60
    kept, cut = within(ids, lambda i: 1.0, 20, 2.0)
    assert kept == ids[:60] and cut is not None
    assert (cut.kept, cut.planned, cut.estimate_s, cut.budget_s) == (60, 100, 100.0, 60.0)
    # within the budget: untouched
    assert within(ids, lambda i: 0.5, 20, 2.0) == (ids, None)
    # a 9 s test on every mutant: 20 of them, never fewer
    kept, cut = within(ids, lambda i: 9.0, 20, 10.0)
    assert len(kept) == MIN_SAMPLE and cut is not None
    assert within(ids, lambda i: 9.0, 0, 10.0) == (ids, None)  # 0: no budget


def test_a_failing_score_on_few_mutants_is_undecided_only_while_its_interval_reaches_it():
    row = {"file": "a.py", "threshold": 60.0, "passed": False}
    assert undecided([{**row, "score": 45.0, "mutants": 20}])  # 95% upper end ~66%
    assert not undecided([{**row, "score": 10.0, "mutants": 20}])  # ~30%
    assert not undecided([{**row, "score": 45.0, "mutants": 400}])  # ~50%


@pytest.mark.slow  # a worker, ~20 mutants against a 0.2-1 s test
def test_a_slow_test_over_every_mutant_shrinks_the_sample_and_the_progress_counts_it(project):
    root = project(FILES)
    sandbox = Sandbox(SandboxConfig(timeout_s=60), protect=root)
    shown: list[Progress] = []
    with Workspace(root) as ws:
        engine = Engine(ws, sandbox, sys.executable, ["."], MutationConfig(workers=2, budget=0.1))
        run = engine.run(
            ["shop/rules.py"],
            ["tests/test_rules.py"],
            scoped=True,
            sample=100,
            budget=0.1,
            progress=lambda ev: shown.append(ev) if isinstance(ev, Progress) else None,
        )
    cut = run.budget_cut
    assert cut is not None, run.results
    assert cut.kept == MIN_SAMPLE and cut.planned > MIN_SAMPLE
    assert run.over_budget == cut.planned - cut.kept
    ran = [r for _, r in run.scored if r.status in (Status.KILLED, Status.SURVIVED)]
    assert 0 < len(ran) <= cut.kept  # the rest of the prefix: duplicates, equivalents
    # the total the display showed is the sample's, and it reached it
    last = [p for p in shown if p.phase == "mutants"][-1]
    assert (last.done, last.total) == (cut.kept, cut.kept), last


@pytest.mark.slow  # gate 4 end to end: ~20 mutants against a 0.2-1 s test
def test_the_verdict_says_the_budget_cut_the_sample_and_does_not_reject_on_too_few(
    project, tmp_path
):
    root = project(
        FILES,
        "[tool.assay]\ngates = ['compile', 'green', 'mutation']\n"
        "[tool.assay.mutation]\nbudget = 0.1\n",
    )
    f, shown = verify_json(root, "tests/test_rules.py", tmp_path / "r.json")
    [gate] = [g for g in f["gates"] if g["gate"] == "mutation"]
    details = gate.get("details", gate)
    assert details["budget"]["kept"] == MIN_SAMPLE, (gate, shown)
    assert any("sampled mutants" in n and "time budget" in n for n in details["notes"]), gate
    # the weak slow test leaves most mutants alive: a failing score over 20 mutants whose 95%
    # interval still reaches 60% is not a reject of the file
    assert f["verdict"] == "unvalidated", (f["verdict"], shown)
    assert "too few mutants to judge within gate 4's time budget" in details["reason"], gate


@pytest.mark.slow  # a worker and a mutant that computes 1-2 s when not held to its deadline
def test_a_deadline_follows_the_traced_time_when_the_given_one_was_taken_under_load(project):
    root = project(
        {
            "spin/__init__.py": "",
            "spin/loop.py": """
                def spin(n):
                    count = 0
                    for i in range(int(n / 8)):
                        if i % 3 == 0:
                            count += 1
                    return count > 0
                """,
            "tests/test_loop.py": """
                from spin.loop import spin


                def test_spin():
                    assert spin(2_000_000) is True
                """,
        }
    )
    sandbox = Sandbox(SandboxConfig(timeout_s=60), protect=root)
    with Workspace(root) as ws:
        engine = Engine(ws, sandbox, sys.executable, ["."], MutationConfig(workers=2))
        # gate 2 took it on a busy machine: 30 s for a 0.03 s test
        run = engine.run(
            ["spin/loop.py"],
            ["tests/test_loop.py"],
            durations={"tests/test_loop.py::test_spin": 30.0},
        )
    [(m, r)] = [(m, r) for m, r in run.scored if (m.line, m.replacement) == (4, "*")]
    # `n * 8` computes 64 times as long and still passes: held to 2 x 0.03 s + 0.25 s of CPU,
    # not to 2 x 30 s
    assert r.status is Status.TIMEOUT, (m, r)


@pytest.mark.slow  # a worker, 10 mutants against a 0.2-1 s test
def test_the_progress_total_is_the_sample_not_every_mutant_in_scope(project):
    root = project(FILES)
    sandbox = Sandbox(SandboxConfig(timeout_s=60), protect=root)
    shown: list[Progress] = []
    with Workspace(root) as ws:
        engine = Engine(ws, sandbox, sys.executable, ["."], MutationConfig(workers=2))
        engine.run(
            ["shop/rules.py"],
            ["tests/test_rules.py"],
            scoped=True,
            sample=10,
            progress=lambda ev: shown.append(ev) if isinstance(ev, Progress) else None,
        )
    mutants = [p for p in shown if p.phase == "mutants"]
    # "2/61 mutants" while 10 were to count; the proving runs after them are not counted
    assert {p.total for p in mutants[1:]} == {10}, [(p.done, p.total) for p in mutants]
    assert (mutants[-1].done, mutants[-1].total) == (10, 10)
