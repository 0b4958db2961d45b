"""A slice of the real local model's recorded answers (bench/llm/run.py, Qwen2.5-Coder-1.5B on the
demo project), replayed through `assay generate` by a fake OpenAI server on 127.0.0.1: what assay
makes of a small model's real answers stays measured in CI, without the model."""

from __future__ import annotations

import json

import pytest

from tests.conftest import REPO
from tests.generate.conftest import generate_json, shop_copy
from tests.generate.fakes import FakeServer, Replayed, Request

RECORDED = REPO / "bench" / "llm" / "replay" / "shop.jsonl"


@pytest.mark.slow
def test_the_recorded_answers_replay_and_keep_tests(tmp_path):
    """Slow lane, with the other end-to-end `generate` runs (test_generate_shop.py,
    test_small_models.py): every gate on each answer, mutation included, the costliest call of the
    fast lane."""
    records = [json.loads(line) for line in RECORDED.read_text().splitlines() if line.strip()]
    root = shop_copy(tmp_path / "shop")
    replayed = Replayed(records)
    with FakeServer("openai", replayed) as server:
        out = generate_json(
            root, server.url, "src/shop/pricing.py", "src/shop/inventory.py", writer="openai:local"
        )
    pricing, inventory = out["targets"]
    kinds = [a["kind"] for a in pricing["attempts"]]
    assert replayed.missing == 0 and replayed.by_hash == 2, kinds
    # the write prompt that ends with the import lines got a test file at once (before: a copy
    # of the code under test); the `Decimal` it forgot to import was imported for it; its failing
    # check was cut, the rest kept without another answer
    first = pricing["attempts"][0]
    assert first["problem"] is None and "Decimal" in first["imported"], first
    assert pricing["outcome"] == "partial", (pricing["note"], kinds)
    assert len(pricing["kept_tests"]) >= 4 and pricing["writer_attempts"] == 1, kinds
    # the getter test gate 5 flagged is dropped in the loop and the other three kept (before: the
    # file went back for a repair round, which the model answered with the same file)
    assert [a["kind"] for a in inventory["attempts"]][:2] == ["write", "split"]
    assert inventory["writer_attempts"] == 1 and len(inventory["kept_tests"]) == 3
    assert [(d["test"].split("::")[-1], d["gate"]) for d in inventory["dropped"]] == [
        ("test_item_label", "smells")
    ]


def _asked(user: str) -> Request:
    system = {"role": "system", "content": "You write tests."}
    messages = [system, {"role": "user", "content": user}]
    return Request("/v1/chat/completions", {"messages": messages}, {})


def test_a_revision_replayed_in_recorded_order_is_one_of_the_same_target():
    """The replay's third pass: ordinal now kept tests from its first answer, so camelize's prompts
    named another file and were served in recorded order - its revision got ordinal's unused one
    (and "kept 61 tests")."""
    records = [
        {"hash": "a1", "purpose": "write", "subject": "m.py::a", "text": "A write"},
        {"hash": "a2", "purpose": "revise", "subject": "m.py::a", "text": "A revise"},
        {"hash": "b1", "purpose": "write", "subject": "m.py::b", "text": "B write"},
        {"hash": "b2", "purpose": "revise", "subject": "m.py::b", "text": "B revise"},
    ]
    replayed = Replayed(records)
    assert replayed(_asked("write a")).text == "A write"
    assert replayed(_asked("write b")).text == "B write"
    assert replayed(_asked("b failed\nFeedback:\nno")).text == "B revise"
    assert replayed(_asked("b failed again\nFeedback:\nno")).status == 400  # none left for b
    assert (replayed.by_order, replayed.missing) == (3, 1)
