"""Providers through the real SDKs against fake servers on 127.0.0.1: retries, timeouts, faults,
usage, the response cache, the budget, recording and replay, and the command provider."""

from __future__ import annotations

import sys

import pytest

from assay.errors import ConfigError
from assay.llm import (
    Budget,
    BudgetExhausted,
    LLMConfig,
    PermanentError,
    Prompt,
    Recorder,
    TransientError,
    make_client,
)
from assay.llm.extract import extract
from assay.store import Store
from tests.generate.fakes import FakeServer, Reply, code, sequence

FAST = LLMConfig(backoff_s=0.01, backoff_max_s=0.05, timeout_s=2.0, retries=3)
GOOD = code("def test_a():\n    assert 1 + 1 == 2")


@pytest.fixture
def keys(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-openai-test")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-anthropic-test")
    return monkeypatch


@pytest.mark.parametrize("kind", ["openai", "anthropic"])
def test_429_5xx_and_garbage_are_retried_then_answered(kind, keys):
    overloaded = 529 if kind == "anthropic" else 503
    script = sequence(
        Reply(status=429, headers={"retry-after": "0.01"}),
        Reply(status=overloaded),
        Reply(raw="<html>bad gateway</html>"),
        Reply(GOOD),
    )
    with FakeServer(kind, script) as server:
        keys.setenv(f"{kind.upper()}_BASE_URL", server.url)
        client = make_client(f"{kind}:m", FAST)
        completion = client.complete(Prompt("system text", "user text"))
    assert completion.retries == 3 and len(server.requests) == 4
    assert extract(completion.text).code.startswith("def test_a")
    assert (
        completion.prompt_tokens > 0
        and completion.completion_tokens > 0
        and not completion.estimated
    )
    last = server.requests[-1]
    assert last.system == "system text" and last.user == "user text"


def test_retries_are_bounded_and_say_so(keys):
    with FakeServer("openai", sequence(Reply(status=500))) as server:
        keys.setenv("OPENAI_BASE_URL", server.url)
        with pytest.raises(TransientError, match=r"HTTP 500.*gave up after 4 tries"):
            make_client("openai:m", FAST).complete(Prompt("s", "u"))
    assert len(server.requests) == 4


def test_backoff_grows_with_jitter_and_stays_under_the_cap(keys):
    keys.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    client = make_client("openai:m", LLMConfig(backoff_s=1.0, backoff_max_s=5.0))
    waits = [client.backoff(i) for i in range(6)]
    assert 0.5 <= waits[0] <= 1.0 and 2.0 <= waits[2] <= 4.0
    assert all(w <= 5.0 for w in waits)
    assert client.backoff(0, retry_after=3.0) >= 3.0 and client.backoff(0, retry_after=999) <= 5.0


def test_a_slow_answer_times_out_and_is_retried(keys):
    """The answer is the retry's, not the slow one's (which the client would get by waiting): no
    clock in the assertion, which a busy machine can push past any bound."""
    slow = code("def test_slow():\n    assert 2 + 2 == 4")
    with FakeServer("openai", sequence(Reply(slow, delay=1.5), Reply(GOOD))) as server:
        keys.setenv("OPENAI_BASE_URL", server.url)
        completion = make_client("openai:m", LLMConfig(timeout_s=0.5, backoff_s=0.01)).complete(
            Prompt("s", "u")
        )
    assert completion.retries == 1 and completion.text == GOOD


@pytest.mark.parametrize("status", [400, 401, 404])
def test_client_errors_are_permanent_and_not_retried(status, keys):
    with FakeServer("anthropic", sequence(Reply(status=status))) as server:
        keys.setenv("ANTHROPIC_BASE_URL", server.url)
        with pytest.raises(PermanentError, match=f"HTTP {status}"):
            make_client("anthropic:m", FAST).complete(Prompt("s", "u"))
    assert len(server.requests) == 1


def test_a_truncated_answer_is_a_reject_with_feedback(keys):
    with FakeServer(
        "anthropic", sequence(Reply("```python\ndef test_a():\n    assert", finish="length"))
    ) as s:
        keys.setenv("ANTHROPIC_BASE_URL", s.url)
        completion = make_client("anthropic:m", FAST).complete(Prompt("s", "u"))
    found = extract(completion.text, completion.finish)
    assert completion.finish == "length" and found.code is None
    assert found.problem.startswith("REJECT: ANSWER — TRUNCATED")


@pytest.mark.parametrize(
    ("answer", "what"),
    [
        ("", "EMPTY"),
        ("Sure! I would test the edge cases.", "NO CODE BLOCK"),
        ("```java\n@Test void a() {}\n```", "WRONG LANGUAGE"),
        (
            "```python\ndef shout(s):\n    return s.upper()\n\n# Rationale: covers shout\n",
            "NO TESTS",
        ),
    ],
)
def test_unusable_answers_name_their_problem(answer, what):
    found = extract(answer)
    assert found.code is None and found.problem.splitlines()[0] == f"REJECT: ANSWER — {what}"


LENIENT = {
    "unclosed fence, rationale inside": "```python\nimport m\n\n\ndef test_a():\n    assert m.f()"
    "\n\n# Rationale: covers f's contract.\n",
    "no language tag, prose after the code": "```\nimport m\n\n\ndef test_a():\n    assert m.f()"
    "\nThis test checks that f holds.\n",
    "a file over two blocks": "Imports:\n```python\nimport m\n```\nTests:\n```python\n\n\n"
    "def test_a():\n    assert m.f()\n```\n",
    "a file, then its corrected copy": "```python\ndef test_a():\n    assert m.g()\n```\nBetter:"
    "\n```python\nimport m\n\n\ndef test_a():\n    assert m.f()\n```",
    "no fence at all": "Here are the tests.\nimport m\n\n\ndef test_a():\n    assert m.f()\n",
}


