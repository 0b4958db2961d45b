"""Gates 1-3 of a jest file in one node process (`jest_plan.mjs`: jest's own `runCLI` per run, in
band as the `jest` command runs one file), unless a run leaves what a process per run would not
pass on to the next (a handle open, a node module changed): then the `jest` command judges the
file, a process per run, as before."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from assay.config import Settings
from assay.execution import runner as execution
from assay.execution.runner import Outcome, run_plan
from assay.execution.workspace import Workspace
from assay.languages import LANGUAGES
from assay.languages.js_plans import stability_steps
from assay.project import Project
from tests.languages.conftest import RecordingSandbox

FIXTURE = Path(__file__).parent / "fixtures" / "jest"
# `second` needs what `first` left in a node module: passes after it, fails alone
IN_NODE_MODULE = """const os = require("os");

test("first", () => {
  os.assaySeen = (os.assaySeen || 0) + 1;
  expect(os.assaySeen).toBe(1);
});

test("second", () => {
  expect(os.assaySeen).toBe(1);
});
"""
# a timer still pending when the run ends (well past the plan's 150 ms for jest's own last
# timers): the jest command waits for it
LEFT_OPEN = """const { total } = require("../src/price");

test("adds prices", () => {
  setTimeout(() => {}, 1000);
  expect(total([100, 250])).toBe(350);
});
"""


def project(tmp_path: Path, body: str | None = None) -> Path:
    if not (FIXTURE / "node_modules" / "jest").is_dir():
        pytest.skip(f"jest not installed in the fixture: npm ci --prefix {FIXTURE}")
    root = tmp_path / "jest"
    shutil.copytree(FIXTURE, root, ignore=shutil.ignore_patterns("node_modules"))
    (root / "node_modules").symlink_to(FIXTURE / "node_modules")
    if body is not None:
        (root / "test/cart.test.js").write_text(body)
    return root


def gates_1_to_3(root: Path, rel: str, settings: Settings) -> tuple[list[str], list]:
    """Gate 1, gate 2's run and gate 3's plan as the pipeline calls the runner: the programs the
    sandbox started and gate 2's and gate 3's runs."""
    sandbox = RecordingSandbox(settings.sandbox, protect=root)
    language, proj = LANGUAGES["javascript"], Project.load(root)
    runner = language.runner(sandbox, proj, settings)
    profile = language.profile_for(proj)
    with Workspace(root, links=profile.links, keep=profile.keep) as ws:
        built = runner.compile(ws, [rel])
        assert built.ok, built
        runs: list[execution.TestRun] = [runner.run(ws, [rel])]
        steps = stability_steps(settings, ws.path(rel).read_text())
        assert steps is not None
        runs += run_plan(runner, ws, [rel], steps, built.collected)
    return [Path(c[1] if c[0] == "node" else c[0]).name for c in sandbox.commands], runs


@pytest.mark.slow
def test_a_jest_file_runs_gates_1_to_3_in_one_process(tmp_path):
    """Slow (9 s wall under load, 2-3 s of CPU: nine jest runs in one process). Before: nine `jest`
    processes (gate 1's run, three reruns, a random order, four tests alone), 0.7 s of CPU each."""
    root = project(tmp_path)
    rel = "test/price.test.js"
    commands, runs = gates_1_to_3(root, rel, Settings(cache=False))
    assert commands == ["--check", "jest_plan.mjs"], commands
    ids = [
        f"{rel}::total > adds prices",
        f"{rel}::total > rejects negative prices",
        f"{rel}::discount > takes a percentage off",
        f"{rel}::discount > rejects a bad percentage",
    ]
    # gate 2's run, three reruns, a random order, each test alone (one step)
    assert [sorted(r.passed()) for r in runs] == [sorted(ids)] * 6, runs


@pytest.mark.slow
def test_a_run_that_leaves_a_timer_pending_is_judged_by_the_jest_command(tmp_path):
    """Slow (the plan and 3 jest processes, 3-4 s of CPU): the jest command waits for the timer
    and exits; in one process the timer would outlive the run: the plan stops, and the jest
    command runs the file, a process per run."""
    root = project(tmp_path, LEFT_OPEN)
    settings = Settings(cache=False)
    settings.stability.reruns, settings.stability.random_order = 1, False
    commands, runs = gates_1_to_3(root, "test/cart.test.js", settings)
    assert commands == ["--check", "jest_plan.mjs", "jest", "jest", "jest"], commands
    assert [r.tests["test/cart.test.js::adds prices"].outcome for r in runs] == [
        Outcome.PASSED
    ] * 3, runs


@pytest.mark.slow
def test_a_test_that_needs_another_tests_node_module_state_still_fails_alone(tmp_path):
    """Slow (5 jest processes, 4-8 s of CPU): in one process `second` alone would see what the
    runs before left in `os` and pass; the plan stops after the first run instead."""
    root = project(tmp_path, IN_NODE_MODULE)
    settings = Settings(cache=False)
    settings.stability.reruns, settings.stability.random_order = 1, False
    rel = "test/cart.test.js"
    commands, runs = gates_1_to_3(root, rel, settings)
    assert [sorted(r.passed()) for r in runs[:2]] == [[f"{rel}::first", f"{rel}::second"]] * 2
    assert runs[2].tests[f"{rel}::second"].outcome is Outcome.FAILED, runs
    assert commands == ["--check", "jest_plan.mjs", "jest", "jest", "jest", "jest"], commands


# the second run (gate 3's first) leaves a timer pending; the first does not
LATER_OPEN = """const fs = require("fs");
const { total } = require("../src/price");

test("adds prices", () => {
  const n = fs.existsSync("runs.n") ? Number(fs.readFileSync("runs.n", "utf8")) + 1 : 1;
  fs.writeFileSync("runs.n", String(n));
  if (n === 2) setTimeout(() => {}, 300);
  expect(total([100, 250])).toBe(350);
});
"""


@pytest.mark.slow
def test_a_plan_declined_after_gate_1s_run_keeps_that_run_and_hands_gate_3_to_the_command(tmp_path):
    """Slow (2 jest processes and the plan, 2-4 s of CPU): gate 1's run stands (nothing was left
    after it), gate 3's runs are the jest command's."""
    root = project(tmp_path, LATER_OPEN)
    settings = Settings(cache=False)
    settings.stability.reruns, settings.stability.random_order = 1, False
    commands, runs = gates_1_to_3(root, "test/cart.test.js", settings)
    assert [r.tests["test/cart.test.js::adds prices"].outcome for r in runs] == [
        Outcome.PASSED
    ] * 3, runs
    assert commands == ["--check", "jest_plan.mjs", "jest", "jest"], commands


@pytest.mark.slow
def test_a_config_that_collects_coverage_does_not_make_the_test_write_the_tree(tmp_path):
    # vercel/ms's jest.config.ts has `collectCoverage: true` (and 100% thresholds): with the
    # coverage/ of the user's last `jest` in the tree, every run rewrote it in the scratch copy
    # and both its files were rejected "the tests changed project files: coverage/lcov-report/…";
    # assay's runs collect no coverage
    from assay import api
    from assay.model import Verdict

    root = project(tmp_path)
    (root / "jest.config.js").write_text(
        "module.exports = { collectCoverage: true, coverageReporters: ['lcov'],\n"
        "  coverageThreshold: { global: { lines: 100 } } };\n"
    )
    (root / "coverage").mkdir()  # the user's own last run
    (root / "coverage/lcov.info").write_text("TN:\nSF:src/price.js\nend_of_record\n")
    report = api.verify(
        [root / "test/price.test.js"],
        root=root,
        use_cache=False,
        overrides={"gates": ["compile", "green", "stability"]},
    )
    f = report.files[0]
    assert f.verdict is Verdict.ACCEPTED, [g.feedback for g in f.gates]
    assert "changed project files" not in f.gates[1].feedback


@pytest.mark.slow
def test_a_jest_file_with_no_test_is_rejected_as_such_not_as_a_failed_test(tmp_path):
    """Slow (jest's start under the sandbox: 5-15 s). jest's "Your test suite must contain at
    least one test" on a file of shared cases was a failing test at gate 2: "TEST FAILURE ...
    Fix expected values or setup"; vitest's "No test suite found" and mocha's empty run already
    said "no tests collected"."""
    from assay import api
    from assay.model import Verdict

    root = project(tmp_path, '"use strict";\nmodule.exports = { CASES: [[1, 2]] };\n')
    report = api.verify(
        [root / "test/cart.test.js"], root=root, use_cache=False, overrides={"gates": ["compile"]}
    )
    [f] = report.files
    said = f.gates[0].feedback
    assert f.verdict is Verdict.REJECTED and f.gates[0].gate == "compile", f.gates
    assert "no tests collected" in said and "declares no test" in said, said
