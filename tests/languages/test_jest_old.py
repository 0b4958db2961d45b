"""A jest before 29.2 has no `--randomize`: radash's jest 28 exited "Unrecognized option
\"randomize\"" at gate 3's random-order run, and every file was `unvalidated` ("a run that did not
happen is not a pass. Run again"), which no rerun could change."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from assay import api
from assay.model import Verdict

# jest 28's command line as gate 2 and 3 use it: `--json --outputFile=OUT --runTestsByPath FILE`;
# like jest 28, it refuses `--randomize`
JEST_28 = """#!/usr/bin/env node
const fs = require("fs");
const args = process.argv.slice(2);
if (args.includes("--randomize")) {
  console.error('\\u25cf Unrecognized CLI Parameter:\\n\\n  Unrecognized option "randomize".');
  process.exit(1);
}
const out = args.find((a) => a.startsWith("--outputFile=")).split("=")[1];
const result = {ancestorTitles: [], title: "adds", status: "passed", duration: 1,
                failureMessages: []};
fs.writeFileSync(out, JSON.stringify({testResults: [{assertionResults: [result], message: ""}]}));
"""


@pytest.mark.slow  # gates 1-3 through node: seven sandboxed node starts (10-30 s under load)
def test_a_jest_without_randomize_reruns_in_file_order(tmp_path: Path):
    if shutil.which("node") is None:
        pytest.skip("node is not installed")
    root = tmp_path / "pkg"
    jest = root / "node_modules/jest"
    (jest / "bin").mkdir(parents=True)
    (jest / "package.json").write_text(json.dumps({"name": "jest", "version": "28.1.3"}))
    (jest / "bin/jest.js").write_text(JEST_28)
    (jest / "bin/jest.js").chmod(0o755)
    (root / "node_modules/.bin").mkdir()
    (root / "node_modules/.bin/jest").symlink_to("../jest/bin/jest.js")
    (root / "package.json").write_text(
        json.dumps({"name": "pkg", "devDependencies": {"jest": "^28.1.3"}})
    )
    (root / "test").mkdir()
    (root / "test/a.test.js").write_text('test("adds", () => {\n  expect(1 + 1).toBe(2);\n});\n')
    report = api.verify(
        [root / "test/a.test.js"],
        root=root,
        use_cache=False,
        overrides={"gates": ["compile", "green", "stability"]},
    )
    (entry,) = report.files
    assert entry.verdict is Verdict.ACCEPTED, [g.feedback for g in entry.gates]
