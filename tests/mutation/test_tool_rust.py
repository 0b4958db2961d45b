"""The Rust mutation tool (`REGISTRY["rust"]`, cargo-mutants) on the bundled example, called
directly as gate 4 will: one real run in the sandbox, `--in-place` in the scratch copy only."""

from __future__ import annotations

import shutil

import pytest

from assay._assay_sandbox.mutation.protocol import Status
from assay.config import Settings
from assay.execution.workspace import Workspace
from assay.languages import LANGUAGES
from assay.mutation.tools import REGISTRY, ToolRequest
from assay.mutation.tools.cargo_mutants import executable, selection
from assay.project import Project
from assay.sandbox import Sandbox
from tests.conftest import REPO, tree_digest


@pytest.mark.slow
def test_cargo_mutants_statuses_are_read_back_and_the_tree_is_untouched(tmp_path):
    """Slow lane: a whole cargo build and cargo-mutants run, an end-to-end toolchain run as the
    lane is for (where cargo-mutants is installed); the selection below stays in the fast lane."""
    if shutil.which("cargo") is None or executable() is None:
        pytest.skip("cargo-mutants is not installed (cargo install --locked cargo-mutants)")
    root = tmp_path / "rust"
    # typo.rs does not compile, wrong.rs fails: siblings the candidate's run must not touch
    shutil.copytree(REPO / "examples" / "rust", root, ignore=shutil.ignore_patterns("target"))
    before = tree_digest(root)
    settings = Settings(cache=False)
    with Workspace(root) as ws:
        request = ToolRequest(
            ws.project,
            Project.load(root),
            settings,
            Sandbox(settings.sandbox, protect=root),
            ("tests/price.rs",),
            ("src/lib.rs",),
            timeout_s=600,
        )
        runner = LANGUAGES["rust"].runner(request.sandbox, request.project, settings)
        assert runner.compile(ws, ["tests/price.rs"]).ok  # gates 1-3's build, then gate 4
        assert REGISTRY["rust"].problem(request) is None
        result = REGISTRY["rust"].run(request)
        scratch_after = (ws.project / "src/lib.rs").read_text()
        # the next candidate in this workspace: the source back with its old mtime must not meet
        # a mutant's build (cargo would find it fresh)
        ws.reset()
        assert runner.compile(ws, ["tests/price.rs"]).ok
        assert len(runner.run(ws, ["tests/price.rs"]).passed()) == 3
    assert tree_digest(root) == before
    assert scratch_after == (root / "src/lib.rs").read_text()  # --in-place put it back
    statuses = {(m.line, m.original, m.replacement): r.status for m, r in result.scored}
    assert statuses, result.mutants
    assert set(statuses.values()) <= {
        Status.KILLED,
        Status.SURVIVED,
        Status.TIMEOUT,
        Status.COMPILE_ERROR,
    }
    assert statuses[(7, "<", "==")] is Status.KILLED
    assert statuses[(7, "<", "<=")] is Status.SURVIVED  # no test tries a price of 0
    assert statuses[(10, "+=", "-=")] is Status.KILLED
    assert result.counts["Killed"] == 16 and result.counts["Survived"] == 1
    for m, _ in result.scored:
        assert result.sources[m.file][m.start : m.end] == m.original


def test_the_candidates_tests_alone_are_selected():
    assert selection(".", "tests/price.rs") == (["--test", "price"], [])
    assert selection("crates/p", "crates/p/src/money/mod.rs") == (["--lib"], ["money"])
    assert selection(".", "src/lib.rs") == (["--lib"], [])
