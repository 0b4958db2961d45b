"""A TypeScript file jest cannot parse while tsc accepts it: the project's jest configuration is
not where jest looks (match-sorter runs its tests through `kcd-scripts test`, which hands jest a
config with a TypeScript transform); the file is `unvalidated`, named, never `rejected`."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from assay import api

HERE = Path(__file__).parent
JEST = HERE / "fixtures" / "jest"
TYPESCRIPT = HERE.parent.parent / "examples" / "ts" / "node_modules" / "typescript"

TYPED_TEST = """
import { describe, expect, test } from "@jest/globals";

import { total } from "../src/price";

describe("total", () => {
  test("adds prices", () => {
    const sum: number = total([100, 250]);
    expect(sum).toBe(350);
  });
});
"""


@pytest.mark.slow
def test_a_typescript_file_jest_cannot_parse_is_the_setups_gap_not_the_tests(tmp_path):
    """Slow (about 10-20 s): tsc and jest on one file, gates 1-2."""
    if not (JEST / "node_modules" / "jest").is_dir() or not TYPESCRIPT.is_dir():
        pytest.skip("jest or typescript not installed in the fixtures (npm ci, .ci/toolchains)")
    project = tmp_path / "price"
    shutil.copytree(JEST, project, symlinks=True)
    shutil.copytree(TYPESCRIPT, project / "node_modules" / "typescript", symlinks=True)
    os.symlink("../typescript/bin/tsc", project / "node_modules" / ".bin" / "tsc")
    pkg = json.loads((project / "package.json").read_text())
    pkg["scripts"]["test"] = "kcd-scripts test"
    (project / "package.json").write_text(json.dumps(pkg))
    (project / "tsconfig.json").write_text(
        json.dumps({"compilerOptions": {"strict": False, "allowJs": True, "esModuleInterop": True}})
    )
    (project / "test" / "typed.test.ts").write_text(TYPED_TEST)
    report = api.verify(
        [project / "test" / "typed.test.ts"],
        root=project,
        use_cache=False,
        overrides={"gates": ["compile", "green"]},
    )
    [f] = report.files
    assert f.verdict.value == "unvalidated", f.gates[0].feedback
    said = f.gates[0].feedback
    assert "jest cannot parse test/typed.test.ts" in said and "`kcd-scripts test`" in said, said
