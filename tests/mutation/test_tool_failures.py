"""When a JavaScript mutation tool cannot give verdicts the user reads why, in the tool's own words
and with what to do: scule's vitest 1.6.1 got "StrykerJS failed: exit 1" and five stack frames
(the cause line cut off) after a 90 s run; nanoid's "StrykerJS failed: timed out" said neither how
long nor which setting bounds it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from assay.languages.compiler_output import node_error_tail
from assay.mutation.tools import stryker
from assay.mutation.tools.scratch_run import ended
from assay.sandbox import RunResult

# StrykerJS 9.6.1's output on a vitest 1.6.1 project (paths shortened)
STRYKER_ON_VITEST_1 = """\x1b[91m10:34:37 (940) ERROR Stryker\x1b[39m Unexpected error occurred \
while running Stryker StrykerError: TypeError: this.ctx.provide is not a function
TypeError: this.ctx.provide is not a function
    at VitestTestRunner.init (file:///s/vitest-runner/dist/src/vitest-test-runner.js:55:18)
    at async ChildProcessTestRunnerWorker.init (file:///s/core/dist/src/test-runner/w.js:16:13)
    at async ChildProcessProxyWorker.handleCall (file:///s/core/dist/src/child-proxy/w.js:87:28)
    at ChildProcess.<anonymous> (file:///s/core/dist/src/child-proxy/child-process-proxy.js:123:33)
    at ChildProcess.emit (node:events:524:28)
    at emit (node:internal/child_process:950:14)
    at process.processTicksAndRejections (node:internal/process/task_queues:83:21) {
  innerError: undefined
}
node:internal/process/promises:391
    triggerUncaughtException(err, true /* fromPromise */);
    ^

StrykerError: TypeError: this.ctx.provide is not a function
TypeError: this.ctx.provide is not a function
    at VitestTestRunner.init (file:///s/vitest-runner/dist/src/vitest-test-runner.js:55:18)
    at process.processTicksAndRejections (node:internal/process/task_queues:83:21) {
  innerError: undefined
}

Node.js v20.20.2
"""


def test_a_node_tools_failure_keeps_its_cause_and_drops_the_frames():
    tail = node_error_tail(STRYKER_ON_VITEST_1)
    assert "TypeError: this.ctx.provide is not a function" in tail.splitlines()
    assert " at " not in tail and "Node.js v" not in tail and "innerError" not in tail
    assert len(tail.splitlines()) == len(set(tail.splitlines())) <= 6


def test_a_tool_that_timed_out_says_after_how_long_and_what_bounds_it():
    ran = RunResult(-9, "", "", 600.4, timed_out=True)
    assert ended(ran, 600.0) == (
        "timed out after 600 s (gate 4 gives the tool 600 s: the larger of 600 s and "
        "`sandbox.timeout_s`)"
    )
    assert ended(RunResult(1, "", "", 3.0), 600.0) == "exit 1"


def test_a_vitest_older_than_strykers_runner_supports_is_named_before_any_run(tmp_path: Path):
    plugin = stryker.home() / "node_modules" / stryker.RUNNERS["vitest"] / "package.json"
    if not plugin.is_file():
        pytest.skip(f"StrykerJS not installed: {stryker.install_command()}")
    wanted = json.loads(plugin.read_text())["peerDependencies"]["vitest"]
    project = tmp_path / "scule"
    (project / "node_modules/vitest").mkdir(parents=True)
    (project / "package.json").write_text('{"devDependencies": {"vitest": "^1.6.1"}}')
    installed = project / "node_modules/vitest/package.json"
    installed.write_text('{"name": "vitest", "version": "1.6.1"}')
    why = stryker.unsupported_runner(project, ".", "vitest")
    assert why == (
        f"Stryker's vitest runner (@stryker-mutator/vitest-runner {stryker.STRYKER_VERSION}) "
        f"needs vitest {wanted}; this project has vitest 1.6.1: gate 4 cannot run here "
        "(upgrade vitest to measure the file's mutation score)"
    )
    installed.write_text('{"name": "vitest", "version": "3.2.4"}')
    assert stryker.unsupported_runner(project, ".", "vitest") is None
