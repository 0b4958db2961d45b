"""Suspected bugs, budgets and bad input on a small project whose code breaks its own docstring."""

from __future__ import annotations

import json

import pytest

from tests.conftest import run_cli, write_project
from tests.generate.conftest import FAST, llm_env
from tests.generate.fakes import FakeServer
from tests.generate.scripts import RANGES, bug_reviewer, bug_writer

PYPROJECT = '[tool.pytest.ini_options]\npythonpath = ["src"]\n' + FAST


@pytest.fixture
def calc(tmp_path):
    return write_project(
        tmp_path / "calc",
        {
            "src/calc/__init__.py": "",
            "src/calc/ranges.py": RANGES,
            "tests/test_smoke.py": "from calc.ranges import clamp\n\n\n"
            "def test_clamp_low():\n    assert clamp(-1, 0, 3) == 0\n",
        },
        PYPROJECT,
    )


@pytest.mark.slow  # 10 s in the fast lane on 2 cores (the CI simulation)
def test_a_test_failing_on_wrong_code_becomes_a_suspected_bug(calc):
    with FakeServer("openai", bug_writer) as w, FakeServer("anthropic", bug_reviewer) as r:
        proc = run_cli(
            "generate",
            "src/calc/ranges.py",
            "--writer",
            "openai:w",
            "--reviewer",
            "anthropic:r",
            "--task",
            "CALC-7: percentages are in percent",
            "-f",
            "json",
            cwd=calc,
            env=llm_env(w.url, r.url),
        )
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    target = report["targets"][0]
    assert target["outcome"] == "accepted"
    assert [b["test"].split("::")[-1] for b in target["suspected_bugs"]] == [
        "test_percent_of_quarter_is_25"
    ]
    text = (calc / "tests/test_ranges_generated.py").read_text()
    assert (
        "@pytest.mark.xfail(strict=True, reason='suspected bug: the docstring says percent" in text
    )
    assert text.count("@pytest.mark.assay_generated(task='CALC-7')") == 5
    bugs = json.loads((calc / "assay-suspected-bugs.json").read_text())
    assert bugs["bugs"][0]["file"] == "tests/test_ranges_generated.py"
    md = (calc / "assay-suspected-bugs.md").read_text()
    assert "assert 2.5 == 25.0" in md and "the code multiplies by 10" in md
    # the test asserting that no API key is in its environment passed in the sandbox
    assert any(k.endswith("sees_no_keys") for k in target["kept_tests"])


@pytest.mark.slow  # 7 s in the fast lane on 2 cores (the CI simulation)
def test_the_token_budget_stops_the_run_and_keeps_accepted_work(calc):
    with FakeServer("openai", bug_writer) as w:
        proc = run_cli(
            "generate",
            "src/calc/ranges.py::clamp",
            "src/calc/ranges.py::percent_of",
            "--jobs",
            "1",
            "--writer",
            "openai:w",
            "--max-tokens",
            "50",
            "-f",
            "json",
            cwd=calc,
            env=llm_env(w.url),
        )
        calls = len(w.requests)
    report = json.loads(proc.stdout)
    assert calls == 1
    assert report["stopped"].startswith("token budget reached")
    target = report["targets"][0]
    assert target["outcome"] == "partial"  # the failing test cut out, the rest verified and kept
    assert report["targets"][1]["outcome"] == "budget"  # not started
    assert (calc / "tests/test_ranges_generated.py").exists()
    assert proc.returncode == 1  # the second target kept nothing


def test_without_a_writer_generate_runs_the_offline_writer(calc):
    before = sorted(p.name for p in (calc / "tests").iterdir())
    proc = run_cli(
        "generate",
        "src/calc/ranges.py",
        "--dry-run",
        "--budget",
        "20s",
        "--no-crosshair",
        "-q",
        "-f",
        "json",
        cwd=calc,
        env=llm_env(),
    )
    assert proc.returncode in (0, 1), proc.stderr
    report = json.loads(proc.stdout)
    assert report["dry_run"] is True and report["modules"][0]["module"] == "src/calc/ranges.py"
    assert sorted(p.name for p in (calc / "tests").iterdir()) == before  # --dry-run writes nothing
    with_task = run_cli(
        "generate", "src/calc/ranges.py", "--task", "X-1: y", cwd=calc, env=llm_env()
    )
    assert with_task.returncode == 2 and "needs a model writer" in with_task.stderr


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["src/calc/ranges.py", "--writer", "nope"], "is not provider:model"),
        (["src/calc/ranges.py::nothing", "--writer", "openai:m"], "has no function 'nothing'"),
        (["tests/test_smoke.py", "--writer", "openai:m"], "is a test file"),
        (["src/calc/ranges.py", "--writer", "anthropic:m"], "no API key"),
        (["src/calc/ranges.py", "--writer", "replay:missing.jsonl"], "no such file"),
        (["src/calc/ranges.py", "--writer", "command:no-such-program-x"], "not found on PATH"),
        (["--since", "HEAD", "--writer", "openai:m"], "needs a git repository"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(calc, args, message):
    env = llm_env("http://127.0.0.1:9/v1")
    proc = run_cli("generate", *args, cwd=calc, env=env)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert message in proc.stderr and len(proc.stderr.strip().splitlines()) == 1
