"""A StrykerJS survivor is shown as the code the mutant has. Stryker's `replacement` is Babel's
printing of the mutated node alone: `a && (b || c)` with `&&` swapped came back `a || b || c`,
and the feedback showed parentheses the mutant never lost. Mutants here come from Stryker's own
instrumenter (the version assay installs) on a small source."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from assay.mutation.tools import stryker
from assay.mutation.tools.js_text import exact_replacement

# Stryker's instrumenter on one file, its API locations (0-based lines) as the MTE JSON's (1-based)
INSTRUMENT = """
import { pathToFileURL } from 'node:url';
const home = process.argv[2];
const entry = `${home}/node_modules/@stryker-mutator/instrumenter/dist/src/index.js`;
const { Instrumenter } = await import(pathToFileURL(entry));
const quiet = { debug() {}, info() {}, warn() {}, error() {}, isDebugEnabled: () => false };
const { mutants } = await new Instrumenter(quiet).instrument(
  [{ name: 'src.js', mutate: true, content: process.argv[3] }],
  { plugins: null, excludedMutations: [], ignorers: [] });
const at = (p) => ({ line: p.line + 1, column: p.column + 1 });
const where = (m) => ({ start: at(m.location.start), end: at(m.location.end) });
console.log(JSON.stringify(mutants.map((m) => ({ ...m, status: 'Survived', location: where(m) }))));
"""
SOURCE = """export function ok(a, b, c) {
  return a && (b || c);
}
export function named(s) {
  return s.trim() === 'x' && (!(s.length > 3) || s.startsWith("y"));
}
"""


@pytest.fixture(scope="module")
def mutants(tmp_path_factory) -> list[dict]:
    home = stryker.home()
    if shutil.which("node") is None or not (home / "node_modules/@stryker-mutator").is_dir():
        pytest.skip(f"StrykerJS not installed: {stryker.install_command()}")
    script = tmp_path_factory.mktemp("instrument") / "instrument.mjs"
    script.write_text(INSTRUMENT)
    out = subprocess.run(
        ["node", str(script), str(home), SOURCE], capture_output=True, text=True, check=True
    )
    return json.loads(out.stdout)


def test_a_survivor_keeps_the_parentheses_the_source_has(mutants):
    data = {"files": {"src.js": {"source": SOURCE, "mutants": mutants}}, "testFiles": {}}
    read, _, _ = stryker.read_report(data, ".", Path("/nonexistent"), ("t.test.js::t",))
    swapped = [m for m in read if m.operator == "LogicalOperator" and m.line == 2]
    # Stryker's own text for the outer `&&` swapped drops the parentheses: `a || b || c`
    assert {m["replacement"] for m in mutants if m["mutatorName"] == "LogicalOperator"} >= {
        "a || b || c"
    }
    assert sorted(m.after for m in swapped) == ["return a && (b && c);", "return a || (b || c);"]
    for m in read:  # each mutant's text is the file's, changed where the mutant changes it
        mutated = SOURCE[: m.start] + m.replacement + SOURCE[m.end :]
        assert mutated != SOURCE and m.original == SOURCE[m.start : m.end]
    line5 = {m.after for m in read if m.line == 5 and m.operator == "LogicalOperator"}
    assert "return s.trim() === 'x' || (!(s.length > 3) || s.startsWith(\"y\"));" in line5, line5


@pytest.mark.parametrize(
    ("original", "printed", "exact"),
    [
        ("a && (b || c)", "a || b || c", "a || (b || c)"),
        ("(a || b) && c", "a || b || c", "(a || b) || c"),
        ("x === 'a'", 'x !== "a"', "x !== 'a'"),  # the source's quotes
        ("s.trim()", "s", "s"),  # a call's parentheses go with it
        ("(a, b) => a + b", "() => undefined", "() => undefined"),  # an arrow's parameters
        ("!(a && b)", "a && b", "(a && b)"),
        ("foo(a)", "foo(!a)", "foo(!a)"),
        ("a && b // why", "a || b", "a || b"),  # a comment: Babel's text as it is
        # the whole condition replaced: its grouping parentheses go with it (router's index.js
        # read `if (!(this instanceof Router)) {` → `if (false)) {`)
        ("!(this instanceof Router)", "false", "false"),
        ("(a || b) && !(c)", "true", "true"),
    ],
)
def test_the_printed_code_in_the_sources_own_text(original, printed, exact):
    assert exact_replacement(original, printed) == exact
