"""A Rust candidate's test binary kept across workspaces (`languages/rust_binaries.py`): an
unchanged file compiles nothing the second time, as a native `cargo test` finds it fresh; an edited
one is always rebuilt, and one whose binary names the workspace it was built in is never reused."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from assay.config import Settings
from assay.execution.runner import Outcome
from assay.execution.workspace import Workspace
from assay.languages import LANGUAGES
from assay.mutation.tools.base import ToolRequest
from assay.mutation.tools.cargo_mutants import mutants_target
from assay.project import Project
from tests.conftest import REPO
from tests.languages.conftest import RecordingSandbox

REL = "tests/price.rs"
# reads a file by the path cargo gave at build time: right only in the workspace it was built in
WHERE = (
    "#[test]\nfn reads_its_manifest() {\n"
    '    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/Cargo.toml");\n'
    '    assert!(std::fs::read_to_string(path).unwrap().contains("price"));\n}\n'
)


@pytest.mark.slow
def test_an_unchanged_rust_file_compiles_nothing_and_an_edited_one_is_rebuilt(
    tmp_path, monkeypatch
):
    """Slow: the crate's warm build and four builds of a small test crate (5-20 s wall)."""
    if shutil.which("cargo") is None:
        pytest.skip("cargo is not installed")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))  # assay's cache, this test's
    root = tmp_path / "rust"
    shutil.copytree(REPO / "examples/rust", root, ignore=shutil.ignore_patterns("target"))
    for other in ("typo", "wrong", "flaky", "weak"):
        (root / "tests" / f"{other}.rs").unlink()
    settings = Settings(cache=False)
    sandbox = RecordingSandbox(settings.sandbox, protect=root)
    runner = LANGUAGES["rust"].runner(sandbox, Project.load(root), settings)

    def verify(overlays: dict[str, str] | None = None, rel: str = REL) -> tuple[list[str], dict]:
        """Gates 1-2 of `rel` in a new workspace with `overlays` written over it: the programs
        that entered the sandbox, and each test's outcome."""
        sandbox.commands = []
        with Workspace(root) as ws:
            ws.apply(overlays or {})
            built = runner.compile(ws, [rel])
            assert built.ok, built
            ran = runner.run(ws, [rel], built.collected)
        outcomes = {k: r.outcome for k, r in ran.tests.items()}
        return [Path(c[0]).name for c in sandbox.commands], outcomes

    first, passed = verify()
    assert "cargo" in first and set(passed.values()) == {Outcome.PASSED}
    again, same = verify()
    assert "cargo" not in again, again  # was a `cargo test --no-run` in every workspace
    assert same == passed
    with Workspace(root) as ws:
        assert runner.compile(ws, [REL]).ok and not (ws.cache_dir / "cargo-target").exists()
        request = ToolRequest(
            ws.project, runner.project, settings, sandbox, (REL,), ("src/lib.rs",), workspace=ws
        )
        # gate 4 still starts from the crate's warm build, though gates 1-3 built nothing here
        deps = mutants_target(request, ".", ws.cache_dir) / "debug/deps"
        assert list(deps.glob("libprice-*.rlib"))

    edited = (root / REL).read_text().replace("Ok(350)", "Ok(351)")
    rebuilt, now = verify({REL: edited})
    assert "cargo" in rebuilt  # never a stale binary: the edit fails where the original passed
    assert now[f"{REL}::total_adds_prices"] is Outcome.FAILED
    # the edited file verified again compiles nothing: the first version's binary stayed the kept
    # one and an edited file was rebuilt at every run
    assert "cargo" not in verify({REL: edited})[0]
    # the library written over (a panel member, a mutant): the same test file is linked anew
    member = (root / "src/lib.rs").read_text().replace("Ok(sum)", "Ok(sum + 1)")
    relinked, under_member = verify({"src/lib.rs": member})
    assert "cargo" in relinked
    assert under_member[f"{REL}::total_adds_prices"] is Outcome.FAILED

    here = "tests/where_built.rs"
    assert "cargo" in verify({here: WHERE}, here)[0]
    built_again, outcome = verify({here: WHERE}, here)
    assert "cargo" in built_again  # its binary names the workspace it was built in: not reused
    assert outcome == {f"{here}::reads_its_manifest": Outcome.PASSED}


@pytest.mark.slow
def test_gate_2_of_a_rust_file_takes_gate_1s_list_of_its_tests(tmp_path, monkeypatch):
    """Slow: the crate's warm build (5-20 s wall). Gate 2's run of the whole file right after
    gate 1 listed its tests lists them no second time: each `--list` is a sandbox entry of its
    own, 30-40 ms of CPU in a 0.5 s verify of an unchanged file."""
    if shutil.which("cargo") is None:
        pytest.skip("cargo is not installed")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    root = tmp_path / "rust"
    shutil.copytree(REPO / "examples/rust", root, ignore=shutil.ignore_patterns("target"))
    settings = Settings(cache=False)
    sandbox = RecordingSandbox(settings.sandbox, protect=root)
    runner = LANGUAGES["rust"].runner(sandbox, Project.load(root), settings)
    with Workspace(root) as ws:
        built = runner.compile(ws, [REL])
        assert built.ok, built
        ran = runner.run(ws, [REL])  # gate 2: the whole file, no ids
    lists = [c for c in sandbox.commands if "--list" in c]
    assert len(lists) == 1, sandbox.commands
    assert sorted(ran.tests) == sorted(built.collected)
    assert {r.outcome for r in ran.tests.values()} == {Outcome.PASSED}
