"""A Go package's test binary kept across workspaces (`languages/go_binaries.py`): an unchanged
candidate is neither vetted nor built again; an edited one, or one whose package's source was
written over, always is; a reused binary's output names this workspace; a module that looks up
its own source path never gets a kept binary."""

from __future__ import annotations

import shutil

import pytest

from assay.config import Settings
from assay.execution.runner import Outcome
from assay.execution.workspace import Workspace
from assay.languages import LANGUAGES
from assay.project import Project
from assay.sandbox.process import WORKSPACE_PREFIX
from tests.conftest import REPO
from tests.languages.conftest import RecordingSandbox

REL = "price/price_test.go"
PANICS = (
    'package price\n\nimport "testing"\n\n'
    "func TestDiscountOutOfRange(t *testing.T) {\n\tif Discount(95, 130) < 0 {\n"
    '\t\tt.Fatal("negative")\n\t}\n}\n'
)
# finds a file next to its own source, by the path the build gave it
BESIDE = (
    'package price\n\nimport (\n\t"os"\n\t"path/filepath"\n\t"runtime"\n\t"testing"\n)\n\n'
    "func TestReadsItsNeighbour(t *testing.T) {\n\t_, here, _, _ := runtime.Caller(0)\n"
    '\tif _, err := os.Stat(filepath.Join(filepath.Dir(here), "price.go")); err != nil {\n'
    "\t\tt.Fatal(err)\n\t}\n}\n"
)


@pytest.mark.slow
def test_an_unchanged_go_file_is_not_built_again_and_an_edited_one_is(tmp_path, monkeypatch):
    """Slow: five vet-and-link builds of a small package (5-20 s wall)."""
    if shutil.which("go") is None:
        pytest.skip("go is not installed")
    root = tmp_path / "go"
    shutil.copytree(REPO / "examples/go", root)
    for other in ("typo", "wrong", "flaky", "weak"):
        (root / "price" / f"{other}_test.go").unlink()
    settings = Settings(cache=False)
    sandbox = RecordingSandbox(settings.sandbox, protect=root)
    runner = LANGUAGES["go"].runner(sandbox, Project.load(root), settings)

    def verify(overlays: dict[str, str] | None = None, rel: str = REL) -> tuple[list[str], dict]:
        """Gates 1-2 of `rel` in a new workspace with `overlays` written over it: the commands
        that entered the sandbox (their first two words), and each test's result."""
        sandbox.commands = []
        with Workspace(root) as ws:
            ws.apply(overlays or {})
            built = runner.compile(ws, [rel])
            assert built.ok, built
            ran = runner.run(ws, [rel], built.collected)
            # no workspace's path, this one's or the one a reused binary was built in
            assert WORKSPACE_PREFIX not in str(ran), ran
        return [" ".join(c[:2]) for c in sandbox.commands], ran.tests

    first, passed = verify()
    assert "go vet" in first and {r.outcome for r in passed.values()} == {Outcome.PASSED}
    again, same = verify()
    assert not [c for c in again if c.startswith("go ")], again  # was go vet and go test -c
    assert {k: r.outcome for k, r in same.items()} == {k: r.outcome for k, r in passed.items()}

    edited = (root / REL).read_text().replace("got != 350", "got != 351")
    rebuilt, now = verify({REL: edited})
    assert "go vet" in rebuilt  # never a stale binary: the edit fails where the original passed
    assert now[f"{REL}::TestTotalAddsPrices"].outcome is Outcome.FAILED
    # the package's source written over (a panel member, a mutant): built anew
    member = (root / "price/price.go").read_text().replace("return sum, nil", "return sum + 1, nil")
    relinked, under_member = verify({"price/price.go": member})
    assert "go vet" in relinked
    assert under_member[f"{REL}::TestTotalAddsPrices"].outcome is Outcome.FAILED

    panics = "price/panics_test.go"
    verify({panics: PANICS}, panics)
    reused, crashed = verify({panics: PANICS}, panics)
    assert not [c for c in reused if c.startswith("go ")], reused
    # the trace names the file as in this workspace, relative to the project
    assert "price/price.go:" in crashed[f"{panics}::TestDiscountOutOfRange"].message

    beside = "price/beside_test.go"
    verify({beside: BESIDE}, beside)
    built_again, found = verify({beside: BESIDE}, beside)
    assert "go vet" in built_again  # it looks up its own source path: never reused
    assert found[f"{beside}::TestReadsItsNeighbour"].outcome is Outcome.PASSED
