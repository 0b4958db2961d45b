"""ts-jest's TypeScript (`lib/typescript.js`) from a V8 code cache in the jest plan
(`languages/typescript_cached.cjs`, `tsc_cache.py`): a cache is code V8 runs unchecked, so it is
made by gate 1's own tsc before any test of the workspace ran, kept by assay right after it,
handed read-only to the plan; one made for another source is rejected and costs nothing."""

from __future__ import annotations

import os
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
from tests.languages.test_tsc_cache import hostile

FIXTURE = Path(__file__).parent / "fixtures" / "tsjest"
HOOK = REPO / "src/assay/languages/typescript_cached.cjs"

# jest's globals: no import
HOSTILE = hostile("typescript", "", "multiplies: expect(total(3, 4)).toBe(12)")

# what the plan's hook makes of CACHE for the project's typescript.js: taken or not, and a
# transpile through the module it loaded
TAKEN = """const [, , hook, from, cache] = process.argv;
const { createRequire } = require("node:module");
const { realpathSync } = require("node:fs");
const module_ = realpathSync(createRequire(from).resolve("typescript"));
const state = require(hook).use(module_, cache);
const ts = require(module_);
const js = ts.transpileModule("const n: number = 4;", {}).outputText;
console.log(`${state.taken ? "taken" : "not taken"} ${/n = 4;/.test(js) && !/number/.test(js)}`);
"""


def installed() -> None:
    if not (FIXTURE / "node_modules/ts-jest").is_dir():
        pytest.skip(f"ts-jest not installed in the fixture: npm ci --prefix {FIXTURE}")


def _link(src: str, dst: str) -> None:
    try:
        os.link(src, dst)
    except OSError:  # another file system
        shutil.copy2(src, dst)


def project(tmp_path: Path, own: bool = False) -> Path:
    """The fixture with its node_modules linked (`own`: a copy of its own, files hard-linked: a
    TypeScript of the project's own, for the sandbox shows only the project and a linked
    node_modules), a hostile and a second hostile test beside its test."""
    installed()
    root = tmp_path / "tsjest"
    shutil.copytree(FIXTURE, root, ignore=shutil.ignore_patterns("node_modules"))
    if own:
        shutil.copytree(
            FIXTURE / "node_modules", root / "node_modules", symlinks=True, copy_function=_link
        )
    else:
        (root / "node_modules").symlink_to(FIXTURE / "node_modules")
    (root / "test/hostile.test.ts").write_text(HOSTILE)
    (root / "test/second.test.ts").write_text(HOSTILE.replace('"multiplies"', '"again"'))
    return root


def verify(
    root: Path, rels: list[str], between: Callable[[], None] = lambda: None
) -> list[Verdict]:
    """Gates 1-3 of `rels` one after another through one `Verifier` (its workspace reused)."""
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
    return {p.parent.name: p.read_bytes() for p in store.glob("assay/built/typescript/*/cache.bin")}


def taken(root: Path, cache: Path) -> str:
    out = subprocess.run(
        ["node", "-e", TAKEN, "-", str(HOOK), str(root / "package.json"), str(cache)],
        capture_output=True,
        text=True,
        check=True,
    )
    return out.stdout.strip()


