"""Session-wide runs shared by the generate tests: `assay generate` on a copy of the demo project
against the fake OpenAI and Anthropic servers (recording every answer), then the same run replayed
from the recording."""

from __future__ import annotations

import json
import os
import shutil
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.conftest import REPO, run_cli, tree_digest
from tests.generate.fakes import FakeServer
from tests.generate.scripts import ShopWriter, shop_reviewer

WRITER_KEY = "sk-test-WRITER-secret-0123456789"
REVIEWER_KEY = "sk-ant-REVIEWER-secret-9876543210"
FAST = """
[tool.assay.llm]
backoff_s = 0.01
backoff_max_s = 0.05

[tool.assay.stability]
reruns = 1
budget_s = 0
"""
SHOP_TARGETS = ["src/shop/pricing.py", "src/shop/inventory.py", "src/shop/parser.py"]


def shop_copy(dest: Path) -> Path:
    shutil.copytree(
        REPO / "examples" / "shop", dest, ignore=shutil.ignore_patterns("__pycache__", ".assay")
    )
    with (dest / "pyproject.toml").open("a") as f:
        f.write(FAST)
    return dest


def llm_env(writer_url: str | None = None, reviewer_url: str | None = None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "ANTHROPIC_"))}
    if writer_url:
        env.update(OPENAI_BASE_URL=writer_url, OPENAI_API_KEY=WRITER_KEY)
    if reviewer_url:
        env.update(ANTHROPIC_BASE_URL=reviewer_url, ANTHROPIC_API_KEY=REVIEWER_KEY)
    return env


def generate_json(root: Path, url: str, *targets: str, writer: str = "openai:small") -> dict:
    """`assay generate TARGETS --dry-run --jobs 1 -f json` with `writer` at `url`: its JSON."""
    from tests.conftest import run_cli

    proc = run_cli(
        "generate",
        *targets,
        "--writer",
        writer,
        "--dry-run",
        "--jobs",
        "1",
        "-f",
        "json",
        cwd=root,
        env=llm_env(url),
    )
    assert proc.stdout, proc.stderr
    return json.loads(proc.stdout)


@dataclass
class Run:
    root: Path
    proc: object
    report: dict
    before: dict[str, str]
    after: dict[str, str]
    seconds: float
    record: Path | None = None
    writer_requests: int = 0


@pytest.fixture(scope="session")
def shop_run(tmp_path_factory) -> Run:
    """The recorded run: 3 targets, a 429 and a 500 on the first calls, a broken answer repaired at
    gate 2, a review round, a flaky test dropped, an answer with no code block."""
    root = shop_copy(tmp_path_factory.mktemp("gen") / "shop")
    record = root.parent / "answers.jsonl"
    before = tree_digest(root)
    with (
        FakeServer("openai", ShopWriter()) as writer,
        FakeServer("anthropic", shop_reviewer) as reviewer,
    ):
        start = time.monotonic()
        proc = run_cli(
            "generate",
            *SHOP_TARGETS,
            "--writer",
            "openai:fake-writer",
            "--reviewer",
            "anthropic:fake-reviewer",
            "--record",
            str(record),
            "--jobs",
            "2",
            "-f",
            "json",
            "-o",
            str(root.parent / "report.json"),
            cwd=root,
            env=llm_env(writer.url, reviewer.url),
        )
        seconds = time.monotonic() - start
        requests = len(writer.requests)
    assert proc.returncode == 0, proc.stderr
    report = json.loads((root.parent / "report.json").read_text())
    return Run(root, proc, report, before, tree_digest(root), seconds, record, requests)


@pytest.fixture(scope="session")
def shop_replay(shop_run, tmp_path_factory) -> Run:
    """The same run from the recording, with no server and no key; the verify cache of the first run
    is copied along (gates 1-5 answer from it), the answers come from `replay:` alone."""
    root = shop_copy(tmp_path_factory.mktemp("replay") / "shop")
    shutil.copytree(shop_run.root / ".assay", root / ".assay")
    before = tree_digest(root)
    spec = f"replay:{shop_run.record}"
    start = time.monotonic()
    proc = run_cli(
        "generate",
        *SHOP_TARGETS,
        "--writer",
        spec,
        "--reviewer",
        spec,
        "-f",
        "json",
        "-o",
        str(root.parent / "report.json"),
        cwd=root,
        env=llm_env(),
    )
    seconds = time.monotonic() - start
    assert proc.returncode == 0, proc.stderr
    report = json.loads((root.parent / "report.json").read_text())
    return Run(root, proc, report, before, tree_digest(root), seconds)
