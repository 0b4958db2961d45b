"""A JavaScript file that holds no node:test test (a tape file, a script of asserts) is one test
under `node --test`, passed when its process exits 0. Once its first run passed, the plan script
runs gate 3's runs in a worker thread each (`node_plan.mjs`): one node process for gates 1-3
instead of one per run. Each case below is one where a thread could differ from a process; each
must end as a process per run ends it."""

from __future__ import annotations

from pathlib import Path

import pytest

from assay import api
from assay.config import Settings
from assay.execution import runner as execution
from assay.execution.runner import Outcome, run_plan
from assay.execution.workspace import Workspace
from assay.languages import LANGUAGES
from assay.languages.js_plans import stability_steps
from assay.model import FileReport, Verdict
from assay.pipeline import Verifier
from assay.project import Project
from tests.languages.conftest import RecordingSandbox

# the run's number (1: gate 1's), counted in a file of the package, and where it ran
COUNT = """"use strict";
const fs = require("node:fs");
const assert = require("node:assert/strict");
const n = fs.existsSync("runs.n") ? Number(fs.readFileSync("runs.n", "utf8")) + 1 : 1;
fs.writeFileSync("runs.n", String(n));
fs.appendFileSync("runs.log", `${n} ${process.pid}\\n`);
"""
FRESH = (
    COUNT
    + """// a run sees nothing a run before it left in globals, env or module state
assert.equal(globalThis.seen, undefined);
assert.equal(process.env.ASSAY_SEEN, undefined);
assert.equal(require("./state").seen.length, 0);
globalThis.seen = true;
process.env.ASSAY_SEEN = "1";
require("./state").seen.push(n);
assert.equal(require.main, module);
"""
)
CASES = {
    # a process may change its directory, a worker thread may not (here the refusal is caught
    # and reported, as a harness does): redone in a process
    "chdir": "try { process.chdir('..'); } catch (e) { console.error(e); process.exitCode = 1; }\n",
    # a failure by exit status, on the third run only: gate 3 finds it, as with a process per run
    "exit": "if (n === 3) process.exitCode = 1;\n",
    "exit_call": "if (n === 2) process.exit(2);\n",
    "rejection": "if (n === 2) Promise.reject(new Error('run two rejects'));\n",
    # the main thread's stack (V8's 984 KB) overflows at this depth; a worker's default 4 MB not
    "stack": (
        "const down = (d) => (d === 0 ? 0 : 1 + down(d - 1));\n"
        "if (n === 2) assert.equal(down(40000), 40000);\n"
    ),
    # a handle left open on the second run: that run hangs as its process would
    "hangs": "if (n === 2) setInterval(() => {}, 1000);\n",
}


def gates_1_to_3(
    tmp_path: Path, body: str, timeout_s: float = 20, log: bool = True
) -> tuple[list, list, list]:
    """Gate 1, gate 2's run and gate 3's plan, as the pipeline calls the runner: the commands the
    sandbox ran, gate 2's and gate 3's runs, and the runs' log lines (number, pid)."""
    root = tmp_path / "js"
    (root / "test").mkdir(parents=True, exist_ok=True)
    (root / "package.json").write_text('{"name": "js", "devDependencies": {"tape": "5"}}\n')
    (root / "test/state.js").write_text("exports.seen = [];\n")
    rel = "test/merge.test.js"
    (root / rel).write_text(body)
    settings = Settings(cache=False)
    settings.sandbox.timeout_s = timeout_s
    sandbox = RecordingSandbox(settings.sandbox, protect=root)
    language, project = LANGUAGES["javascript"], Project.load(root)
    runner = language.runner(sandbox, project, settings)
    profile = language.profile_for(project)
    with Workspace(root, links=profile.links, keep=profile.keep) as ws:
        built = runner.compile(ws, [rel])
        assert built.ok and len(built.collected) == 1, built
        assert "assay-ws" not in built.collected[0], built  # the user's path names it
        runs: list[execution.TestRun] = [runner.run(ws, [rel])]
        steps = stability_steps(settings, body)
        assert steps is not None
        runs += run_plan(runner, ws, [rel], steps, built.collected)
        lines = ws.path("runs.log").read_text().splitlines() if log else []
    started = [Path(c[1] if len(c) > 1 else c[0]).name for c in sandbox.commands]
    return started, runs, [line.split() for line in lines]


def outcomes(runs: list[execution.TestRun]) -> list[str]:
    return ["timeout" if r.timed_out else next(iter(r.tests.values())).outcome.value for r in runs]


def test_a_file_without_node_test_tests_runs_gates_1_to_3_in_threads_of_one_process(tmp_path):
    """Before: its six runs were six child processes of the plan script."""
    commands, runs, log = gates_1_to_3(tmp_path, FRESH)
    assert commands == ["node_plan.mjs"], commands
    assert outcomes(runs) == ["passed"] * 6, runs
    assert [n for n, _ in log] == ["1", "2", "3", "4", "5", "6"]
    assert len({pid for _, pid in log}) == 1, log  # threads of the plan's process


def test_a_file_whose_thread_loaded_node_test_runs_under_node_test(tmp_path):
    """node:test reached through a helper (the file does not name it): its tests are `run()`'s
    to report, not an exit status."""
    body = 'require("./helper");\n'
    helper = 'const t = require("node:" + "test");\nt.test("adds", () => {});\n'
    (tmp_path / "js/test").mkdir(parents=True)
    (tmp_path / "js/test/helper.js").write_text(helper)
    commands, runs, _ = gates_1_to_3(tmp_path, body, log=False)
    assert [list(r.tests) for r in runs] == [["test/merge.test.js::adds"]] * 6, runs
    assert outcomes(runs) == ["passed"] * 6, runs


