"""Gates 1-3 of a vitest or `node --test` file in one node process (`languages/js_plans.py`): gate
1's run, kept for gate 2, then gate 3's plan run ahead by the same process (the reruns, the random
order, each test alone, each run isolated), so that a test that needs another's module state still
fails alone; a plan that is not the one run ahead gets a process of its own."""

from __future__ import annotations

from pathlib import Path

import pytest

from assay.config import Settings
from assay.execution.runner import Order, Outcome, RunStep, run_plan
from assay.execution.workspace import Workspace
from assay.languages import LANGUAGES
from assay.project import Project
from tests.conftest import REPO
from tests.languages.conftest import RecordingSandbox, copy_example

# `second` passes after `first` in the same module, fails alone
STATEFUL = """import { describe, expect, it } from "vitest";
import { total } from "../src/price";

const seen: number[] = [];

describe("cart", () => {
  it("first", () => {
    seen.push(total(100, 250));
    expect(seen).toEqual([350]);
  });

  it("second", () => {
    expect(seen).toEqual([350]);
  });
});
"""
NODE_STATEFUL = """import { describe, it } from "node:test";
import assert from "node:assert/strict";

const seen = [];

describe("cart", () => {
  it("first", () => {
    seen.push(350);
    assert.deepEqual(seen, [350]);
  });

  it("second", () => {
    assert.deepEqual(seen, [350]);
  });
});
"""


def gate3_steps(settings: Settings, seed: int | None = None) -> list[RunStep]:
    """The plan gate 3 asks of a runner whose reruns are processes (`gates/stability.py`)."""
    cfg = settings.stability
    return [RunStep(last_if_failed=True)] * cfg.reruns + [
        RunStep(Order.RANDOM, cfg.seed if seed is None else seed, last_if_failed=True),
        RunStep(isolate=True, last_if_failed=True),
    ]


def gates_1_to_3(root: Path, lang: str, rel: str, seed: int | None = None) -> tuple[list, list]:
    """Gate 1, gate 2's run and gate 3's plan on `rel`, as the pipeline calls the runner: the
    commands the sandbox ran and gate 3's runs."""
    settings = Settings(cache=False)
    sandbox = RecordingSandbox(settings.sandbox, protect=root)
    language, project = LANGUAGES[lang], Project.load(root)
    runner = language.runner(sandbox, project, settings)
    profile = language.profile_for(project)
    ids = [f"{rel}::cart > first", f"{rel}::cart > second"]
    with Workspace(root, links=profile.links, keep=profile.keep) as ws:
        built = runner.compile(ws, [rel])
        assert built.ok and built.collected == ids, built
        assert sorted(runner.run(ws, [rel]).passed()) == ids  # gate 2: the run gate 1 made
        runs = run_plan(runner, ws, [rel], gate3_steps(settings, seed), ids)
    return [c[:3] for c in sandbox.commands], runs


def assert_order_dependence_found(runs: list, rel: str, reruns: int = 3) -> None:
    """The reruns pass; the random order (when it puts `second` first) or `second` alone fails,
    and ends the plan."""
    ids = [f"{rel}::cart > first", f"{rel}::cart > second"]
    assert [sorted(r.passed()) for r in runs[:reruns]] == [ids] * reruns, runs
    assert len(runs) in (reruns + 1, reruns + 2) and runs[reruns].tests.keys() == set(ids), runs
    last = runs[-1].tests
    assert last[ids[1]].outcome is Outcome.FAILED and "350" in last[ids[1]].message, runs
    if len(runs) == reruns + 2:  # alone: `first` passes
        assert last[ids[0]].outcome is Outcome.PASSED


def started(commands: list) -> list[str]:
    """The tool or script each command started (tsc through its code cache's loader: "tsc")."""
    names = []
    for c in commands:
        name = Path(c[1] if c[0] == "node" and len(c) > 1 else c[0]).name
        names.append(Path(c[2]).name if name == "tsc_cached.cjs" else name)
    return names


