"""A compiler that runs out of time is the machine's, not the file's: tiny-invariant's four test
files were each `rejected` "COMPILE ERROR: collection did not finish: tsc timed out after 60 s" (and
cached) while eight sessions loaded two cores (tsc: 9 s of CPU in 90 s of wall clock). No code of
the test had run; the file is `unvalidated`, naming the load, and never cached."""

from __future__ import annotations

import json
import shutil

import pytest

from assay import api
from assay.model import Verdict
from assay.pipeline import cacheable

GOOD = (
    'import { test, expect } from "vitest";\n\n'
    'test("adds", () => {\n  expect(1 + 1).toBe(2);\n});\n'
)


@pytest.mark.slow  # the sandbox's 2 s timeout, plus its start: 9-13 s at load 30
def test_a_type_check_past_the_timeout_is_unvalidated_not_a_compile_error(tmp_path):
    if shutil.which("node") is None:
        pytest.skip("node is not installed")
    root = tmp_path / "pkg"
    (root / "test").mkdir(parents=True)
    (root / "package.json").write_text(
        json.dumps({"name": "pkg", "type": "module", "devDependencies": {"vitest": "^3"}})
    )
    (root / "tsconfig.json").write_text('{"compilerOptions": {"strict": true}}\n')
    (root / "test/add.test.ts").write_text(GOOD)
    # the type check as a slow machine runs it: far past the sandbox's wall timeout
    (root / "assay.toml").write_text(
        '[typescript]\ncompile_command = ["node", "-e", "setTimeout(() => {}, 30000)"]\n'
    )
    report = api.verify(
        [root / "test/add.test.ts"],
        root=root,
        use_cache=False,
        overrides={"gates": ["compile"], "sandbox.timeout_s": 2},
    )
    f = report.files[0]
    gate = f.gates[0]
    assert f.verdict is Verdict.UNVALIDATED, gate.feedback
    assert gate.feedback.startswith("UNVALIDATED: Gate 1 — THE COMPILER DID NOT FINISH IN TIME")
    assert "test/add.test.ts: tsc did not finish in " in gate.feedback
    assert "no code of the test ran yet" in gate.feedback
    assert "timeout_s (now 2 s)" in gate.feedback
    assert not cacheable(f)
    assert report.summary()["environment"] == []  # nothing to install: no "install it there"
