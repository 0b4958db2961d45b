"""Gate 4's observer for mocha files (`stryker_observe.py`, `stryker_observer.cjs`,
`stryker_membrane.cjs`): a survivor that changes nothing a test receives from the project is
`Unexercised`, not counted, as in Python. Before, StrykerJS's survivors all counted: a test of one
path through a dispatcher was charged for every option it passes through (router's test/route.js
rejected on index.js for mounting and `use` prefixes)."""

from __future__ import annotations

import json
import shutil
import subprocess

import pytest

from assay import api
from assay.model import GateStatus, Verdict
from tests.languages.conftest import tool_missing
from tests.languages.test_mocha import project

ROUTE = """\
"use strict";

// hands `path` to `handler`, lower-cased: a `prefix` option strips a mount point, a trailing
// slash goes unless `strict`
function dispatch(path, handler, options) {
  const opts = options || {};
  let rest = path;
  if (opts.prefix && rest.startsWith(opts.prefix)) {
    rest = rest.slice(opts.prefix.length) || "/";
  }
  if (opts.strict !== true && rest.length > 1 && rest.endsWith("/")) {
    rest = rest.slice(0, -1);
  }
  return handler(rest.toLowerCase());
}

function shout(text) {
  return text.toUpperCase() + "!";
}

module.exports = { dispatch, shout };
"""

# passes through the prefix and trailing-slash code with a path that never makes it matter
DISPATCH = """\
const assert = require("node:assert");
const { dispatch } = require("../src/route");

describe("dispatch", () => {
  it("hands the handler the path lower-cased", () => {
    let seen;
    const out = dispatch("/Foo", (p) => {
      seen = p;
      return p.length;
    });
    assert.strictEqual(seen, "/foo");
    assert.strictEqual(out, 4);
  });
});
"""

# receives what `shout` returns and checks only its type: its survivors change what it receives
SHOUT = """\
const assert = require("node:assert");
const { shout } = require("../src/route");

describe("shout", () => {
  it("gives a text", () => {
    assert.strictEqual(typeof shout("hi"), "string");
  });
});
"""


@pytest.mark.slow
def test_a_survivor_no_test_receives_is_unexercised_one_it_receives_still_counts(tmp_path):
    """Slow (two StrykerJS runs: 20-40 s)."""
    if missing := tool_missing("javascript"):
        pytest.skip(missing)
    root = project(
        tmp_path,
        {"src/route.js": ROUTE, "test/dispatch.test.js": DISPATCH, "test/shout.test.js": SHOUT},
    )
    for rel in ("test/good.test.js", "test/order.test.js", "test/weak.test.js"):
        (root / rel).unlink()
    (root / "test/wrong.test.js").unlink()
    report = api.verify(
        [root / "test/dispatch.test.js", root / "test/shout.test.js"],
        root=root,
        use_cache=False,
        overrides={"gates": ["compile", "green", "mutation"]},
    )
    by_name = {f.path.rsplit("/", 1)[-1]: f for f in report.files}
    dispatch, shout = by_name["dispatch.test.js"], by_name["shout.test.js"]
    gate = next(g for g in dispatch.gates if g.gate == "mutation")
    assert dispatch.verdict is Verdict.ACCEPTED, gate.feedback
    unexercised = {(m["line"], m["mutated"]) for m in gate.details["unexercised_mutants"]}
    # `if (false)` on the prefix and the trailing-slash tests: "/Foo" never makes them matter
    assert {line for line, _ in unexercised} >= {6, 8, 11}, unexercised
    assert gate.details["survived"] == 0, gate.details
    gate = next(g for g in shout.gates if g.gate == "mutation")
    assert gate.status is GateStatus.REJECT and shout.verdict is Verdict.REJECTED, gate.feedback
    survivors = {m["mutated"] for m in gate.details["survivors"]}
    # the returned text changes: no assertion of the file reads it, but the test receives it
    assert 'return text.toUpperCase() + "";' in survivors, survivors
    assert gate.details["unexercised"] == 0, gate.details


NODE_TEST = """\
const assert = require("node:assert");
const { test } = require("node:test");
const { dispatch, shout } = require("../src/route");

test("hands the handler the path lower-cased", () => {
  let seen;
  const out = dispatch("/Foo", (p) => {
    seen = p;
    return p.length;
  });
  assert.strictEqual(seen, "/foo");
  assert.strictEqual(out, 4);
});

test("shouts a text", () => {
  assert.strictEqual(typeof shout("hi"), "string");
});
"""


