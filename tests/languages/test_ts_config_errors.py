"""tsc checks no file once the project's own tsconfig has an option error (TS5xxx): cookie-es 3.1
(`"esModuleInterop": false` under TypeScript 6, TS5107) had every test file "rejected at compile:
collection did not finish: tsc exited with status 2", the test's fault for the project's config.
A deprecated option (TypeScript says which `ignoreDeprecations` silences it) is silenced for the
check, as the project's own runner never type-checks; a removed one makes the file `unvalidated`."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from assay import api
from assay.model import Verdict
from tests.conftest import REPO
from tests.languages.conftest import copy_example

GOOD = """import { expect, test } from "vitest";
import { total } from "../src/price";

test("adds", () => {
  expect(total(1, 2)).toBe(3);
});
"""
TYPO = GOOD.replace("total(1, 2)", 'total("1", 2)')


def _project(tmp_path: Path, options: dict, typescript: Path | None = None) -> Path:
    if not (REPO / "examples/ts/node_modules/vitest").is_dir():
        pytest.skip("vitest is not installed in examples/ts (`npm ci` there; .ci/toolchains)")
    root = copy_example("ts", tmp_path)
    (root / "node_modules").unlink()
    shutil.copytree(REPO / "examples/ts/node_modules", root / "node_modules", symlinks=True)
    if typescript is not None:
        shutil.rmtree(root / "node_modules/typescript")
        shutil.copytree(typescript, root / "node_modules/typescript", symlinks=True)
    config = json.loads((root / "tsconfig.json").read_text())
    config["compilerOptions"].update(options)
    (root / "tsconfig.json").write_text(json.dumps(config))
    return root


def _gate1(root: Path, text: str):
    (root / "test/new.test.ts").write_text(text)
    report = api.verify(
        [root / "test/new.test.ts"], root=root, use_cache=False, overrides={"gates": ["compile"]}
    )
    (entry,) = report.files
    return entry, entry.gates[0].feedback


def test_an_option_the_projects_typescript_removed_leaves_the_file_unvalidated(tmp_path):
    root = _project(tmp_path, {"target": "ES3"})  # TypeScript 5.5+: TS5108, nothing checked
    entry, feedback = _gate1(root, GOOD)
    assert entry.verdict is Verdict.UNVALIDATED, feedback
    assert "TS5108" in feedback and "target=ES3" in feedback
    assert "collection did not finish" not in feedback


pytestmark = pytest.mark.slow  # a copy of node_modules and tsc per test

TS6 = REPO / "tests/languages/fixtures/ts6/node_modules/typescript"


def test_a_deprecated_option_is_silenced_and_the_file_still_type_checked(tmp_path):
    if not TS6.is_dir():
        pytest.skip("TypeScript 6 is not installed (`npm ci` in tests/languages/fixtures/ts6)")
    root = _project(tmp_path, {"esModuleInterop": False}, TS6)  # TS5107 under TypeScript 6
    entry, feedback = _gate1(root, GOOD)
    assert entry.verdict is Verdict.ACCEPTED, feedback
    entry, feedback = _gate1(root, TYPO)
    assert entry.verdict is Verdict.REJECTED, feedback
    assert "TS2345" in feedback and "test/new.test.ts" in feedback
