"""A test that checks its own source path (pkg/errors matches `runtime.Caller` files against
`.+/github.com/pkg/errors/stack_test.go`) passes in assay's scratch copy as it does in the user's
tree: the copy's path ends as the user's own, so a path the sandbox chose never rejects a test."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from assay import api
from assay.execution.workspace import Workspace

WHERE_TEST = """package where

import (
	"runtime"
	"strings"
	"testing"
)

func TestWhere(t *testing.T) {
	_, file, _, _ := runtime.Caller(0)
	if !strings.HasSuffix(file, "/github.com/acme/where/where_test.go") {
		t.Fatalf("this file is at %s", file)
	}
}
"""


def test_the_scratch_copy_ends_with_the_users_own_path(tmp_path: Path) -> None:
    root = tmp_path / "go/src/github.com/acme/where"
    root.mkdir(parents=True)
    (root / "a.txt").write_text("a\n")
    with Workspace(root) as ws:
        assert str(ws.project).endswith(str(root))
        assert ws.base in ws.project.parents
        assert (ws.project / "a.txt").read_text() == "a\n"
        ws.apply({"a.txt": "b\n"})
        ws.reset()
        assert (ws.project / "a.txt").read_text() == "a\n"


@pytest.mark.slow
def test_a_go_test_matching_its_own_gopath_shaped_path_is_accepted(tmp_path: Path) -> None:
    """Slow: a Go build of a small package (3 s, 12 s on a loaded machine)."""
    if shutil.which("go") is None:
        pytest.skip("go is not installed")
    root = tmp_path / "go/src/github.com/acme/where"
    root.mkdir(parents=True)
    (root / "go.mod").write_text("module github.com/acme/where\n\ngo 1.21\n")
    (root / "where.go").write_text("package where\n\nfunc Here() int { return 1 }\n")
    (root / "where_test.go").write_text(WHERE_TEST)
    report = api.verify(
        [root / "where_test.go"],
        root=root,
        use_cache=False,
        overrides={"stability.reruns": 1, "gates": ["compile", "green", "stability"]},
    )
    f = report.files[0]
    assert f.verdict.value == "accepted", [g.feedback for g in f.gates]