@pytest.mark.slow
def test_node_test_files_are_observed_as_one_test(tmp_path):
    """Slow (StrykerJS's command runner, a node process per mutant, then one per observed run:
    20-40 s). The file is one test: `dispatch`'s pass-through survivors are not counted, `shout`'s
    (a returned text the file receives and does not check) still are."""
    if missing := tool_missing("javascript"):
        pytest.skip(missing)
    root = tmp_path / "nodetest"
    (root / "src").mkdir(parents=True)
    (root / "test").mkdir()
    (root / "package.json").write_text(
        '{"name": "fx", "private": true, "scripts": {"test": "node --test"}}\n'
    )
    (root / "src/route.js").write_text(ROUTE)
    (root / "test/route.test.js").write_text(NODE_TEST)
    report = api.verify(
        [root / "test/route.test.js"],
        root=root,
        use_cache=False,
        overrides={"gates": ["compile", "green", "mutation"]},
    )
    [f] = report.files
    gate = next(g for g in f.gates if g.gate == "mutation")
    unexercised = {m["line"] for m in gate.details["unexercised_mutants"]}
    assert unexercised >= {6, 8, 11}, gate.details["unexercised_mutants"]
    assert {m["line"] for m in gate.details["survivors"]} == {18}, gate.details["survivors"]


# Stryker's instrumented code in miniature: each mutant behind the run-time switch its runners set
SWITCHED = """\
"use strict";
const on = (id) => (globalThis.__stryker__ || {}).activeMutant === id;

class Clock {
  constructor() {
    this.started = Date.now(); // differs from run to run: left out, not charged
    this.ticks = 0;
  }
  tick(by) {
    this.ticks += on("1") && by === 0 ? 0 : by; // `by === 0` never comes: nothing received changes
    return on("2") ? this.ticks + 1 : this.ticks;
  }
  each(fn) {
    fn(on("3") ? "TICK" : "tick", this.ticks);
  }
  stop() {
    throw new Error(on("4") ? "" : "stopped");
  }
  run(options) {
    options.done(on("5") ? 1 : 0);
    return options;
  }
}

module.exports = { Clock };
"""

CLOCK_TEST = """\
const assert = require("node:assert");
const { Clock } = require("../src/clock");

describe("clock", () => {
  it("ticks", () => {
    const c = new Clock();
    c.tick(2);
    c.each(() => {});
    assert.throws(() => c.stop());
    const options = { done() {} };
    assert.strictEqual(c.run(options), options); // the test's own object comes back as it was
  });
});
"""


def test_the_observer_charges_what_a_test_receives_and_nothing_else(tmp_path):
    """The observer on the switch Stryker's instrumented code reads (`__stryker__.activeMutant`),
    in one mocha process: a mutant no call's result, state, callback or error shows is unexercised;
    one that changes a returned value, a callback's argument (given as it is or in an options
    object) or an error's message is not. A
    value that differs between the two runs of the original (a date) is left out, not charged."""
    if shutil.which("node") is None:
        pytest.skip("node is not installed")
    root = project(tmp_path, {"src/clock.js": SWITCHED, "test/clock.test.js": CLOCK_TEST})
    from assay.mutation.tools import stryker_mocha, stryker_observe

    own = root / ".assay-stryker"
    config: dict = {}
    mocha = stryker_mocha.project_mocha(root, root)
    stryker_observe.configure(
        config, own, "mocha", mocha, ["test/clock.test.js"], root, ("src/clock.js",), 0
    )
    test = "clock ticks"
    plan = json.loads((own / "observe.json").read_text())
    plan["survivors"] = [{"id": i, "tests": [test]} for i in ("1", "2", "3", "4", "5")]
    (own / "plan.json").write_text(json.dumps(plan))
    ran = subprocess.run(
        ["node", str(own / "observer.cjs"), str(own / "plan.json")],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert ran.returncode == 0, ran.stderr
    verdicts = json.loads((own / stryker_observe.OUT).read_text())["verdicts"]
    assert {i: v["unexercised"] for i, v in verdicts.items()} == {
        "1": True,
        "2": False,
        "3": False,
        "4": False,
        "5": False,
    }, verdicts
    assert "returned: n:2 -> n:3" in verdicts["2"]["differs"], verdicts["2"]
    assert "callback" in verdicts["3"]["differs"] and "TICK" in verdicts["3"]["differs"]
    assert "stopped" in verdicts["4"]["differs"], verdicts["4"]
    assert "callback:done" in verdicts["5"]["differs"], verdicts["5"]  # through an options bag
