"""The Go mutation tool (`REGISTRY["go"]`) on the bundled example, called directly as gate 4 will:
real `go test -overlay` runs in the sandbox, the user's tree untouched."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from assay._assay_sandbox.mutation.protocol import Status
from assay.config import Settings
from assay.execution.workspace import Workspace
from assay.mutation.tools import REGISTRY, ToolRequest
from assay.mutation.tools.go import _status, covered_lines
from assay.project import Project
from assay.sandbox import Sandbox
from tests.conftest import REPO, tree_digest

WEAK = """package price

import "testing"

func TestDiscountRuns(t *testing.T) {
	Discount(95, 30)
}
"""


@pytest.fixture(scope="module")
def go_example(tmp_path_factory) -> Path:
    if shutil.which("go") is None:
        pytest.skip("go is not installed")
    root = tmp_path_factory.mktemp("go-tool") / "go"
    shutil.copytree(REPO / "examples" / "go", root)
    for broken in ("typo", "wrong", "flaky"):  # gate 1-3 material: the package must build
        (root / "price" / f"{broken}_test.go").unlink()
    (root / "price" / "weak_test.go").write_text(WEAK)
    return root


def _run(root: Path, test: str, lines: dict[str, frozenset[int]] | None = None):
    settings = Settings(cache=False)
    with Workspace(root) as ws:
        request = ToolRequest(
            ws.project,
            Project.load(root),
            settings,
            Sandbox(settings.sandbox, protect=root),
            (test,),
            ("price/price.go",),
            lines=lines,
            timeout_s=120,
        )
        assert REGISTRY["go"].problem(request) is None
        return REGISTRY["go"].run(request)


@pytest.mark.slow
def test_good_tests_kill_all_but_the_boundaries_and_the_tree_is_untouched(go_example):
    """Slow lane: real `go test` runs of the example, a whole toolchain end to end; reading
    go's output is the fast test below."""
    before = tree_digest(go_example)
    result = _run(go_example, "price/price_test.go")
    assert tree_digest(go_example) == before
    statuses = {(m.line, m.original, m.replacement): r.status for m, r in result.scored}
    assert statuses[(10, "<", "<=")] is Status.SURVIVED  # Total(0) is never tried
    assert statuses[(13, "+=", "-=")] is Status.KILLED
    assert statuses[(23, "*", "/")] is Status.KILLED
    assert result.counts["Killed"] == 7 and result.counts["Survived"] == 3
    killed = dict(result.scored)
    assert any(
        r.killed_by == ["price/price_test.go::TestDiscountRoundsDown"] for r in killed.values()
    )
    survivor = result.survivors()[0][0]
    assert survivor.before.strip() != survivor.after.strip()


@pytest.mark.slow
def test_a_test_without_assertions_kills_nothing_and_uncovered_lines_are_not_run(go_example):
    """Slow lane: real `go test` runs of the example, a whole toolchain end to end; reading
    go's output is the fast test below."""
    result = _run(go_example, "price/weak_test.go", lines={"price/price.go": frozenset({10, 23})})
    by_line = {}
    for m, r in result.scored:
        by_line.setdefault(m.line, set()).add(r.status)
    assert by_line == {10: {Status.NO_COVERAGE}, 23: {Status.SURVIVED}}
    assert result.score == 0.0


def test_statuses_and_coverage_are_read_from_go_output():
    build_failed = '{"Action":"build-fail","ImportPath":"x"}\n'
    assert _status(build_failed, 1, False, 0.1).status is Status.COMPILE_ERROR
    failed = '{"Action":"fail","Test":"TestA"}\n{"Action":"fail"}\n'
    assert _status(failed, 1, False, 0.1).killed_by == ["TestA"]
    assert _status("", 0, False, 0.1).status is Status.SURVIVED
    assert _status("", -9, True, 0.1).status is Status.TIMEOUT
    profile = "mode: set\nexample.com/m/p/a.go:3.2,5.3 2 1\nexample.com/m/p/a.go:7.2,7.9 1 0\n"
    assert covered_lines(profile, "example.com/m", "sub") == {"sub/p/a.go": {3, 4, 5}}
