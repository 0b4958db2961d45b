"""Gate 3's plan run ahead by gate 1's plan process (`languages/js_plans.py`) is taken only when the
stability gate asks for exactly the steps run ahead. The two are written in two layers (the gate
builds its steps, `js_plans.stability_steps` predicts them): these tests run the real gates 1-3
through the `Verifier`, so a step field the gate adds and the prediction lacks shows up as a second
plan process."""

from __future__ import annotations

from pathlib import Path

import pytest

from assay.config import Settings
from assay.model import Candidate
from assay.pipeline import Verifier
from assay.project import Project
from tests.conftest import REPO
from tests.languages.conftest import RecordingSandbox, copy_example
from tests.languages.test_vitest_plan import NODE_STATEFUL, STATEFUL, started

PASSING = """import { describe, it } from "node:test";
import assert from "node:assert/strict";

describe("cart", () => {
  it("adds", () => {
    assert.equal(1 + 2, 3);
  });

  it("subtracts", () => {
    assert.equal(3 - 2, 1);
  });
});
"""


def verify(root: Path, rel: str, language: str) -> tuple[list[str], dict]:
    """Gates 1-3 of `rel` through the pipeline: the plan scripts and tools the sandbox started,
    and the file's report."""
    settings = Settings(cache=False, gates=["compile", "green", "stability"])
    project = Project.load(root)
    verifier = Verifier(project, settings, use_cache=False)
    sandbox = RecordingSandbox(settings.sandbox, protect=root)
    verifier.sandbox = sandbox  # the runners are made on first use, with this sandbox
    try:
        source = (root / rel).read_text()
        report = verifier.verify_file(Candidate(root / rel, rel, source, language))
    finally:
        verifier.close()
    assert report is not None
    return started(getattr(sandbox, "commands", [])), report.to_json()


def node_project(tmp_path: Path, body: str) -> tuple[Path, str]:
    root = tmp_path / "js"
    (root / "test").mkdir(parents=True)
    (root / "package.json").write_text('{"name": "js", "type": "module"}\n')
    rel = "test/cart.test.js"
    (root / rel).write_text(body)
    return root, rel


def test_gate_3_takes_the_plan_gate_1_ran_ahead(tmp_path):
    """Before: the gate's steps were lean (`RunStep.lean`) and the prediction's were not, so the
    plan run ahead was never equal to the one asked: a second plan process ran it all again."""
    root, rel = node_project(tmp_path, PASSING)
    commands, report = verify(root, rel, "javascript")
    assert report["verdict"] == "accepted", report
    assert commands == ["node_plan.mjs"], commands


def test_the_plan_run_ahead_still_finds_order_dependence(tmp_path):
    """The runs ahead are the gate's own runs: `second` needs `first`'s module state, and fails
    alone (or in a random order): the file is flaky, from the one plan process."""
    root, rel = node_project(tmp_path, NODE_STATEFUL)
    commands, report = verify(root, rel, "javascript")
    assert report["verdict"] == "flaky", report
    assert commands == ["node_plan.mjs"], commands


@pytest.mark.slow
def test_vitest_gates_1_to_3_start_vitest_once_in_the_pipeline(tmp_path):
    """Slow: tsc and vitest. Before: tsc, then two vitest plan processes (gates 1-2, gate 3)."""
    if not (REPO / "examples/ts/node_modules/vitest").is_dir():
        pytest.skip("vitest is not installed in examples/ts (`npm ci` there; .ci/toolchains)")
    root = copy_example("ts", tmp_path)
    rel = "test/cart.test.ts"
    (root / rel).write_text(STATEFUL)
    commands, report = verify(root, rel, "typescript")
    assert report["verdict"] == "flaky", report
    assert commands == ["tsc", "vitest_plan.mjs"], commands
