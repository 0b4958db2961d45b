"""JavaScript with `node --test` (no npm install needed): syntax proven by `node --check`, execution
by the run; JUnit XML from Node's reporter."""

from __future__ import annotations

from assay import api
from assay.languages.node_results import results

GOOD = """\
import { test } from "node:test";
import assert from "node:assert/strict";
import { total } from "../src/price.mjs";

test("adds prices", () => {
  assert.equal(total(100, 250), 350);
});
"""
BROKEN = "import { test } from 'node:test';\ntest('x', () => {\n  const = 1;\n});\n"
FAILING = GOOD.replace("350", "351")


def test_node_test_project(tmp_path):
    root = tmp_path / "js"
    (root / "src").mkdir(parents=True)
    (root / "test").mkdir()
    (root / "package.json").write_text('{"name": "js", "type": "module"}\n')
    (root / "src/price.mjs").write_text(
        "export function total(...c) { return c.reduce((a, b) => a + b, 0); }\n"
    )
    (root / "test/good.test.mjs").write_text(GOOD)
    (root / "test/broken.test.mjs").write_text(BROKEN)
    (root / "test/failing.test.mjs").write_text(FAILING)
    # gate 4 (StrykerJS) is measured on the examples (`test_verdicts.py`), not here
    gates = ["compile", "green", "stability", "smells"]
    report = api.verify(
        [root / "test"],
        root=root,
        use_cache=False,
        overrides={"stability.reruns": 1, "gates": gates},
    )
    files = {f.path: f for f in report.files}
    good = files["test/good.test.mjs"]
    assert good.verdict.value == "accepted", [g.feedback for g in good.gates]
    assert [t.id for t in good.tests] == ["test/good.test.mjs::adds prices"]
    broken = files["test/broken.test.mjs"]
    assert broken.rejected_at == "compile"
    assert "\ntest/broken.test.mjs:3: SyntaxError: Unexpected token" in broken.gates[0].feedback
    failing = files["test/failing.test.mjs"]
    assert failing.rejected_at == "green" and "351" in failing.gates[-1].feedback


MOCHA = """\
const assert = require("node:assert");
const { total } = require("../src/price.js");

describe("total", () => {
  it("adds prices", () => {
    assert.strictEqual(total(100, 250), 350);
  });
});
"""


def test_a_file_of_a_runner_assay_does_not_drive_is_unvalidated_not_rejected(tmp_path):
    """A jasmine project's `describe`/`it` are the runner's globals: under `node --test` the file
    failed at green, the environment's fault passed off as the test's. (mocha, the runner this
    test named first, is driven now: tests/languages/test_mocha.py.)"""
    root = tmp_path / "js"
    (root / "src").mkdir(parents=True)
    (root / "test").mkdir()
    (root / "package.json").write_text(
        '{"name": "js", "scripts": {"test": "jasmine"}, "devDependencies": {"jasmine": "^5.0.0"}}\n'
    )
    (root / "src/price.js").write_text("exports.total = (...c) => c.reduce((a, b) => a + b, 0);\n")
    (root / "test/price.test.js").write_text(MOCHA)
    report = api.verify(
        [root / "test/price.test.js"],
        root=root,
        use_cache=False,
        overrides={"gates": ["compile", "green"]},
    )
    [f] = report.files
    assert f.verdict.value == "unvalidated", [g.feedback for g in f.gates]
    assert "tests with jasmine, which assay does not run yet" in f.gates[0].feedback


# passes on its first run (it leaves a mark); its second run deletes the code under test
DAMAGES_LATER = """\
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, unlinkSync, writeFileSync } from "node:fs";
import { total } from "../src/price.mjs";

test("adds prices", () => {
  if (existsSync("mark.txt")) unlinkSync("src/price.mjs");
  else writeFileSync("mark.txt", "1");
  assert.equal(total(100, 250), 350);
});
"""


def test_what_gate_3s_runs_write_is_not_gate_2s_damage(tmp_path):
    """Gate 3's runs are made ahead by gate 1's process (`js_plans`): the project file the second
    run deletes makes the test flaky at gate 3, as when that run came after gate 2, not a damage
    of gate 2's run."""
    root = tmp_path / "js"
    (root / "src").mkdir(parents=True)
    (root / "test").mkdir()
    (root / "package.json").write_text('{"name": "js", "type": "module"}\n')
    (root / "src/price.mjs").write_text(
        "export function total(...c) { return c.reduce((a, b) => a + b, 0); }\n"
    )
    (root / "test/mark.test.mjs").write_text(DAMAGES_LATER)
    report = api.verify(
        [root / "test/mark.test.mjs"],
        root=root,
        use_cache=False,
        overrides={"gates": ["compile", "green", "stability"]},
    )
    [f] = report.files
    assert f.verdict.value == "flaky" and f.rejected_at == "stability", [
        g.feedback for g in f.gates
    ]
    assert (root / "src/price.mjs").is_file() and not (root / "mark.txt").exists()


# what node 20's JUnit reporter writes of `assert.strictEqual(quote("a"), "'a' & <b>")`: the
# message attribute escapes `"` twice (`&amp;quot;`), the element's text once
NODE_JUNIT = """\
<?xml version="1.0" encoding="utf-8"?>
<testsuites>
\t<testcase name="quotes a word" time="0.169298" classname="test" failure="x">
\t\t<failure type="testCodeFailure" message="Expected values to be strictly equal:+ actual - \
expected+ '&amp;quot;a&amp;quot;'- &amp;quot;'a' &amp; &lt;b>&amp;quot;">
Error [ERR_TEST_FAILURE]: Expected values to be strictly equal:
+ actual - expected

+ '"a"'
- "'a' &amp; &lt;b>"
    at AsyncResource.runInAsyncScope (node:async_hooks:206:9) {
\t\t</failure>
\t</testcase>
</testsuites>
"""


def test_a_node_failure_message_shows_quotes_not_entities(tmp_path):
    """`&quot;` showed up in `node --test` failures (issue 27 §4): the message is read as the
    assertion wrote it."""
    out = tmp_path / "junit.xml"
    out.write_text(NODE_JUNIT)
    [result] = results(out, "test/q.test.js", "node", ()).values()
    head = result.message.splitlines()[0]
    assert head == (
        "Expected values to be strictly equal:+ actual - expected+ '\"a\"'- \"'a' & <b>\""
    )
    assert "&quot;" not in result.message and "+ '\"a\"'" in result.message
