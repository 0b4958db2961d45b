"""`assay targets`: coverage-driven (coverage.py branch mode, in the sandbox) and change-driven
(git) targets."""

from __future__ import annotations

import json
import subprocess

from assay.llm.excerpt import excerpt
from assay.project import Project
from assay.targets import resolve
from assay.targets.coverage import measure
from tests.conftest import run_cli
from tests.generate.conftest import shop_copy


def git(root, *args):
    subprocess.run(
        ["git", *args],
        cwd=root,
        check=True,
        capture_output=True,
        env={
            "GIT_AUTHOR_NAME": "t",
            "GIT_AUTHOR_EMAIL": "t@t",
            "GIT_COMMITTER_NAME": "t",
            "GIT_COMMITTER_EMAIL": "t@t",
            "PATH": "/usr/bin:/bin",
        },
    )


def test_targets_rank_uncovered_branches_and_feed_generate(tmp_path):
    root = shop_copy(tmp_path / "shop")
    proc = run_cli("targets", "-f", "json", cwd=root)
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    names = [(t["module"], t["functions"][0]["name"]) for t in data["targets"]]
    assert names[:2] == [
        ("src/shop/inventory.py", "Inventory.add"),
        ("src/shop/inventory.py", "Inventory.reserve"),
    ]
    add = data["targets"][0]["functions"][0]
    assert (
        add["missing_lines"] == [29]
        and add["missing_branches"] == [[28, 29]]
        and add["coverage"] < 100
    )
    assert ("src/shop/pricing.py", "line_total") not in names  # fully covered by the demo's tests
    (tmp_path / "t.json").write_text(proc.stdout)
    project = Project.load(root)
    targets = resolve(project, [str(tmp_path / "t.json")], None)
    assert [t.module for t in targets] == ["src/shop/inventory.py"]  # grouped by module
    text = run_cli("targets", "--limit", "1", cwd=root).stdout
    assert "Inventory.add" in text and "28->29" in text and "Item.label" not in text


def test_since_names_changed_functions_with_their_coverage(tmp_path):
    root = shop_copy(tmp_path / "shop")
    git(root, "init", "-q")
    git(root, "add", ".")
    git(root, "commit", "-qm", "base")
    path = root / "src/shop/pricing.py"
    path.write_text(
        path.read_text().replace(
            '    """Gross price from net price and a tax rate."""',
            '    """Gross price from net price and a tax rate."""\n    rate = rate',
        )
    )
    proc = run_cli("targets", "--since", "HEAD", "-f", "json", cwd=root)
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert [(t["module"], t["functions"][0]["name"]) for t in data["targets"]] == [
        ("src/shop/pricing.py", "with_tax")
    ]
    assert data["targets"][0]["functions"][0]["coverage"] == 100.0
    bad = run_cli("targets", "--since", "no-such-rev", cwd=root)
    assert (
        bad.returncode == 2
        and "no-such-rev" in bad.stderr
        and len(bad.stderr.strip().splitlines()) == 1
    )


def test_excerpts_carry_the_code_not_the_file(tmp_path):
    root = shop_copy(tmp_path / "shop")
    project = Project.load(root)
    cov = measure(project, __import__("assay.config").config.Settings(cache=False))
    [target] = resolve(project, [f"{root}/src/shop/inventory.py::Inventory.reserve"], cov)
    text = excerpt(project, target)
    assert "from shop.inventory import Inventory, OutOfStock" in text
    assert "def reserve" in text and "def available(self, sku: str) -> int:\n        ..." in text
    assert "def release" not in text and "def label" not in text  # not called: not shown
    assert "line 37" in text and "never runs" in text