def test_a_cache_of_typescript_js_is_taken_and_one_for_another_source_is_not(tmp_path):
    """The hook the jest plan runs: a cache `make` wrote is taken; one of another file (or none,
    or garbage) is rejected by V8 and the module loads and works as without it."""
    installed()
    made = tmp_path / "made.bin"
    module = (FIXTURE / "node_modules/typescript/lib/typescript.js").resolve()
    subprocess.run(
        ["node", "-e", f"require({str(HOOK)!r}).make({str(module)!r}, {str(made)!r})"],
        check=True,
        timeout=120,
    )
    assert made.stat().st_size > 100_000
    assert taken(FIXTURE, made) == "taken true"

    other = tmp_path / "other.bin"  # a cache of TypeScript's tsc, not of typescript.js
    tsc = module.parent / "_tsc.js"
    script = (
        "const vm = require('vm'), fs = require('fs'), M = require('module');"
        f"const s = new vm.Script(M.wrap(fs.readFileSync({str(tsc)!r}, 'utf8')));"
        f"fs.writeFileSync({str(other)!r}, s.createCachedData());"
    )
    subprocess.run(["node", "-e", script], check=True, timeout=120)
    (tmp_path / "garbage.bin").write_bytes(b"POISON" * 1000)
    for cache in (other, tmp_path / "garbage.bin", tmp_path / "absent.bin"):
        assert taken(FIXTURE, cache) == "not taken true", cache.name


@pytest.mark.slow  # tsc and jest on the fixture's copy, four files: 30-90 s under load
def test_gate_1_keeps_a_typescript_cache_no_candidate_wrote(tmp_path, monkeypatch):
    root = project(tmp_path)
    store = tmp_path / "xdg"
    monkeypatch.setenv("XDG_CACHE_HOME", str(store))

    # the first file's tsc makes the cache in a fresh workspace; its test then writes over the
    # workspace's cache files; the second file runs in the same workspace after that test
    assert verify(root, ["test/hostile.test.ts", "test/second.test.ts"]) == [Verdict.ACCEPTED] * 2
    made = kept(store)
    assert len(made) == 1, sorted(p.as_posix() for p in store.rglob("*"))
    ((key, cache),) = made.items()
    assert b"POISON" not in cache and len(cache) > 100_000
    assert taken(root, store / "assay/built/typescript" / key / "cache.bin") == "taken true"
    assert not list(store.rglob("POISON"))

    # a later verify is handed that cache (its first file writes over its own copy again), and
    # what is kept is byte for byte what the first tsc made, read-only
    assert verify(root, ["test/hostile.test.ts", "test/price.test.ts"]) == [Verdict.ACCEPTED] * 2
    assert kept(store) == made
    assert ((store / "assay/built/typescript" / key / "cache.bin").stat().st_mode & 0o222) == 0


@pytest.mark.slow  # tsc and jest on the fixture's copy, two files: 20-50 s under load
def test_no_typescript_cache_is_kept_from_a_workspace_where_a_test_ran(tmp_path, monkeypatch):
    root = project(tmp_path)
    store = tmp_path / "xdg"
    monkeypatch.setenv("XDG_CACHE_HOME", str(store))

    def forget() -> None:
        assert len(kept(store)) == 1  # made by the first file's tsc
        shutil.rmtree(store / "assay/built/typescript")

    files = ["test/hostile.test.ts", "test/second.test.ts"]
    assert verify(root, files, forget) == [Verdict.ACCEPTED] * 2
    assert kept(store) == {}


@pytest.mark.slow  # tsc and jest on the fixture's copy, twice: 20-50 s under load
def test_a_typescript_changed_in_place_is_not_handed_the_old_cache(tmp_path, monkeypatch):
    """V8 checks a cache against its source's length only: typescript.js rewritten with the same
    length must get a cache of its own (the key holds its size, mtime and inode)."""
    root = project(tmp_path, own=True)
    store = tmp_path / "xdg"
    monkeypatch.setenv("XDG_CACHE_HOME", str(store))
    assert verify(root, ["test/price.test.ts"]) == [Verdict.ACCEPTED]
    (first,) = kept(store)

    module = root / "node_modules/typescript/lib/typescript.js"
    source = module.read_bytes()
    changed = source.replace(b"Microsoft", b"microsoft", 1)
    assert changed != source and len(changed) == len(source)
    module.unlink()
    module.write_bytes(changed)
    assert verify(root, ["test/price.test.ts"]) == [Verdict.ACCEPTED]
    assert set(kept(store)) - {first} != set()  # a cache of its own, made from the new source
