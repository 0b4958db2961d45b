"""`assay prism run --writer`: a writer (scripted, behind the real OpenAI SDK on a local fake
server) gets each task's instruction and original tree, never the panel; its suites are kept under
--out and judged like given ones."""

from __future__ import annotations

import json
import uuid

import pytest

from tests.conftest import run_cli, tree_digest
from tests.generate.conftest import llm_env
from tests.generate.fakes import FakeServer, Reply, Request
from tests.prism.conftest import BENCH, SUITES


def _answer(req: Request) -> Reply:
    """roman: the strong suite; slugify: the weak one; interval: prose without code."""
    if "to_roman" in req.user:
        return Reply(
            "```python\n" + (SUITES / "strong/roman-numerals/test_roman.py").read_text() + "```\n"
            "Rationale: every numeral, the bounds, the errors."
        )
    if "slugify" in req.user:
        return Reply(
            "```python\n" + (SUITES / "weak/slugify-unicode/test_slugify.py").read_text() + "```"
        )
    return Reply("I would test merging overlapping intervals.")


@pytest.mark.slow
def test_written_suites_are_kept_and_judged_on_the_same_panels(tmp_path, state_dir, bench_runs):
    """The written suites equal bundled ones, so their runs come from the session's
    store (bench_runs). Slow lane: that store is the whole bundled benchmark, which the slow lane
    runs for test_bench.py; the fast lane paid it again for this test and three of test_cli.py."""
    before = tree_digest(BENCH)
    out = tmp_path / "written"
    # answers are cached in the shared store by model and prompt
    model = f"m-{uuid.uuid4().hex[:8]}"
    with FakeServer("openai", _answer) as server:
        proc = run_cli(
            "prism",
            "run",
            str(BENCH),
            "--writer",
            f"openai:{model}",
            "--out",
            str(out),
            "--state",
            str(state_dir),
            "-f",
            "json",
            env=llm_env(server.url),
        )
        prompts = [r.user for r in server.requests]
    # interval-merge got no suite: invalid, the rest evaluated
    assert proc.returncode == 1, proc.stderr
    report = json.loads(proc.stdout)
    tasks = {t["id"]: t for t in report["tasks"]}
    assert tasks["roman-numerals"]["jsf"] == 1 and tasks["slugify-unicode"]["jsf"] == 0
    assert tasks["interval-merge"]["status"] == "invalid"
    assert tasks["interval-merge"]["reason"].startswith("writer: ")
    roman = tasks["roman-numerals"]["writer"]
    assert roman["writer"] == f"openai:{model}" and roman["calls"] == 1 and roman["tokens"] > 0
    assert (
        roman["suite"] == "roman-numerals/test_roman_numerals.py"
        and (out / roman["suite"]).is_file()
    )
    assert any(
        n.startswith(f"suites written by openai:{model}") and "2 of 3 tasks" in n
        for n in report["notes"]
    )
    # the writer saw the instruction and original/, nothing of the reference, the panel or
    # the validator
    assert len(prompts) == 3
    roman_prompt = next(p for p in prompts if "to_roman" in p)
    assert (BENCH / "roman-numerals/instruction.md").read_text().strip()[:60] in roman_prompt
    assert "`src/roman/convert.py`" in roman_prompt
    secret = [
        ln[1:].strip()
        for ln in (BENCH / "roman-numerals/reference/reference.patch").read_text().splitlines()
        if ln.startswith("+") and not ln.startswith("+++") and len(ln.strip()) > 12
    ]
    assert secret and not any(s in roman_prompt for s in secret)
    assert "validator" not in roman_prompt
    assert tree_digest(BENCH) == before


def test_writer_needs_an_empty_out_and_no_suites(tmp_path):
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "x").write_text("")
    proc = run_cli(
        "prism", "run", str(BENCH), "--writer", "openai:m", "--out", str(tmp_path / "full")
    )
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1 and "is not empty" in proc.stderr
    proc = run_cli(
        "prism", "run", str(BENCH), "--writer", "openai:m", "--suites", str(SUITES / "weak")
    )
    assert proc.returncode == 2 and "not --suites" in proc.stderr