@pytest.mark.parametrize("answer", LENIENT.values(), ids=list(LENIENT))
def test_answers_are_read_leniently_and_truncated_only_when_the_server_says_so(keys, answer):
    """A small model stops without closing its fence (finish `stop`): that answer is a file,
    not a truncation."""
    with FakeServer("openai", sequence(Reply(answer), Reply(answer, finish="length"))) as server:
        keys.setenv("OPENAI_BASE_URL", server.url)
        client = make_client("openai:m", FAST)
        stopped, cut = client.complete(Prompt("s", "u")), client.complete(Prompt("s", "v"))
    assert extract(stopped.text, stopped.finish).code == (
        "import m\n\n\ndef test_a():\n    assert m.f()\n"
    )
    assert extract(cut.text, cut.finish).problem.startswith("REJECT: ANSWER — TRUNCATED")


def test_answers_are_cached_by_prompt_and_no_cache_asks_again(keys, tmp_path):
    with FakeServer("openai", sequence(Reply(GOOD))) as server:
        keys.setenv("OPENAI_BASE_URL", server.url)
        with Store(tmp_path) as store:
            first = make_client("openai:m", FAST, store=store).complete(Prompt("s", "u"))
            again = make_client("openai:m", FAST, store=store).complete(Prompt("s", "u"))
            other = make_client("openai:m", FAST, store=store).complete(Prompt("s", "another"))
            fresh = make_client("openai:m", FAST, store=store, use_cache=False).complete(
                Prompt("s", "u")
            )
    assert (first.cached, again.cached, other.cached, fresh.cached) == (False, True, False, False)
    assert again.text == first.text and len(server.requests) == 3


def test_the_budget_stops_before_a_call_it_cannot_afford(keys):
    budget = Budget(max_tokens=10)
    with FakeServer("openai", sequence(Reply(GOOD))) as server:
        keys.setenv("OPENAI_BASE_URL", server.url)
        client = make_client("openai:m", FAST, budget=budget)
        client.complete(Prompt("s", "u"))
        with pytest.raises(BudgetExhausted, match="token budget reached"):
            client.complete(Prompt("s", "u2"))
    assert len(server.requests) == 1 and budget.usage.calls == 1


def test_cost_from_the_price_table(keys):
    config = LLMConfig.model_validate({"prices": {"openai:m": {"input": 1.0, "output": 2.0}}})
    with FakeServer("openai", sequence(Reply(GOOD))) as server:
        keys.setenv("OPENAI_BASE_URL", server.url)
        c = make_client("openai:m", config).complete(Prompt("s", "u"))
    assert c.cost == pytest.approx((c.prompt_tokens + 2 * c.completion_tokens) / 1e6)


def test_recorded_answers_replay_without_a_server(keys, tmp_path):
    record = tmp_path / "answers.jsonl"
    with FakeServer("openai", sequence(Reply(GOOD))) as server:
        keys.setenv("OPENAI_BASE_URL", server.url)
        make_client("openai:m", FAST, recorder=Recorder(record)).complete(Prompt("s", "u", "write"))
    assert "sk-openai-test" not in record.read_text()
    replay = make_client(f"replay:{record}", FAST)
    assert replay.complete(Prompt("s", "u")).text == GOOD
    with pytest.raises(PermanentError, match="has no answer for this write prompt"):
        replay.complete(Prompt("s", "never recorded", "write"))


def test_the_command_provider_reads_stdout_and_estimates_tokens(tmp_path):
    script = tmp_path / "agent.py"
    script.write_text(
        "import sys\nprompt = sys.stdin.read()\nprint('```python\\ndef test_x():\\n    assert "
        "len(%r) > 0\\n```' % prompt[-5:])\n"
    )
    client = make_client(f"command:{sys.executable} {script}", FAST)
    completion = client.complete(Prompt("system", "user text"))
    assert completion.estimated and completion.prompt_tokens > 0
    assert extract(completion.text).code.startswith("def test_x")
    failing = make_client(f"command:{sys.executable} -c 'import sys; sys.exit(3)'", FAST)
    with pytest.raises(TransientError, match="exited with status 3"):
        failing.complete(Prompt("s", "u"))


@pytest.mark.parametrize("spec", ["openai", "nope:model", "openai:", ":model"])
def test_bad_specs_are_config_errors(spec):
    with pytest.raises(ConfigError, match="provider:model"):
        make_client(spec, FAST)


def test_a_local_server_gets_at_least_300_s_per_request_unless_timeout_is_set(keys):
    """A 1.5B model on 2 CPU cores writes ~10 tokens/s: 120 s cut its answers off."""
    from assay.llm.openai_compat import OpenAIProvider

    keys.setenv("OPENAI_BASE_URL", "http://127.0.0.1:8741/v1")
    assert OpenAIProvider("m", LLMConfig()).timeout_s == 300
    assert OpenAIProvider("m", LLMConfig(timeout_s=30)).timeout_s == 30
    keys.setenv("OPENAI_BASE_URL", "https://api.example.com/v1")
    assert OpenAIProvider("m", LLMConfig()).timeout_s == 120
