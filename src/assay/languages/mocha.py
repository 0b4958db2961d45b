"""mocha files: every run of one, gate 2's or a test's alone, goes through `mocha_plan.mjs` (gate
3's plan script; a plan of one run here), on mocha's own API with the project's config (.mocharc.*,
package.json "mocha") and its `spec` replaced by the candidate. Its results are jest's JSON
(`node_results`), its test ids `file::describe > it` as vitest's and jest's. mocha's `json` reporter
names a test by its titles joined by spaces, which cannot be split back into `describe > it`; the
API gives the titles.

Gate 1 is `node --check` (JavaScript) or the project's tsc (TypeScript), as for jest and vitest;
the config's `require` (ts-node/register, tsx) is loaded by the plan script as `mocha` loads it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

from assay.execution.runner import Order, Outcome, RunStep, TestRun
from assay.languages.plans import layout
from assay.languages.tooling import TEST_ID_SEP, under

if TYPE_CHECKING:
    from assay.execution.workspace import Workspace
    from assay.languages.js_plans import Script
    from assay.languages.node import NodeRunner

OLDEST = 8  # `handleRequires` returning root hook plugins, which mocha_plan.mjs takes
CONFIG_FAILED = "mocha could not load its config's require"  # as mocha_plan.mjs says it


def mocha_package(mocha_bin: str) -> Path | None:
    """The mocha package behind `node_modules/.bin/mocha` (`mocha/bin/mocha.js`), when it is
    mocha 8 or later (the API mocha_plan.mjs drives)."""
    found = Path(mocha_bin).resolve().parent.parent
    try:
        meta = json.loads((found / "package.json").read_text(encoding="utf-8"))
        major = int(str(meta.get("version", "0")).split(".")[0])
    except (OSError, ValueError):
        return None
    return found if meta.get("name") == "mocha" and major >= OLDEST else None


def unsupported(runner: NodeRunner, ws: Workspace, module: str) -> str | None:
    """Why this package's mocha files cannot run (an environment cause), None when they can."""
    exe = runner._bin(ws, module, "mocha")
    if exe is None:
        return f"mocha is not installed in {module}: run `npm ci` (or npm install) there"
    if mocha_package(exe) is None:
        return (
            f"the mocha in {module}/node_modules is older than mocha {OLDEST}, which assay does "
            "not drive: upgrade mocha"
        )
    if runner.conf.test_args:
        return "assay runs mocha through its API: `test_args` do not apply; remove them"
    return None


def config_failure(crash: str | None) -> str | None:
    """The environment's cause when the config's `require` (a setup file, ts-node) failed to
    load before any test file: every file of the package fails alike, none by its own fault."""
    if not crash or CONFIG_FAILED not in crash:
        return None
    said = crash[crash.index(CONFIG_FAILED) :].splitlines()[0]
    return f"{said}; fix the package's mocha setup (or run `npm ci`), then run again"


def run_once(
    runner: NodeRunner,
    ws: Workspace,
    script: Script | None,
    rel: str,
    module: str,
    only: list[str],
    order: Order,
    seed: int,
) -> TestRun:
    """One run of the file (only the test named `only[0]` when given), in file order or `order`
    with `seed`: a plan of one run, in its own process."""
    if script is None:
        return TestRun(crash=unsupported(runner, ws, module) or "mocha cannot run here")
    out_dir = runner._out_dir(ws, script)
    ids = [f"{rel}{TEST_ID_SEP}{only[0]}"] if only else None
    steps = [RunStep(isolate=True) if ids else RunStep(order, seed)]
    planned = layout(out_dir, script.suffix, steps, ids)
    argv = script.argv(out_dir, under(module, rel), planned, steps, ids, runner.timeout_s, rel)
    ran = runner.exec(ws, argv, cwd=module, timeout=runner.timeout_s + 30)
    run = TestRun(exit_status=ran.result.returncode, duration_s=ran.result.duration_s)
    run.tests = script.read(planned[0].out, rel, ran.roots, ids) or {}
    if run.tests:
        failed = (Outcome.FAILED, Outcome.ERROR)
        run.exit_status = int(any(t.outcome in failed for t in run.tests.values()))
    if ran.result.timed_out or ran.result.returncode == 124:
        run.timed_out = True
        run.crash = f"mocha timed out after {runner.timeout_s:g} s"
    elif not run.tests:
        run.crash = ran.why("mocha")
    return run
