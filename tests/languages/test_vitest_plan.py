"""Gates 1-3 of a vitest file in three process starts: tsc, one vitest run that collects for gate 1
and is kept for gate 2, and gate 3 in one vitest instance (`languages/vitest_plan.py`): the reruns,
the random order and each test alone through vitest's Node API, each run isolated (a test that
needs another's module state still fails alone)."""

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


@pytest.mark.slow
def test_gates_1_to_3_start_vitest_twice_and_runs_stay_isolated(tmp_path):
    """Slow: tsc, two vitest starts and 8 isolated runs, 10 s wall under load (10 starts before)."""
    if not (REPO / "examples/ts/node_modules/vitest").is_dir():
        pytest.skip("vitest is not installed in examples/ts (`npm ci` there; .ci/toolchains)")
    root = copy_example("ts", tmp_path)
    rel = "test/cart.test.ts"
    (root / rel).write_text(STATEFUL)
    settings = Settings(cache=False)
    sandbox = RecordingSandbox(settings.sandbox, protect=root)
    lang, project = LANGUAGES["typescript"], Project.load(root)
    runner = lang.runner(sandbox, project, settings)
    profile = lang.profile_for(project)
    ids = [f"{rel}::cart > first", f"{rel}::cart > second"]
    steps = [RunStep(last_if_failed=True)] * 3 + [
        RunStep(Order.RANDOM, 7, last_if_failed=True),
        RunStep(isolate=True, last_if_failed=True),
    ]
    with Workspace(root, links=profile.links, keep=profile.keep) as ws:
        built = runner.compile(ws, [rel])
        assert built.ok and built.collected == ids, built
        assert sorted(runner.run(ws, [rel]).passed()) == ids  # gate 2: the run gate 1 made
        runs = run_plan(runner, ws, [rel], steps, ids)
    started = [Path(c[0]).name for c in sandbox.commands]
    # was tsc, vitest list, vitest run (gate 2), then 7 vitest runs (3 reruns, random, 2 alone)
    assert started == ["tsc", "vitest", "node"], sandbox.commands
    assert [sorted(r.passed()) for r in runs[:3]] == [ids] * 3, runs
    assert len(runs) == 5 and runs[3].tests.keys() == set(ids)
    alone = runs[4].tests
    assert alone[ids[0]].outcome is Outcome.PASSED
    assert alone[ids[1]].outcome is Outcome.FAILED and "350" in alone[ids[1]].message