@pytest.mark.slow
def test_vitest_gates_1_to_3_start_vitest_once_and_runs_stay_isolated(tmp_path):
    """Slow: tsc, one vitest start and 8 isolated runs, 10 s wall under load (10 starts before,
    then 3: tsc, gate 1's `vitest run`, gate 3's plan)."""
    if not (REPO / "examples/ts/node_modules/vitest").is_dir():
        pytest.skip("vitest is not installed in examples/ts (`npm ci` there; .ci/toolchains)")
    root = copy_example("ts", tmp_path)
    rel = "test/cart.test.ts"
    (root / rel).write_text(STATEFUL)
    commands, runs = gates_1_to_3(root, "typescript", rel)
    assert started(commands) == ["tsc", "vitest_plan.mjs"], commands
    assert_order_dependence_found(runs, rel)
    # another plan than the one run ahead (another seed): a plan process of its own, same findings
    commands, runs = gates_1_to_3(root, "typescript", rel, seed=7)
    assert started(commands) == ["tsc", "vitest_plan.mjs", "vitest_plan.mjs"], commands
    assert_order_dependence_found(runs, rel)


def test_node_test_gates_1_to_3_in_one_node_process_and_runs_stay_isolated(tmp_path):
    """`node --test` started a node (and a sandbox entry) per run: 7 for gates 1-3 of this file."""
    root = tmp_path / "js"
    (root / "test").mkdir(parents=True)
    (root / "package.json").write_text('{"name": "js", "type": "module"}\n')
    rel = "test/cart.test.js"
    (root / rel).write_text(NODE_STATEFUL)
    commands, runs = gates_1_to_3(root, "javascript", rel)
    assert started(commands) == ["node_plan.mjs"], commands
    assert_order_dependence_found(runs, rel, reruns=3)
    # another plan than the one run ahead: one more node process for all of it
    commands, runs = gates_1_to_3(root, "javascript", rel, seed=7)
    assert started(commands) == ["node_plan.mjs", "node_plan.mjs"], commands
    assert_order_dependence_found(runs, rel, reruns=3)


HANGS = """import { test } from "node:test";

test("waits forever", () => new Promise(() => setInterval(() => {}, 1000)));
"""


def test_a_run_of_the_plan_script_keeps_its_own_deadline(tmp_path):
    """Gate 1's run is the plan script's first run: a test that never ends makes it time out, as
    the sandbox's timeout did for a `node --test` process of its own (not the whole plan's)."""
    root = tmp_path / "js"
    (root / "test").mkdir(parents=True)
    (root / "package.json").write_text('{"name": "js", "type": "module"}\n')
    rel = "test/hang.test.js"
    (root / rel).write_text(HANGS)
    settings = Settings(cache=False)
    settings.sandbox.timeout_s = 2
    sandbox = RecordingSandbox(settings.sandbox, protect=root)
    language, project = LANGUAGES["javascript"], Project.load(root)
    runner = language.runner(sandbox, project, settings)
    profile = language.profile_for(project)
    with Workspace(root, links=profile.links, keep=profile.keep) as ws:
        built = runner.compile(ws, [rel])
    assert built.timed_out and built.crash == "node timed out after 2 s", built
    # the plan script, then `node --check` to tell a syntax error from the failed run
    assert started(sandbox.commands) == ["node_plan.mjs", "--check"], sandbox.commands


@pytest.mark.slow
def test_a_vitest_config_that_collects_coverage_does_not_fail_nor_write_the_tree(tmp_path):
    """Slow (tsc, vitest, gates 1-3: 10-30 s). A config with `coverage.enabled` (vercel/ms had
    jest's `collectCoverage`) made every run collect coverage: into the user's coverage/ of the
    scratch copy (gate 2 blamed the test, "the tests changed project files"), with a provider the
    project may not have installed (examples/ts has no @vitest/coverage-v8: every run failed)
    and thresholds that fail a run of one file. assay's runs collect none (vitest's
    `--coverage.enabled=false`, `coverage: {enabled: false}` in the plan)."""
    from assay import api
    from assay.model import Verdict

    if not (REPO / "examples/ts/node_modules/vitest").is_dir():
        pytest.skip("vitest is not installed in examples/ts (`npm ci` there; .ci/toolchains)")
    root = copy_example("ts", tmp_path)
    # an ES-module config, as most vitest projects have: Vite bundles it into
    # node_modules/.vite-temp, a scratch directory beside the user's read-only packages (it was
    # EROFS, "failed to load config", called the test's compile error)
    (root / "vitest.config.ts").write_text(
        "import { defineConfig } from 'vitest/config';\n"
        "export default defineConfig({ test: { coverage: { enabled: true, provider: 'v8',\n"
        "  reporter: ['lcov'], thresholds: { lines: 100 } } } });\n"
    )
    (root / "coverage").mkdir()  # the user's own last run
    (root / "coverage/lcov.info").write_text("TN:\nSF:src/price.ts\nend_of_record\n")
    report = api.verify(
        [root / "test/price.test.ts"],
        root=root,
        use_cache=False,
        overrides={"gates": ["compile", "green", "stability"]},
    )
    f = report.files[0]
    assert f.verdict is Verdict.ACCEPTED, [g.feedback for g in f.gates]
    assert all("changed project files" not in g.feedback for g in f.gates)
    assert not (root / "node_modules/.vite-temp").exists()  # the user's packages untouched


