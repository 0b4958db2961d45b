"""mocha files are judged (`mocha.py`, `mocha_plan.mjs`): gate 1 `node --check`, gates 2 and 3 in
one node process on mocha's API with the project's own config (its `spec` replaced by the file),
test ids `file::describe > it`, gate 4 through Stryker's mocha runner. Before, every file of a
package that tests with mocha was `unvalidated` ("which assay does not run yet")."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from assay import api
from assay.config import Settings
from assay.execution.runner import Outcome
from assay.model import GateStatus, Verdict
from tests.languages.conftest import tool_missing
from tests.languages.test_jest_plan import gates_1_to_3

FIXTURE = Path(__file__).parent / "fixtures" / "mocha"


def project(tmp_path: Path, files: dict[str, str] | None = None) -> Path:
    """A copy of the mocha fixture (its node_modules linked) with `files` written over it."""
    if not (FIXTURE / "node_modules" / "mocha").is_dir():
        pytest.skip(f"mocha not installed in the fixture: npm ci --prefix {FIXTURE}")
    root = tmp_path / "mocha"
    shutil.copytree(FIXTURE, root, ignore=shutil.ignore_patterns("node_modules"))
    (root / "node_modules").symlink_to(FIXTURE / "node_modules")
    for rel, text in (files or {}).items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return root


def own_package(root: Path, name: str, index: str) -> None:
    """A package `name` in the project's node_modules beside its mocha: a copy of the fixture's
    (the sandbox shows the project's linked node_modules, not links inside it)."""
    modules = root / "node_modules"
    modules.unlink()
    shutil.copytree(FIXTURE / "node_modules", modules, symlinks=True)
    (modules / name).mkdir()
    (modules / name / "index.js").write_text(index)


def test_a_mocha_file_runs_gates_1_to_3_in_one_process_with_describe_it_ids(tmp_path):
    """Each run reloads the file and what it requires: `order.test.js`'s module-level list is
    empty again in every rerun (in one shared module registry the reruns would fail)."""
    root = project(tmp_path)
    settings = Settings(cache=False)
    settings.stability.random_order = False
    commands, runs = gates_1_to_3(root, "test/order.test.js", settings)
    assert commands == ["--check", "mocha_plan.mjs"], commands
    rel = "test/order.test.js"
    ids = [
        f"{rel}::total in order > records a price",
        f"{rel}::total in order > finds the recorded price",
    ]
    # gate 2's run and three reruns pass; alone, the second test misses what the first left
    assert [sorted(r.passed()) for r in runs[:4]] == [sorted(ids)] * 4, runs
    assert runs[4].tests[ids[1]].outcome is Outcome.FAILED, runs


MOCHARC = """{
  "ui": "tdd",
  "require": ["test/setup.js"],
  "timeout": 300,
  "spec": ["test/wrong.test.js"]
}
"""
SETUP = "globalThis.unit = 100;\n"
TDD = """const assert = require("node:assert/strict");
const { total } = require("../src/price");

suite("with the config", () => {
  test("uses the setup's global", () => {
    assert.equal(total(globalThis.unit, 2, 0), 200);
  });
  test("times out at the config's timeout", (done) => {
    setTimeout(done, 1000);
  });
});
"""


def test_the_projects_mocharc_is_honoured_but_its_spec_is_the_candidate(tmp_path):
    """ui, require and timeout from `.mocharc.json`; its `spec` (a failing file) is not run."""
    rel = "test/tdd.test.js"
    root = project(tmp_path, {".mocharc.json": MOCHARC, "test/setup.js": SETUP, rel: TDD})
    report = api.verify(
        [root / rel], root=root, use_cache=False, overrides={"gates": ["compile", "green"]}
    )
    [f] = report.files
    outcomes = {t.id: t.verdict for t in f.tests}
    assert outcomes == {
        f"{rel}::with the config > uses the setup's global": Verdict.ACCEPTED,
        f"{rel}::with the config > times out at the config's timeout": Verdict.REJECTED,
    }, [g.feedback for g in f.gates]
    green = next(g for g in f.gates if g.gate == "green")
    assert "300ms" in green.feedback and "wrong.test.js" not in green.feedback, green.feedback


def test_a_package_whose_mocha_is_not_installed_is_unvalidated(tmp_path):
    root = tmp_path / "js"
    (root / "test").mkdir(parents=True)
    (root / "package.json").write_text('{"name": "js", "devDependencies": {"mocha": "^11"}}\n')
    (root / "test/a.test.js").write_text(TDD)
    report = api.verify([root / "test/a.test.js"], root=root, use_cache=False)
    [f] = report.files
    assert f.verdict is Verdict.UNVALIDATED, [g.feedback for g in f.gates]
    assert "mocha is not installed in .: run `npm ci`" in f.gates[0].feedback, f.gates


ESM = """import assert from "node:assert/strict";
import { writeFileSync, existsSync, readFileSync } from "node:fs";

describe("esm", () => {
  it("counts its runs", () => {
    const n = existsSync("runs.n") ? Number(readFileSync("runs.n", "utf8")) + 1 : 1;
    writeFileSync("runs.n", String(n));
    assert.ok(n > 0);
  });
});
"""


def test_an_es_module_file_is_run_a_process_per_run(tmp_path):
    """node keeps an ES module for the process: a second run in it would not run the file again.
    The plan declines after gate 1's run, and each of gate 3's runs is a process of its own."""
    rel = "test/esm.test.mjs"
    root = project(tmp_path, {rel: ESM})
    settings = Settings(cache=False)
    settings.stability.reruns, settings.stability.random_order = 2, False
    settings.stability.isolation = False
    commands, runs = gates_1_to_3(root, rel, settings)
    assert commands == ["--check", "mocha_plan.mjs", "mocha_plan.mjs", "mocha_plan.mjs"], commands
    assert [list(r.passed()) for r in runs] == [[f"{rel}::esm > counts its runs"]] * 3, runs


@pytest.mark.slow
def test_the_fixture_files_get_the_verdicts_their_author_expects(tmp_path):
    """Slow (4 files through gates 1-5, gate 4 through StrykerJS's mocha runner: 15-20 s)."""
    if missing := tool_missing("javascript"):
        pytest.skip(missing)
    root = project(tmp_path)
    names = ("good", "order", "wrong", "weak")
    report = api.verify([root / f"test/{n}.test.js" for n in names], root=root, use_cache=False)
    verdicts = {Path(f.path).name.split(".")[0]: f for f in report.files}
    assert verdicts["good"].verdict is Verdict.ACCEPTED, verdicts["good"].gates
    assert verdicts["order"].verdict is Verdict.FLAKY, verdicts["order"].gates
    wrong = verdicts["wrong"]
    assert (wrong.verdict, wrong.rejected_at) == (Verdict.REJECTED, "green"), wrong.gates
    assert "900 !== 1000" in wrong.gates[-1].feedback
    weak = verdicts["weak"]
    assert (weak.verdict, weak.rejected_at) == (Verdict.REJECTED, "mutation"), weak.gates
    assert "src/price.js, line 7" in weak.gates[-1].feedback


def test_a_declared_package_not_installed_is_the_environments_a_missing_module_the_files(
    tmp_path,
):
    """mocha loads the file in its run: a load failure is gate 1's, and a dependency the
    project declares but has not installed makes the file `unvalidated`, not rejected."""
    needs_chai = 'const { expect } = require("chai");\ndescribe("a", () => {\n'
    needs_chai += '  it("b", () => expect(1).to.equal(1));\n});\n'
    nope = needs_chai.replace('"chai"', '"../src/nope"')
    root = project(tmp_path, {"test/chai.test.js": needs_chai, "test/nope.test.js": nope})
    pkg = (root / "package.json").read_text()
    (root / "package.json").write_text(
        pkg.replace('"devDependencies": {', '"devDependencies": {"chai": "^5", ')
    )
    report = api.verify(
        [root / "test/chai.test.js", root / "test/nope.test.js"],
        root=root,
        use_cache=False,
        overrides={"gates": ["compile", "green"]},
    )
    chai, nope_file = sorted(report.files, key=lambda f: f.path)
    assert chai.verdict is Verdict.UNVALIDATED, chai.gates
    assert "the package 'chai' is not installed" in chai.gates[0].feedback
    assert (nope_file.verdict, nope_file.rejected_at) == (Verdict.REJECTED, "compile")
    said = nope_file.gates[0].feedback
    assert "Cannot find module '../src/nope'" in said and "mocha.js" not in said, said


# six tests that each need the ones before: any other order fails one of them
IN_ORDER = """const assert = require("node:assert/strict");
const seen = [];
describe("steps", () => {
  for (let k = 1; k <= 6; k++)
    it(`step ${k}`, () => {
      seen.push(k);
      assert.deepEqual(seen, Array.from({ length: k }, (_, i) => i + 1));
    });
});
"""


def test_random_order_shuffles_the_tests_by_the_seed(tmp_path):
    """mocha has no random order of its own: the plan shuffles each suite by the step's seed."""
    rel = "test/steps.test.js"
    root = project(tmp_path, {rel: IN_ORDER})
    settings = Settings(cache=False)
    settings.stability.reruns, settings.stability.isolation = 1, False
    commands, runs = gates_1_to_3(root, rel, settings)
    assert commands == ["--check", "mocha_plan.mjs"], commands
    assert [len(r.passed()) for r in runs[:2]] == [6, 6], runs
    assert len(runs) == 3 and len(runs[2].passed()) < 6, runs


LEFT_OPEN = """const assert = require("node:assert/strict");
const { total } = require("../src/price");

describe("total", () => {
  it("adds", () => {
    setTimeout(() => {}, 1000);
    assert.equal(total(1, 2, 0), 2);
  });
});
"""


def test_a_run_that_leaves_a_timer_pending_is_run_a_process_per_run(tmp_path):
    """The `mocha` command waits for the timer; in one process it would outlive the run."""
    rel = "test/timer.test.js"
    root = project(tmp_path, {rel: LEFT_OPEN})
    settings = Settings(cache=False)
    settings.stability.reruns, settings.stability.random_order = 1, False
    settings.stability.isolation = False
    commands, runs = gates_1_to_3(root, rel, settings)
    assert commands == ["--check", "mocha_plan.mjs", "mocha_plan.mjs"], commands
    assert [list(r.passed()) for r in runs] == [[f"{rel}::total > adds"]] * 2, runs


@pytest.mark.slow
def test_gate_4_runs_the_projects_mocha_with_its_config_requires(tmp_path):
    """Slow (StrykerJS: 10-20 s). Stryker's mocha runner took assay's own install's mocha, which
    resolved the config's `require` from there: a package only the project has (ts-node/register
    in a TypeScript project) was not found and gate 4 left the file `unvalidated`."""
    if missing := tool_missing("javascript"):
        pytest.skip(missing)
    rel = "test/setup.test.js"
    body = TDD.replace("globalThis.unit", "globalThis.unitFromPackage").replace(
        "suite(", "describe("
    )
    body = body.replace("test(", "it(").split('  it("times out')[0] + "});\n"
    root = project(tmp_path, {rel: body, ".mocharc.json": '{"require": ["assay-setup"]}\n'})
    own_package(root, "assay-setup", "globalThis.unitFromPackage = 100;\n")
    report = api.verify(
        [root / rel],
        root=root,
        use_cache=False,
        overrides={"gates": ["compile", "green", "mutation"]},
    )
    [f] = report.files
    gate4 = next((g for g in f.gates if g.gate == "mutation"), f.gates[-1])
    assert gate4.gate == "mutation", f.gates
    assert gate4.status is not GateStatus.SKIP, gate4.feedback  # measured: passed or rejected
    assert f.verdict is not Verdict.UNVALIDATED and "assay-setup" not in gate4.feedback


def test_a_config_require_that_fails_to_load_leaves_the_file_unvalidated(tmp_path):
    """The package's setup (`.mocharc`'s require) throws before any test file loads: every file
    of the package would fail alike, by no fault of its own."""
    rel = "test/good.test.js"
    root = project(tmp_path, {".mocharc.json": '{"require": ["assay-setup"]}\n'})
    own_package(root, "assay-setup", "throw new Error('the setup needs a database');\n")
    report = api.verify(
        [root / rel], root=root, use_cache=False, overrides={"gates": ["compile", "green"]}
    )
    [f] = report.files
    assert f.verdict is Verdict.UNVALIDATED, f.gates
    said = f.gates[0].feedback
    assert "mocha could not load its config's require (assay-setup)" in said, said
    assert "the setup needs a database" in said, said


def test_the_runner_is_the_one_the_test_script_runs(tmp_path):
    """negotiator 1.1 has vitest for its benchmarks (`"bench": "vitest bench"`) and tests with
    mocha (`"test": "mocha --check-leaks test/"`): assay took vitest (first in its order) and
    rejected every file at gate 1, "collection did not finish: vitest exited with status 0"."""
    rel = "test/good.test.js"
    pkg = {
        "name": "negotiating",
        "scripts": {"bench": "vitest bench", "test": "mocha --reporter spec --check-leaks test/"},
        "devDependencies": {"mocha": "11.7.5", "vitest": "3.2.4"},
    }
    root = project(tmp_path, {"package.json": json.dumps(pkg)})
    (root / ".mocharc.json").write_text('{"spec": "test/**/*.test.js"}\n')
    report = api.verify(
        [root / rel], root=root, use_cache=False, overrides={"gates": ["compile", "green"]}
    )
    [f] = report.files
    assert f.verdict is Verdict.ACCEPTED, [g.feedback for g in f.gates]
    assert len(f.tests) == 3 and all(t.verdict is Verdict.ACCEPTED for t in f.tests), f.tests


@pytest.mark.parametrize(
    ("script", "runner"),
    [
        ("mocha --reporter spec --check-leaks test/", "mocha"),
        ("nyc --reporter=lcov mocha", "mocha"),
        ("cross-env NODE_ENV=test ./node_modules/.bin/_mocha", "mocha"),
        ("eslint . && jest --ci", "jest"),
        ("npx vitest run", "vitest"),
        ("npm run build && c8 node --test", "node"),
        ("node test/index.js", None),  # a script of its own
        ("ts-scripts test", None),  # a wrapper that names no runner: the dependencies say
        ("tape test/*.js", None),
    ],
)
def test_the_test_scripts_runner_is_read_through_wrappers(script, runner):
    from assay.languages.node_checks import script_runner

    assert script_runner({"scripts": {"test": script}}) == runner


TALLY = """"use strict";
const debug = () => {}; // the debug package's idiom, without the package
const logger = { info: () => {} };

function add(a, b) {
  debug("adding %d and %d", a, b);
  console.log("sum of", a, b);
  logger.info({ a, b });
  return a + b;
}

module.exports = { add };
"""
TALLY_TEST = """"use strict";
const assert = require("node:assert/strict");
const { add } = require("../src/tally");

describe("add", () => {
  it("adds", () => {
    assert.equal(add(2, 3), 5);
  });
});
"""


@pytest.mark.slow
def test_gate_4_leaves_logging_calls_unmutated(tmp_path):
    """Slow (StrykerJS: 15-30 s). Python's operators never mutate a logging call; Stryker's did,
    and router's survivors were led by `debug('dispatching %s %s', ...)` → `debug("", ...)`:
    messages no test reads. Here the logging calls' mutants survived: rejected at 50 %."""
    if missing := tool_missing("javascript"):
        pytest.skip(missing)
    rel = "test/tally.test.js"
    root = project(tmp_path, {"src/tally.js": TALLY, rel: TALLY_TEST})
    report = api.verify(
        [root / rel],
        root=root,
        use_cache=False,
        overrides={"gates": ["compile", "green", "mutation"]},
    )
    [f] = report.files
    gate4 = next(g for g in f.gates if g.gate == "mutation")
    assert gate4.status is GateStatus.PASS, gate4.feedback
    assert gate4.details["survived"] == 0 and gate4.details["killed"] >= 1, gate4.details


def test_a_file_with_no_test_is_rejected_as_such_not_as_a_compile_error(tmp_path):
    """A file of shared cases (path-to-regexp's src/cases.spec.ts) has no test: gate 1's
    advice was "Fix the compile errors: check imports, types", of a file that compiled."""
    rel = "test/cases.test.js"
    root = project(tmp_path, {rel: '"use strict";\nmodule.exports = { CASES: [[1, 2]] };\n'})
    report = api.verify([root / rel], root=root, use_cache=False, overrides={"gates": ["compile"]})
    [f] = report.files
    said = f.gates[0].feedback
    assert f.verdict is Verdict.REJECTED and "no tests collected" in said, said
    assert "compile errors" not in said and "declares no test" in said, said


@pytest.mark.slow
def test_a_stryker_run_that_finds_no_test_says_so(tmp_path):
    """Slow (StrykerJS's start: 10-20 s). A Stryker run whose dry run finds no test ends 0 with
    no report (`allowEmpty`; it logs "No tests were found" at info level): gate 4 said
    "StrykerJS failed: exit 0" (path-to-regexp's index.spec.ts, its cases file out of the copy).
    Here the file's tests hide from Stryker's instrumented code (`__stryker__`), as a file whose
    tests need a file the copy left out would hide them."""
    from assay.errors import RunFailed
    from assay.execution.workspace import Workspace
    from assay.mutation.tools import ToolRequest, stryker
    from assay.project import Project
    from assay.sandbox import Sandbox

    if missing := tool_missing("javascript"):
        pytest.skip(missing)
    rel = "test/hidden.test.js"
    body = (
        '"use strict";\nconst assert = require("node:assert/strict");\n'
        'const { total } = require("../src/price");\n\n'
        "if (!globalThis.__stryker__) {\n"
        '  it("multiplies", () => {\n    assert.equal(total(250, 3, 10), 750);\n  });\n}\n'
    )
    root = project(tmp_path, {rel: body})
    settings = Settings(cache=False)
    with Workspace(root) as ws:
        request = ToolRequest(
            root=ws.project,
            project=Project.load(root),
            settings=settings,
            sandbox=Sandbox(settings.sandbox, protect=root),
            tests=(rel,),
            targets=("src/price.js",),
            workspace=ws,
            passing=(f"{rel}::multiplies",),
            executed_only=True,
        )
        with pytest.raises(RunFailed) as caught:
            stryker.Stryker("javascript").run(request)
    said = str(caught.value)
    assert "found no test in test/hidden.test.js" in said and "exit 0" not in said, said


@pytest.mark.slow
def test_gate_4_runs_a_sample_of_the_mutants_in_scope_as_pythons_does(tmp_path):
    """Slow (StrykerJS: 15-30 s). Gate 4 ran every mutant in scope with StrykerJS (router's
    test/route.js: 492, past its 600 s); Python's counts `mutation.sample` of them, one per line
    first. The others are not run: listed as not sampled, and no test is judged by them."""
    if missing := tool_missing("javascript"):
        pytest.skip(missing)
    rel = "test/good.test.js"
    root = project(tmp_path)
    price = root / "src/price.js"
    # a function no test runs, with more mutants than the rest: the sample is drawn among the
    # mutants a test covers (Stryker's checkers see the uncovered ones too: router's sample of
    # 100 ran 63)
    unrun = "".join(f"  if (a === {n} || b > {n}) return a + b - {n};\n" for n in range(12))
    price.write_text(
        price.read_text().replace(
            "module.exports",
            f"function unrun(a, b) {{\n{unrun}  return a * b;\n}}\n\nmodule.exports",
        )
    )
    report = api.verify(
        [root / rel],
        root=root,
        use_cache=False,
        overrides={"gates": ["compile", "green", "mutation"], "mutation.sample": 4},
    )
    [f] = report.files
    gate4 = next(g for g in f.gates if g.gate == "mutation")
    details = gate4.details
    assert details.get("not_sampled", 0) > 0, details
    # the observer sets apart a survivor no test receives anything different from: it ran too
    ran = sum(details.get(k, 0) for k in ("killed", "survived", "timeout", "unexercised"))
    assert ran == 4, details  # the sample is drawn among the mutants a test covers
    assert all(t.verdict is not Verdict.LOW_VALUE for t in f.tests), f.tests
