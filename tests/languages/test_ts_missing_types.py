"""What tsc says of the installed packages is the environment's, not the test's: radash 12.1.1 with
its dependencies installed without its lockfile. `@types/chai` (declared, not installed) made
`import { assert } from 'chai'` a TS7016 "failure" to fix; an @types/node newer than its
TypeScript 4.9 did not parse, tsc type-checked nothing, and the file passed gate 1 unchecked."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from assay import api
from assay.model import Verdict
from tests.conftest import REPO
from tests.languages.conftest import copy_example

TEST = """import { expect, test } from "vitest";
import { ok } from "untyped";
import { total } from "../src/price";

test("adds", () => {
  expect(ok(total([1, 2]))).toBe(3);
});
"""


def _project(tmp_path: Path, declared: dict[str, str], types: str | None = None) -> Path:
    """The TypeScript example with a package `untyped` installed (JavaScript, no types: chai 4),
    `declared` in its package.json; `types`, when given, is its index.d.ts."""
    if not (REPO / "examples/ts/node_modules/vitest").is_dir():
        pytest.skip("vitest is not installed in examples/ts (`npm ci` there; .ci/toolchains)")
    root = copy_example("ts", tmp_path)
    (root / "node_modules").unlink()
    shutil.copytree(REPO / "examples/ts/node_modules", root / "node_modules", symlinks=True)
    package = root / "node_modules/untyped"
    package.mkdir()
    meta = {"name": "untyped", "version": "1.0.0", "type": "module", "main": "index.js"}
    (package / "package.json").write_text(json.dumps(meta))
    (package / "index.js").write_text("export function ok(x) { return x; }\n")
    if types is not None:
        (package / "index.d.ts").write_text(types)
    pkg = json.loads((root / "package.json").read_text())
    pkg["devDependencies"].update(declared)
    (root / "package.json").write_text(json.dumps(pkg))
    (root / "test/untyped.test.ts").write_text(TEST)
    return root


def _verify(root: Path):
    report = api.verify(
        [root / "test/untyped.test.ts"],
        root=root,
        use_cache=False,
        overrides={"gates": ["compile"]},
    )
    (entry,) = report.files
    return entry, entry.gates[0].feedback


@pytest.mark.slow  # tsc and a vitest start on the example's copy: 10-30 s under load
def test_a_declared_types_package_not_installed_is_unvalidated_naming_it(tmp_path):
    root = _project(tmp_path, {"untyped": "1.0.0", "@types/untyped": "1.0.0"})
    entry, feedback = _verify(root)
    assert entry.verdict is Verdict.UNVALIDATED, feedback
    assert "the package '@types/untyped' (test/untyped.test.ts imports 'untyped'" in feedback
    # the project does not declare types for it: importing it under `strict` is the test's error
    root = _project(tmp_path / "b", {"untyped": "1.0.0"})
    entry, feedback = _verify(root)
    assert entry.verdict is Verdict.REJECTED and entry.rejected_at == "compile", feedback
    assert "test/untyped.test.ts:2: TS7016" in feedback, feedback


@pytest.mark.slow  # tsc and a vitest start on the example's copy: 10-30 s under load
def test_a_declaration_file_tsc_cannot_parse_leaves_the_test_unchecked_and_unvalidated(tmp_path):
    broken = "export declare function ok<const T,>(x: T): T extends infer U ? : never;\n"
    root = _project(tmp_path, {"untyped": "1.0.0"}, types=broken)
    entry, feedback = _verify(root)
    assert entry.verdict is Verdict.UNVALIDATED, feedback
    assert "tsc stopped at syntax errors in node_modules/untyped/index.d.ts (TS1" in feedback
    assert "before it type-checked test/untyped.test.ts" in feedback
    assert "(5.8." in feedback  # the project's TypeScript, named


def test_a_jest_suite_failure_is_read_without_its_colour_codes(tmp_path):
    """ts-jest's diagnostics reach jest's JSON coloured: radash's feedback read
    `\\x1b[96msrc/tests/string.test.ts\\x1b[0m:\\x1b[93m1\\x1b[0m ...`."""
    from assay.languages.node_results import results

    message = (
        "\x1b[1m\x1b[31m  \x1b[1m● \x1b[22m\x1b[1mTest suite failed to run\x1b[39m\x1b[22m\n\n"
        "    \x1b[96msrc/tests/string.test.ts\x1b[0m:\x1b[93m1\x1b[0m:\x1b[93m24\x1b[0m - "
        "\x1b[91merror\x1b[0m\x1b[90m TS7016: \x1b[0mCould not find a declaration file for "
        "module 'chai'.\n"
    )
    out = tmp_path / "jest.json"
    out.write_text(json.dumps({"testResults": [{"assertionResults": [], "message": message}]}))
    (found,) = results(out, "src/tests/string.test.ts", "jest", ()).values()
    assert "\x1b" not in found.message
    assert "src/tests/string.test.ts:1:24 - error TS7016: Could not find" in found.message


@pytest.mark.slow  # tsc and a vitest start on the example's copy: 10-30 s under load
def test_the_projects_own_package_imported_by_name_is_not_called_not_installed(tmp_path):
    """ohash's src/hash.ts imports `ohash/crypto`: its own package, which its package.json
    exports from dist/ (a build). The file was "unvalidated: the package 'ohash' ... is not
    installed: run `npm ci`", which cannot help."""
    if not (REPO / "examples/ts/node_modules/vitest").is_dir():
        pytest.skip("vitest is not installed in examples/ts (`npm ci` there; .ci/toolchains)")
    root = copy_example("ts", tmp_path)
    pkg = json.loads((root / "package.json").read_text())
    pkg["exports"] = {".": "./dist/index.js", "./extra": "./dist/extra.js"}
    (root / "package.json").write_text(json.dumps(pkg))
    source = (root / "src/price.ts").read_text()
    (root / "src/price.ts").write_text(f'import "{pkg["name"]}/extra";\n' + source)
    entry, feedback = _verify_file(root, "test/price.test.ts")
    assert entry.verdict is Verdict.UNVALIDATED, feedback
    assert f"'{pkg['name']}' is this project's own package (src/price.ts imports it)" in feedback
    assert "npm ci" not in feedback


def _verify_file(root: Path, rel: str):
    (entry,) = api.verify([root / rel], root=root, use_cache=False).files
    return entry, entry.gates[0].feedback
