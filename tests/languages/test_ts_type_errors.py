"""A .ts test rejected at gate 1 for a type error says why `vitest run` passes it: ufo's
join.test.ts (`joinURL(...(t.input as any[]))`, TS2556) runs green under vitest, which strips
types unchecked; assay's advice was only "check imports, types, API compatibility"."""

from __future__ import annotations

import pytest

from assay import api
from assay.languages.node_checks import UNCHECKED_BY_VITEST
from assay.model import Verdict
from tests.conftest import REPO
from tests.languages.conftest import copy_example

SPREAD = """import { expect, test } from "vitest";
import { total } from "../src/price";

const cases = [{ input: [1, 2], out: 3 }] as const;

test("adds", () => {
  for (const c of cases) {
    expect(total(...(c.input as any[]))).toBe(c.out);
  }
});
"""


@pytest.mark.slow  # tsc on the example's copy: 5-20 s under load
def test_a_type_error_vitest_would_not_see_is_the_tests_and_says_so(tmp_path):
    if not (REPO / "examples/ts/node_modules/vitest").is_dir():
        pytest.skip("vitest is not installed in examples/ts (`npm ci` there; .ci/toolchains)")
    root = copy_example("ts", tmp_path)
    source = (root / "src/price.ts").read_text()
    assert "export function total(" in source
    (root / "src/price.ts").write_text(
        source.replace("export function total(", "export function total(first: number, ")
    )
    (root / "test/spread.test.ts").write_text(SPREAD)
    report = api.verify([root / "test/spread.test.ts"], root=root, use_cache=False)
    (entry,) = report.files
    assert entry.verdict is Verdict.REJECTED and entry.rejected_at == "compile"
    feedback = entry.gates[0].feedback
    assert "test/spread.test.ts:8: TS2556" in feedback, feedback
    assert feedback.endswith(UNCHECKED_BY_VITEST), feedback


@pytest.mark.slow  # a sandboxed start of the missing tool: 3-10 s under load
def test_a_type_checker_the_sandbox_cannot_start_is_unvalidated_not_a_compile_error(tmp_path):
    """node_modules linked to a link outside the project (a shared install; examples/ts linked to
    another checkout's): the sandbox shows the first link's target only, the exec failed with
    status 127, and the file was rejected "COMPILE ERROR: collection did not finish: tsc exited
    with status 127"."""
    import json
    import shutil

    if shutil.which("node") is None:
        pytest.skip("node is not installed")
    store = tmp_path / "store/node_modules"
    (store / ".bin").mkdir(parents=True)
    for tool in ("tsc", "vitest"):
        (store / ".bin" / tool).write_text("#!/bin/sh\nexit 0\n")
        (store / ".bin" / tool).chmod(0o755)
    root = tmp_path / "pkg"
    (root / "test").mkdir(parents=True)
    # a link to a link: the sandbox binds the first link's target, which is itself a link
    (tmp_path / "shared").symlink_to(store)
    (root / "node_modules").symlink_to(tmp_path / "shared")
    (root / "package.json").write_text(
        json.dumps({"name": "pkg", "type": "module", "devDependencies": {"vitest": "^3"}})
    )
    (root / "test/add.test.ts").write_text(SPREAD)
    report = api.verify([root / "test/add.test.ts"], root=root, use_cache=False)
    (entry,) = report.files
    assert entry.verdict is Verdict.UNVALIDATED, entry.gates[0].feedback
    assert "tsc could not be started" in entry.gates[0].feedback


@pytest.mark.slow  # tsc and a vitest start on the example's copy: 10-30 s under load
def test_a_dependency_the_project_imports_but_has_not_installed_is_unvalidated(tmp_path):
    """pathe 2.0.3 with its dependencies half installed: src/_path.ts imports `zeptomatch`, vitest
    could not load the test ("Failed to load url zeptomatch ... in src/_path.ts"), and the file
    was rejected as a compile error."""
    if not (REPO / "examples/ts/node_modules/vitest").is_dir():
        pytest.skip("vitest is not installed in examples/ts (`npm ci` there; .ci/toolchains)")
    root = copy_example("ts", tmp_path)
    source = (root / "src/price.ts").read_text()
    (root / "src/price.ts").write_text('import "zeptomatch-not-installed";\n' + source)
    report = api.verify([root / "test/price.test.ts"], root=root, use_cache=False)
    (entry,) = report.files
    assert entry.verdict is Verdict.UNVALIDATED, entry.gates[0].feedback
    assert "the package 'zeptomatch-not-installed' (src/price.ts imports it) is not installed" in (
        entry.gates[0].feedback
    )
    # a test importing a package the project does not declare is the test's own mistake
    (root / "src/price.ts").write_text(source)
    (root / "test/other.test.ts").write_text(
        'import { test } from "vitest";\nimport "not-a-dependency";\n\ntest("x", () => {});\n'
    )
    report = api.verify([root / "test/other.test.ts"], root=root, use_cache=False)
    (entry,) = report.files
    assert entry.verdict is Verdict.REJECTED and entry.rejected_at == "compile", entry
