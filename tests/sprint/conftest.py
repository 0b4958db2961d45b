"""One sprint, run once for the module's tests: the fixture repository, `assay generate --sprint`
with the scripted writer, then a scripted review on the branch (one test edited, one deleted)."""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.conftest import run_cli, tree_digest
from tests.sprint.fixture import git, sprint_repo

WRITER = f"command:{sys.executable} {Path(__file__).parent / 'writer.py'}"


@dataclass
class SprintRun:
    root: Path
    proc: object
    report: dict
    before: dict[str, str]
    after: dict[str, str]
    head_before: str
    head_after: str
    mr: str


def _tree(root: Path) -> dict[str, str]:
    """The working tree (git's own objects and refs grow by design: the new branch)."""
    return {k: v for k, v in tree_digest(root).items() if not k.startswith(".git/")}


@pytest.fixture(scope="session")
def sprint_run(tmp_path_factory) -> SprintRun:
    root = sprint_repo(tmp_path_factory.mktemp("sprint") / "shop")
    (root / "notes.txt").write_text("uncommitted work of the user\n")  # must stay as it is
    head = git(root, "rev-parse", "HEAD")
    before = _tree(root)
    proc = run_cli(
        "generate", "--sprint", "S42", "--tracker", "file:../tasks.json", "--writer", WRITER,
        "--mr-file", "../mr.md", "-f", "json=../sprint.json", "-q", cwd=root,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    report = json.loads((root.parent / "sprint.json").read_text())
    return SprintRun(
        root, proc, report, before, _tree(root), head, git(root, "rev-parse", "HEAD"),
        (root.parent / "mr.md").read_text(),
    )  # fmt: skip


@pytest.fixture(scope="session")
def reviewed(sprint_run) -> Path:
    """The branch after review, in a clone: one test edited, one deleted, the rest kept."""
    clone = sprint_run.root.parent / "review"
    git(sprint_run.root.parent, "clone", "-q", "-b", "assay/sprint-S42", str(sprint_run.root),
        str(clone))  # fmt: skip
    pricing = clone / "tests/test_pricing_generated.py"
    text = pricing.read_text()
    pricing.write_text(
        text.replace("== 850\n", "== 850\n    assert apply_discount(999, 50) == 500\n")
    )
    stock = clone / "tests/test_stock_generated.py"
    text = stock.read_text()
    cut = text.index(
        "@pytest.mark.assay_generated(task='SPAN-2', sprint='S42')\n@pytest.mark.param"
    )
    stock.write_text(text[:cut].rstrip() + "\n")
    git(clone, "commit", "-q", "-am", "review: extend one test, drop another")
    return clone
