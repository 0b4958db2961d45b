"""One sprint, run once for the module's tests: the fixture repository, `assay generate --sprint`
with the replay writer (the recorded answers of a real model, `tests/sprint/record.py`), then a
scripted review on the branch (one test edited, one deleted)."""

from __future__ import annotations

import ast
import json
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.conftest import run_cli, tree_digest
from tests.sprint.fixture import git, sprint_repo

RECORDED = Path(__file__).resolve().parent / "recorded" / "s42.jsonl"
WRITER = f"replay:{RECORDED}"


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
    record: Path  # the answers the replay served, recorded again


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
        "--mr-file", "../mr.md", "--record", "../again.jsonl", "-f", "json=../sprint.json", "-q",
        cwd=root,
    )  # fmt: skip
    assert proc.returncode in (0, 1), proc.stderr
    report = json.loads((root.parent / "sprint.json").read_text())
    # 1: a target got no kept test (the recorded model's answers for it all failed the gates)
    assert proc.returncode == int(any(t["rejected"] for t in report["tasks"]))
    return SprintRun(
        root, proc, report, before, _tree(root), head, git(root, "rev-parse", "HEAD"),
        (root.parent / "mr.md").read_text(), root.parent / "again.jsonl",
    )  # fmt: skip


@dataclass
class Generated:
    name: str  # test_x, or TestX.test_y (as `assay stats` names them)
    node: ast.FunctionDef
    marks: list[str]  # the decorators on the test and on its class


def generated_tests(source: str) -> list[Generated]:
    out = []
    for node in ast.parse(source).body:
        if isinstance(node, ast.FunctionDef) and node.name.startswith("test"):
            out.append(Generated(node.name, node, [ast.unparse(d) for d in node.decorator_list]))
        elif isinstance(node, ast.ClassDef):
            for fn in node.body:
                if isinstance(fn, ast.FunctionDef) and fn.name.startswith("test"):
                    marks = [ast.unparse(d) for d in node.decorator_list + fn.decorator_list]
                    out.append(Generated(f"{node.name}.{fn.name}", fn, marks))
    return out


@dataclass
class Review:
    clone: Path
    edited: str  # the first test of the first generated file, one check added
    deleted: str  # the last test of the last generated file
    generated: dict[str, list[str]]  # task -> its tests' names, as generated


@pytest.fixture(scope="session")
def reviewed(sprint_run) -> Review:
    """The branch after review, in a clone: one test edited, one deleted, the rest kept (which
    tests the recorded model wrote is the recording's business: the first and the last)."""
    clone = sprint_run.root.parent / "review"
    git(sprint_run.root.parent, "clone", "-q", "-b", "assay/sprint-S42", str(sprint_run.root),
        str(clone))  # fmt: skip
    files = [(t["id"], clone / f) for t in sprint_run.report["tasks"] for f in t["files"]]
    generated: dict[str, list[str]] = {}
    for task, path in files:
        generated.setdefault(task, []).extend(t.name for t in generated_tests(path.read_text()))
    assert sum(map(len, generated.values())) >= 2, generated
    lines = files[0][1].read_text().splitlines(keepends=True)
    first = generated_tests("".join(lines))[0]
    body = lines[first.node.body[0].lineno - 1]
    indent = body[: len(body) - len(body.lstrip())]
    lines.insert(first.node.end_lineno or 0, f"{indent}assert 1 + 1 == 2  # a reviewer's check\n")
    files[0][1].write_text("".join(lines))
    lines = files[-1][1].read_text().splitlines(keepends=True)
    last = generated_tests("".join(lines))[-1]
    start = min([d.lineno for d in last.node.decorator_list] + [last.node.lineno])
    files[-1][1].write_text("".join(lines[: start - 1] + lines[last.node.end_lineno or 0 :]))
    git(clone, "commit", "-q", "-am", "review: extend one test, drop another")
    return Review(clone, first.name, last.name, generated)
