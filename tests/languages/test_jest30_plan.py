"""jest 30's plan (`jest_plan.mjs`): jest's own modules (jest-circus, expect, jest-snapshot) are
compiled once per plan process and evaluated afresh in each run's environment, as jest 29 did.
What each run must still be on its own: the framework's state (a matcher `expect.extend` added)
and the environment's globals are the run's, and a failing assertion reads as jest tells it."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from assay.config import Settings
from assay.execution.runner import Outcome
from assay.execution.workspace import Workspace
from assay.languages import LANGUAGES
from assay.project import Project
from tests.languages.conftest import RecordingSandbox
from tests.languages.test_jest_plan import FIXTURE, gates_1_to_3

JEST30 = Path(__file__).parent / "fixtures" / "jest30"
# `first` adds a matcher and sets a global; each `needs` test passes after it, in file order
NEEDS_FIRST = """test("first", () => {
  expect.extend({
    toBeAssayPrice: (n) => ({ pass: n > 0, message: () => `${n} is no price` }),
  });
  globalThis.assaySeen = 1;
  expect(1).toBe(1);
});

test("needs the matcher", () => {
  expect(350).toBeAssayPrice();
});

test("needs the global", () => {
  expect(globalThis.assaySeen).toBe(1);
});
"""
FAILING = """const { total } = require("../src/price");

test("adds prices", () => {
  expect(total([100, 250])).toBe(351);
});
"""


def project(tmp_path: Path, body: str) -> Path:
    """fixtures/jest's sources with jest 30 (fixtures/jest30's node_modules) and `body` as
    test/cart.test.js."""
    if not (JEST30 / "node_modules" / "jest").is_dir():
        pytest.skip(f"jest 30 not installed in the fixture: npm ci --prefix {JEST30}")
    root = tmp_path / "jest30"
    ignore = shutil.ignore_patterns("node_modules", "package*.json")
    shutil.copytree(FIXTURE, root, ignore=ignore)
    shutil.copy(JEST30 / "package.json", root / "package.json")
    (root / "node_modules").symlink_to(JEST30 / "node_modules")
    (root / "test/cart.test.js").write_text(body)
    return root


@pytest.mark.slow
def test_a_test_that_needs_a_matcher_or_a_global_another_test_left_fails_alone(tmp_path):
    """Slow (five jest 30 runs in one process, 2-3 s of CPU). Each run alone has jest's own
    modules evaluated afresh in a fresh environment: a matcher `first` added, or a global it set,
    is not there for the other tests alone (a framework or context kept between runs would let
    them pass)."""
    root = project(tmp_path, NEEDS_FIRST)
    settings = Settings(cache=False)
    settings.stability.reruns, settings.stability.random_order = 1, False
    rel = "test/cart.test.js"
    commands, runs = gates_1_to_3(root, rel, settings)
    assert commands == ["--check", "jest_plan.mjs"], commands
    names = ["first", "needs the global", "needs the matcher"]
    # gate 2's run and the rerun, in file order: all pass
    assert [sorted(r.passed()) for r in runs[:2]] == [[f"{rel}::{n}" for n in names]] * 2, runs
    alone = {t: r.outcome for t, r in runs[2].tests.items() if r.outcome is not Outcome.SKIPPED}
    assert alone[f"{rel}::first"] is Outcome.PASSED, runs[2]
    assert alone[f"{rel}::needs the matcher"] is Outcome.FAILED, runs[2]
    assert alone[f"{rel}::needs the global"] is Outcome.FAILED, runs[2]


@pytest.mark.slow
def test_a_failing_assertion_reads_as_jest_tells_it(tmp_path):
    """Slow (a jest 30 run, 1-2 s of CPU). expect's message and the stack's line in the test file,
    from jest's own modules compiled by the plan."""
    root = project(tmp_path, FAILING)
    settings = Settings(cache=False)
    rel = "test/cart.test.js"
    sandbox = RecordingSandbox(settings.sandbox, protect=root)
    language, proj = LANGUAGES["javascript"], Project.load(root)
    runner = language.runner(sandbox, proj, settings)
    profile = language.profile_for(proj)
    with Workspace(root, links=profile.links, keep=profile.keep) as ws:
        assert runner.compile(ws, [rel]).ok
        run = runner.run(ws, [rel])
    result = run.tests[f"{rel}::adds prices"]
    assert result.outcome is Outcome.FAILED, run
    assert "Expected: 351" in result.message and "Received: 350" in result.message, result
    assert "cart.test.js:4" in result.message, result
