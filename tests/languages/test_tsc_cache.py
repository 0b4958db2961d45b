"""Gate 1's tsc with a V8 code cache of TypeScript's compiler (`languages/tsc_cache.py`): a cache
is code V8 runs unchecked, so no candidate may write one another verify loads. Made by gate 1's
own tsc before any test of the workspace ran, kept by assay right after it, read-only after."""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from assay.config import Settings
from assay.model import Candidate, Verdict
from assay.pipeline import Verifier
from assay.project import Project
from tests.conftest import REPO
from tests.languages.conftest import copy_example


def hostile(cache: str, header: str, test: str) -> str:
    """A test file that writes over every `<cache>-code-cache.{in,out}` its workspace holds, and
    over assay's store `built/<cache>` wherever a test could reach it, then passes (`test`: its
    name and expectation): a hostile test, accepted at gates 1-3."""
    name, expectation = test.split(": ", 1)
    return f"""// @ts-nocheck: node's types are not installed here
{header}import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import {{ total }} from "../src/price";

function poison(file: string): number {{
  try {{
    fs.rmSync(file, {{ force: true }});
    fs.writeFileSync(file, "POISON");
    return 1;
  }} catch {{
    return 0;
  }}
}}

test("{name}", () => {{
  let written = 0;
  for (let dir = process.cwd(); dir !== path.dirname(dir); dir = path.dirname(dir)) {{
    for (const name of ["{cache}-code-cache.in", "{cache}-code-cache.out"]) {{
      written += poison(path.join(dir, "cache", name));
    }}
  }}
  for (const home of [os.homedir(), process.env.XDG_CACHE_HOME || "/nonexistent"]) {{
    written += poison(path.join(home, ".cache/assay/built/{cache}/POISON"));
  }}
  console.log(`poisoned ${{written}}`);
  {expectation};
}});
"""


VITEST = 'import { expect, test } from "vitest";\n'
HOSTILE = hostile("tsc", VITEST, "adds: expect(total(1, 2)).toBe(3)")

ACCEPTED = """const fs = require("fs"), vm = require("vm"), Module = require("module");
const [, , src, cache] = process.argv;
const cachedData = fs.readFileSync(cache);
const s = new vm.Script(Module.wrap(fs.readFileSync(src, "utf8")), { cachedData });
console.log(s.cachedDataRejected ? "rejected" : "accepted");
"""


def project(tmp_path: Path) -> Path:
    if not (REPO / "examples/ts/node_modules/typescript").is_dir():
        pytest.skip("TypeScript is not installed in examples/ts (`npm ci` there; .ci/toolchains)")
    root = copy_example("ts", tmp_path)
    assert "export function total(" in (root / "src/price.ts").read_text()
    (root / "test/hostile.test.ts").write_text(HOSTILE)
    (root / "test/second.test.ts").write_text(HOSTILE.replace('"adds"', '"adds again"'))
    return root


def verify(
    root: Path, rels: list[str], between: Callable[[], None] = lambda: None
) -> list[Verdict]:
    """Gates 1-3 of `rels` one after another through one `Verifier` (its workspace reused),
    `between` called between two files."""
    settings = Settings(cache=False, gates=["compile", "green", "stability"], jobs=1)
    verifier = Verifier(Project.load(root), settings, use_cache=False)
    verdicts = []
    try:
        for rel in rels:
            source = (root / rel).read_text()
            report = verifier.verify_file(Candidate(root / rel, rel, source, "typescript"))
            assert report is not None
            verdicts.append(report.verdict)
            if len(verdicts) < len(rels):
                between()
    finally:
        verifier.close()
    return verdicts


def kept(store: Path) -> dict[str, bytes]:
    return {p.parent.name: p.read_bytes() for p in store.glob("assay/built/tsc/*/cache.bin")}


def accepted(root: Path, cache: bytes, tmp_path: Path) -> str:
    """What V8 says of `cache` for the project's TypeScript compiler."""
    lib = (root / "node_modules/typescript/lib").resolve()
    source = lib / "_tsc.js" if (lib / "_tsc.js").is_file() else lib / "tsc.js"
    (tmp_path / "cache.bin").write_bytes(cache)
    (tmp_path / "accepted.cjs").write_text(ACCEPTED)
    out = subprocess.run(
        ["node", str(tmp_path / "accepted.cjs"), str(source), str(tmp_path / "cache.bin")],
        capture_output=True,
        text=True,
        check=True,
    )
    return out.stdout.strip()


@pytest.mark.slow  # tsc and vitest on the example's copy, three times: 20-60 s under load
def test_no_candidate_writes_a_tsc_cache_another_verify_loads(tmp_path, monkeypatch):
    root = project(tmp_path)
    store = tmp_path / "xdg"
    monkeypatch.setenv("XDG_CACHE_HOME", str(store))

    # two hostile files in one verify: the first's tsc makes the cache in a fresh workspace, its
    # test then writes over the workspace's cache files; the second file's tsc runs in the same
    # workspace after that test, so it is handed a fresh copy and keeps nothing
    assert verify(root, ["test/hostile.test.ts", "test/second.test.ts"]) == [Verdict.ACCEPTED] * 2
    made = kept(store)
    assert len(made) == 1, sorted(p.as_posix() for p in store.rglob("*"))
    (cache,) = made.values()
    assert b"POISON" not in cache and len(cache) > 100_000
    assert accepted(root, cache, tmp_path) == "accepted"
    assert not list(store.rglob("POISON"))

    # a later verify loads that cache (its first file writes over its own copy again), and what
    # is kept is byte for byte what the first tsc made
    assert verify(root, ["test/hostile.test.ts", "test/price.test.ts"]) == [Verdict.ACCEPTED] * 2
    assert kept(store) == made
    (entry,) = (store / "assay/built/tsc").iterdir()
    assert ((entry / "cache.bin").stat().st_mode & 0o222) == 0  # read-only, even to assay


@pytest.mark.slow  # tsc and vitest on the example's copy, twice: 15-40 s under load
def test_no_tsc_cache_is_kept_from_a_workspace_where_a_test_ran(tmp_path, monkeypatch):
    """The store emptied after the first file: the second file's tsc runs where the first file's
    hostile test ran, so it is not asked for a cache (and one written there is not taken)."""
    root = project(tmp_path)
    store = tmp_path / "xdg"
    monkeypatch.setenv("XDG_CACHE_HOME", str(store))

    def forget() -> None:
        assert len(kept(store)) == 1  # made by the first file's tsc
        shutil.rmtree(store / "assay/built/tsc")

    files = ["test/hostile.test.ts", "test/second.test.ts"]
    assert verify(root, files, forget) == [Verdict.ACCEPTED] * 2
    assert kept(store) == {}
