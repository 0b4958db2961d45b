"""Gate 3 of a Go or Rust test binary in one sandbox entry (`languages/binary_plan.py`): each run
still a process of its own (a test that needs another's package state fails alone), the plan
stopping after a failed run as asked."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from assay.config import Settings
from assay.execution.runner import Outcome, RunStep, run_plan
from assay.execution.workspace import Workspace
from assay.languages import LANGUAGES
from assay.project import Project
from tests.conftest import REPO
from tests.languages.conftest import RecordingSandbox

STEPS = [RunStep(last_if_failed=True)] * 3 + [RunStep(isolate=True, last_if_failed=True)]


def _plan(tmp_path: Path, language: str, rel: str, tests: list[str]) -> tuple[list, list[str]]:
    """Gate 3's plan (3 reruns, then each test alone) for the example's flaky file alone: the
    runs, and the commands that entered the sandbox for them."""
    tests_dir = Path(rel).parent
    root = tmp_path / language
    shutil.copytree(REPO / f"examples/{language}", root, ignore=shutil.ignore_patterns("target"))
    suffix = Path(rel).name.split("flaky", 1)[1]
    for other in ("typo", "wrong", "weak", "price"):
        (root / tests_dir / f"{other}{suffix}").unlink()
    settings = Settings(cache=False)
    sandbox = RecordingSandbox(settings.sandbox, protect=root)
    lang = LANGUAGES[language]
    runner = lang.runner(sandbox, Project.load(root), settings)
    ids = [f"{rel}::{name}" for name in tests]
    with Workspace(root, keep=lang.profile.keep) as ws:
        assert runner.compile(ws, [rel]).ok
        if language == "rust":
            # the candidate's test crate compiled without rustc's incremental cache (a third of
            # its CPU)
            assert not list((ws.cache_dir / "cargo-target/debug/incremental").glob("flaky-*"))
        before = len(sandbox.commands)
        runs = run_plan(runner, ws, [rel], STEPS, ids)
    return runs, [Path(c[0]).name for c in sandbox.commands[before:]]


@pytest.mark.slow
def test_a_go_files_stability_runs_enter_the_sandbox_once(tmp_path):
    """Slow: go vet and a test binary's link, 6 s wall under load."""
    if shutil.which("go") is None:
        pytest.skip("go is not installed")
    rel = "price/flaky_test.go"
    ids = [f"{rel}::TestFlakyAddToCart", f"{rel}::TestFlakyCartTotal"]
    runs, entries = _plan(tmp_path, "go", rel, [i.split("::")[1] for i in ids])
    assert entries == ["sh"], entries  # was 5: 3 reruns, 2 tests alone
    assert [sorted(r.passed()) for r in runs[:3]] == [ids] * 3, runs
    alone = runs[3].tests  # a process each: the cart is empty when the total runs alone
    assert alone[ids[0]].outcome is Outcome.PASSED
    assert alone[ids[1]].outcome is Outcome.FAILED and "want 350" in alone[ids[1]].message


@pytest.mark.slow
def test_a_rust_files_stability_runs_enter_the_sandbox_once(tmp_path):
    """Slow: the crate's warm build and the candidate's test crate, 5-20 s wall."""
    if shutil.which("cargo") is None:
        pytest.skip("cargo is not installed")
    rel = "tests/flaky.rs"
    ids = [f"{rel}::a_add_to_cart", f"{rel}::b_cart_total"]
    runs, entries = _plan(tmp_path, "rust", rel, [i.split("::")[1] for i in ids])
    assert entries == ["sh"], entries  # was 5: 3 reruns, 2 tests alone
    assert [sorted(r.passed()) for r in runs[:3]] == [ids] * 3, runs
    alone = runs[3].tests
    assert alone[ids[0]].outcome is Outcome.PASSED
    assert alone[ids[1]].outcome is Outcome.FAILED