@pytest.mark.parametrize(
    ("case", "expected"),
    [
        ("chdir", ["passed"] * 6),
        ("exit", ["passed", "passed", "failed"]),
        ("exit_call", ["passed", "failed"]),
        ("rejection", ["passed", "failed"]),
        ("stack", ["passed", "failed"]),
    ],
)
def test_a_thread_ends_a_run_as_its_own_process_would(tmp_path, case, expected):
    commands, runs, log = gates_1_to_3(tmp_path, FRESH + CASES[case])
    assert outcomes(runs) == expected, runs
    failed = [r for r in runs if next(iter(r.tests.values())).outcome is Outcome.FAILED]
    if failed:  # the message `node --test` gives for a file that exits with that status
        status = "2" if case == "exit_call" else "1"
        assert f"exitCode: {status}," in next(iter(failed[0].tests.values())).message, failed
    if case == "chdir":  # the thread refused (its attempt counted), that run and the rest are
        # processes
        assert len(log) == 7 and len({pid for _, pid in log[1:]}) == 6, log
    assert commands == ["node_plan.mjs"], commands


@pytest.mark.slow
def test_a_run_that_hangs_in_a_thread_is_judged_as_its_process_would_be(tmp_path):
    """Slow: 5 s wall (the run's 2 s deadline, then processes), little CPU. The second run hangs;
    as with a process per run, the plan ends at that run's deadline and gate 3 does that step and
    the rest again, a process per run (`plans.redo_crashed`)."""
    _, runs, log = gates_1_to_3(tmp_path, FRESH + CASES["hangs"], timeout_s=2)
    assert outcomes(runs) == ["passed"] * 6, runs
    assert [n for n, _ in log] == ["1", "2", "3", "4", "5", "6", "7"], log


def test_a_tape_files_one_test_is_named_by_the_users_path_not_the_scratch_copys(tmp_path):
    """Before: `test/merge.test.js::/tmp/assay-ws-…/project/test/merge.test.js` in every report
    (the name `node --test` gives a file without node:test tests is its absolute path), from gate
    1's collection to gate 3's runs, a thread's and a process's alike."""
    name = "test/merge.test.js::test/merge.test.js"
    commands, runs, _ = gates_1_to_3(tmp_path, FRESH + CASES["chdir"])
    assert [list(r.tests) for r in runs] == [[name]] * 6, runs
    assert commands == ["node_plan.mjs"], commands  # still one plan process
    _, runs, _ = gates_1_to_3(tmp_path / "failing", FRESH + CASES["exit"])
    assert [list(r.tests) for r in runs] == [[name]] * 3, runs
    assert "assay-ws" not in next(iter(runs[-1].tests.values())).message


def verified(tmp_path: Path, body: str) -> tuple[FileReport, list[str]]:
    """Gates 1-3 of `body` through the pipeline, with the steps the stability gate itself asks
    for: the file's report and the commands the sandbox ran."""
    root = tmp_path / "js"
    (root / "test").mkdir(parents=True)
    (root / "package.json").write_text('{"name": "js", "devDependencies": {"tape": "5"}}\n')
    (root / "test/state.js").write_text("exports.seen = [];\n")
    rel = "test/merge.test.js"
    (root / rel).write_text(body)
    settings = Settings(gates=["compile", "green", "stability"], cache=False, jobs=1)
    project = Project.load(root)
    verifier = Verifier(project, settings, use_cache=False)
    sandbox = verifier.sandbox = RecordingSandbox(settings.sandbox, protect=root)
    try:
        report = verifier.verify_file(api.candidate(project, rel, body))
    finally:
        verifier.close()
    assert report is not None
    return report, [Path(c[1] if len(c) > 1 else c[0]).name for c in sandbox.commands]


def test_gate_3_takes_the_plan_gate_1s_process_ran_ahead(tmp_path):
    """One plan process for gates 1-3. Before: gate 3's steps (marked `lean`, a pytest-only
    screen) never equalled the steps run ahead, and every tape, vitest and jest file started a
    second plan process for gate 3."""
    report, started = verified(tmp_path, FRESH)
    assert report.verdict is Verdict.ACCEPTED, report
    [gate3] = [g for g in report.gates if g.gate == "stability"]
    assert len(gate3.details["plan"]) == 5, gate3.details  # 3 reruns, random order, alone
    assert started == ["node_plan.mjs"], started


def test_a_failure_in_the_runs_made_ahead_is_never_thrown_away(tmp_path):
    """The file's third run fails (gate 1's run, then gate 3's second rerun): flaky, as with a
    process per run. Before: the plan run ahead saw that failure, gate 3 threw it away and ran its
    own plan (runs 4 to 9, all passing), and the file was accepted."""
    report, started = verified(tmp_path, FRESH + CASES["exit"])
    assert report.verdict is Verdict.FLAKY and report.rejected_at == "stability", report
    [gate3] = [g for g in report.gates if g.gate == "stability"]
    assert gate3.details["plan"] == ["rerun 1", "rerun 2"], gate3.details
    assert started == ["node_plan.mjs"], started
