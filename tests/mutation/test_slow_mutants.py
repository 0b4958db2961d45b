"""Tests that wait (fixtures/slow): a mutant that makes tests sleep does not hold its killer up, and
a baseline child that waits hands the tests after it to others - the facts and verdicts stay those
of one sequential run."""

from __future__ import annotations

import shutil

import pytest

from assay.config import SandboxConfig
from assay.mutation.model import Status
from assay.sandbox import Sandbox
from tests.mutation._mutation_support import FIXTURES, run_engine

RETRIES = [
    "tests/test_retry.py::test_retries[1]",
    "tests/test_retry.py::test_retries[2]",
    "tests/test_retry.py::test_retries[3]",
    "tests/test_retry.py::test_gives_up",
]
SETTLES = [f"tests/test_retry.py::test_settles[{n}]" for n in (1, 2, 3)]


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    root = tmp_path_factory.mktemp("slow") / "slow"
    shutil.copytree(FIXTURES / "slow", root)
    box = Sandbox(SandboxConfig(timeout_s=120), protect=root)
    # timeout_s 0.5: a test that sleeps may take 2 x its time + 4 x 0.5 s, so settle()'s mutant
    # sleeping one second only slows its tests (at the default 0.25, 1 s: a hang)
    return run_engine(
        root,
        box,
        ["src/slow/retry.py"],
        ["tests/test_retry.py", "tests/test_wait.py"],
        timeout_s=0.5,
    )


def _pick(run, line, original, replacement):
    found = [
        r
        for m, r in run.scored
        if (m.line, m.original, m.replacement) == (line, original, replacement)
    ]
    assert len(found) == 1
    return found[0]


def test_a_mutant_that_makes_tests_sleep_is_killed_by_the_test_behind_them(run):
    # backoff() returns the attempt: each retrying test sleeps 1-6 s, and all four run before
    # test_flat_pause (cheaper in the baseline); set apart one by one, they do not hold it up
    r = _pick(run, 7, "0", "1")
    assert r.status is Status.KILLED
    assert r.killed_by == ["tests/test_retry.py::test_flat_pause"]
    assert sorted(r.covered_by) == sorted([*RETRIES, "tests/test_retry.py::test_flat_pause"])
    assert run.split_mutants >= 1


def test_a_mutant_that_only_slows_tests_survives_once_every_test_passed(run):
    # settle() sleeps a second: no test fails, and the verdict waits for the tests that were
    # set apart
    r = _pick(run, 11, "0", "1")
    assert r.status is Status.SURVIVED
    assert sorted(r.covered_by) == SETTLES
    assert r.tests_completed == len(SETTLES)


def test_a_baseline_child_that_waits_hands_its_tail_to_another(run):
    # test_waits_first sleeps with 12 tests behind it: both runs end in more than one child
    assert run.baseline.children["traced"] > 1
    assert run.baseline.children["untraced"] > 1
    assert run.baseline.state_writers == []
    # every test's facts arrived, in collection order: coverage of each line is the sequential run's
    assert run.baseline.unstable == []
    r = _pick(run, 12, "True", "False")
    assert r.status is Status.KILLED and sorted(r.covered_by) == SETTLES


def test_the_other_verdicts_are_those_of_one_sequential_run(run):
    statuses = {(m.line, m.original, m.replacement): r.status for m, r in run.scored}
    assert statuses[(7, "*", "/")] is Status.SURVIVED  # 0 / attempt is still 0
    assert statuses[(18, "fn()", "None")] is Status.KILLED
    assert statuses[(20, "time.sleep(backoff(attempt))", "None")] is Status.SURVIVED


@pytest.fixture(scope="module")
def short(tmp_path_factory):
    """The same with a 0.05 s CPU deadline, so a wall backstop of about 0.2 s (2 x the test's
    time + 4 x 0.05 s): every test settle() makes sleep a second hangs."""
    root = tmp_path_factory.mktemp("slow-short") / "slow"
    shutil.copytree(FIXTURES / "slow", root)
    box = Sandbox(SandboxConfig(timeout_s=120), protect=root)
    return run_engine(root, box, ["src/slow/retry.py"], ["tests/test_retry.py"], timeout_s=0.05)


def test_a_test_set_apart_that_hangs_makes_the_mutant_timeout_once_no_other_test_fails(short):
    r = _pick(short, 11, "0", "1")
    assert r.status is Status.TIMEOUT
    assert r.killed_by and r.killed_by[0] in SETTLES
    # it sleeps: no CPU deadline, the wall-clock backstop (2 x its time + 4 x timeout_s) ended it
    assert "did not finish within" in r.reason and "sleeping or blocked" in r.reason, r.reason


def test_a_test_that_fails_beside_tests_that_hang_still_kills(short):
    r = _pick(short, 7, "0", "1")
    assert r.status is Status.KILLED
    assert r.killed_by == ["tests/test_retry.py::test_flat_pause"]


def test_untraced_children_paused_on_a_known_write_are_resumed_when_the_write_was_undone(tmp_path):
    # test_sets writes a global, test_restores sets it back, twelve waiting tests follow: the traced
    # run reports the write and the untraced children after it pause; comparing once, the untraced
    # run sees no write, so they go on - every test ran once, in order, and both writers are named
    root = tmp_path / "slow"
    shutil.copytree(FIXTURES / "slow", root)
    box = Sandbox(SandboxConfig(timeout_s=120), protect=root)
    run = run_engine(root, box, ["src/slow/retry.py"], ["tests/test_toggle.py"])
    # the writer's child ran on; the others were dropped
    assert run.baseline.children["traced"] == 2
    assert run.baseline.resumed["untraced"] >= 1
    assert run.baseline.state_writers == [
        "tests/test_toggle.py::test_restores",
        "tests/test_toggle.py::test_sets",
    ]
    assert run.baseline.unstable == []
    assert [t.outcome for t in run.tests] == ["passed"] * 15
    first = ["test_waits_first", "test_sets", "test_restores"]
    assert [t.id for t in run.tests][:3] == [f"tests/test_toggle.py::{name}" for name in first]
