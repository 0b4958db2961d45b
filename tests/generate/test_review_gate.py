"""Gate 6 against a fake Anthropic-compatible server: validated JSON, only HIGH-confidence REVISE
rejects, an invalid answer is asked again once and then the gate is `skip` (never `pass`);
`verify --review` end to end."""

from __future__ import annotations

import json

import pytest

from assay.config import Settings
from assay.gates.review import ReviewBrief, ReviewGate
from assay.llm import LLMConfig, make_client
from assay.model import GateStatus, Verdict
from tests.conftest import run_cli
from tests.generate.conftest import llm_env, shop_copy
from tests.generate.fakes import FakeServer, Reply, review_json, sequence

SOURCE = "def test_a():\n    assert f(1) == 2\n\n\ndef test_b():\n    assert f(2) == 3\n"
IDS = ["tests/test_f.py::test_a", "tests/test_f.py::test_b"]


def review(script, monkeypatch):
    with FakeServer("anthropic", script) as server:
        monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test")
        monkeypatch.setenv("ANTHROPIC_BASE_URL", server.url)
        client = make_client("anthropic:r", LLMConfig(backoff_s=0.01))
        result = ReviewGate(Settings(), client).review(
            "tests/test_f.py", SOURCE, ReviewBrief(task="T-1"), IDS
        )
        return result, server.requests


def test_high_confidence_revise_rejects_with_feedback(monkeypatch):
    answer = review_json(
        [("test_a", "REVISE", "HIGH", "checks only one input"), ("test_b", "OK", "HIGH", "")],
        verdict="REVISE",
        missing=["negative input"],
    )
    result, _ = review(sequence(Reply(answer)), monkeypatch)
    assert result.status is GateStatus.REJECT
    assert result.feedback.splitlines()[0] == "REJECT: Gate 6 — REVIEW (REVISE)"
    assert (
        "test_a: checks only one input" in result.feedback
        and "Missing scenario: negative input" in result.feedback
    )
    assert [(t.id, t.verdict) for t in result.tests] == [(IDS[0], Verdict.REJECTED)]


@pytest.mark.parametrize("confidence", ["MEDIUM", "LOW"])
def test_lower_confidence_revise_is_only_a_warning(confidence, monkeypatch):
    result, _ = review(
        sequence(Reply(review_json([("test_a", "REVISE", confidence, "maybe")], "REVISE"))),
        monkeypatch,
    )
    assert result.status is GateStatus.WARN and not result.tests


def test_invalid_json_is_asked_again_once(monkeypatch):
    result, requests = review(
        sequence(Reply("looks fine to me"), Reply(review_json([]))), monkeypatch
    )
    assert result.status is GateStatus.PASS and len(requests) == 2
    assert "not usable" in requests[1].user


def test_invalid_twice_is_a_skip_with_the_reason_never_a_pass(monkeypatch):
    bad = json.dumps(
        {
            "tests": [{"test": "test_a", "verdict": "GREAT", "confidence": "HIGH"}],
            "file": {"verdict": "ACCEPT"},
        }
    )
    result, requests = review(sequence(Reply(bad)), monkeypatch)
    assert result.status is GateStatus.SKIP and len(requests) == 2
    assert "not usable twice" in result.feedback and "tests.0.verdict" in result.feedback


def test_file_reject_asks_for_a_new_file(monkeypatch):
    result, _ = review(sequence(Reply(review_json([], verdict="REJECT"))), monkeypatch)
    assert result.status is GateStatus.REJECT and "REVIEW (REJECT)" in result.feedback


def test_verify_review_runs_gate_6_on_hand_written_tests(tmp_path):
    root = shop_copy(tmp_path / "shop")
    answer = review_json([("test_parse_line_reads_quantity_sku_and_cents", "OK", "HIGH", "")])
    with FakeServer("anthropic", sequence(Reply(answer))) as server:
        proc = run_cli(
            "verify",
            "tests/test_parser.py",
            "--review",
            "anthropic:r",
            "-f",
            "json",
            "--no-cache",
            cwd=root,
            env=llm_env(reviewer_url=server.url),
        )
        prompt = server.requests[0].user
    assert proc.returncode == 0, proc.stderr
    gates = json.loads(proc.stdout)["files"][0]["gates"]
    assert [g["gate"] for g in gates][-1] == "review" and gates[-1]["status"] == "pass"
    assert "def parse_line" in prompt and "Mutation testing: score" in prompt
    assert "class Test" not in prompt or "def parse_line" in prompt


def test_verify_without_review_has_no_gate_6():
    from assay.pipeline import build_gates

    assert "review" not in [g.name for g in build_gates(Settings())]