@pytest.mark.parametrize(
    ("version", "planned"), [("1.6.1", False), ("3.2.4", True), ("4.1.12", True)]
)
def test_a_vitest_without_the_node_api_the_plan_drives_runs_a_process_per_run(
    tmp_path, version, planned
):
    """scule pins vitest 1.6.1, whose `dist/node.js` lacks `getRelevantTestSpecifications`: the
    plan script crashed on it and the file was rejected, "COMPILE ERROR ... vitest.
    getRelevantTestSpecifications is not a function" (trials27c). Such a vitest runs as `vitest
    run`, a process per run."""
    from assay.languages.js_plans import script_for

    package = tmp_path / "node_modules/vitest"
    (package / "dist").mkdir(parents=True)
    (package / "dist/node.js").write_text("export {};\n")
    (package / "vitest.mjs").write_text("#!/usr/bin/env node\n")
    (package / "package.json").write_text(f'{{"name": "vitest", "version": "{version}"}}\n')
    (tmp_path / "node_modules/.bin").mkdir()
    (tmp_path / "node_modules/.bin/vitest").symlink_to("../vitest/vitest.mjs")
    script = script_for("vitest", str(tmp_path / "node_modules/.bin/vitest"))
    assert (script is not None) is planned, script


@pytest.mark.slow
def test_a_file_vitests_include_leaves_out_is_unvalidated_with_the_cause(tmp_path):
    """Slow (tsc and one vitest start: 10-15 s under load). negotiator's test/charset.js, under
    vitest (before its test script chose mocha): vitest's default include takes `*.test.*` and
    `*.spec.*` only, it ran nothing, and gate 1 rejected the file, "collection did not finish:
    vitest exited with status 0"."""
    if not (REPO / "examples/ts/node_modules/vitest").is_dir():
        pytest.skip("vitest is not installed in examples/ts (`npm ci` there; .ci/toolchains)")
    from assay import api
    from assay.model import Verdict

    root = copy_example("ts", tmp_path)
    rel = "test/price.check.ts"
    (root / rel).write_text((root / "test/price.test.ts").read_text())
    report = api.verify(
        [root / rel], root=root, use_cache=False, overrides={"gates": ["compile", "green"]}
    )
    [f] = report.files
    said = f.gates[0].feedback
    assert f.verdict is Verdict.UNVALIDATED, said
    assert f"the project's vitest does not run {rel}: its `test.include` (" in said, said
    assert "**/*.{test,spec}.?(c|m)[jt]s?(x)" in said and "exited with status" not in said, said


@pytest.mark.slow
def test_a_vitest_file_with_no_test_is_rejected_for_that_not_for_loading(tmp_path):
    """Slow (tsc and one vitest start). path-to-regexp's src/cases.spec.ts holds the tables
    index.spec.ts imports: vitest says "No test suite found in file", and gate 1 read
    "collection did not finish: vitest could not load … Fix the compile errors"."""
    if not (REPO / "examples/ts/node_modules/vitest").is_dir():
        pytest.skip("vitest is not installed in examples/ts (`npm ci` there; .ci/toolchains)")
    from assay import api
    from assay.model import Verdict

    root = copy_example("ts", tmp_path)
    rel = "test/cases.test.ts"
    (root / rel).write_text("export const CASES: Array<[number, number]> = [[1, 2]];\n")
    report = api.verify([root / rel], root=root, use_cache=False, overrides={"gates": ["compile"]})
    [f] = report.files
    said = f.gates[0].feedback
    assert f.verdict is Verdict.REJECTED and "no tests collected" in said, said
    assert "could not load" not in said and "compile errors" not in said, said
