"""`replay:FILE` with `replay_match = "order"`: a recording answers by target and order once the
prompts have changed (assay's prompt templates move on; the recorded answers stay), and a request
beyond the recording is one clear error."""

from __future__ import annotations

import sys

import pytest

from assay.llm import LLMConfig, PermanentError, Prompt, Recorder, make_client
from assay.store import Store

ORDER = LLMConfig(replay_match="order")
# answers with the prompt's last word: each recorded answer names the prompt it was given for
ECHO = f'command:{sys.executable} -c "import sys; print(sys.stdin.read().split()[-1])"'


@pytest.fixture
def recording(tmp_path):
    path = tmp_path / "answers.jsonl"
    client = make_client(ECHO, LLMConfig(), recorder=Recorder(path))
    for subject, word in (("m.py::f", "f1"), ("m.py::g", "g1"), ("m.py::f", "f2")):
        client.complete(Prompt("old system", f"old prompt {word}", "write", subject))
    return path


def test_changed_prompts_get_the_answers_of_their_target_in_recorded_order(recording):
    replay = make_client(f"replay:{recording}", ORDER)
    asked = [("m.py::g", "new g"), ("m.py::f", "new f"), ("m.py::f", "new f, revised")]
    answers = [replay.complete(Prompt("new system", u, "write", s)).text for s, u in asked]
    assert [a.strip() for a in answers] == ["g1", "f1", "f2"]
    with pytest.raises(PermanentError) as err:
        replay.complete(Prompt("new system", "a third", "revise", "m.py::f"))
    assert str(err.value).startswith(
        "replay: answers.jsonl has no answer for this revise prompt (request 3 for m.py::f, hash "
    )


def test_by_default_only_the_same_prompt_is_answered(recording):
    replay = make_client(f"replay:{recording}", LLMConfig())
    assert replay.complete(Prompt("old system", "old prompt f2", "write", "x")).text.strip() == "f2"
    with pytest.raises(PermanentError, match="has no answer for this write prompt"):
        replay.complete(Prompt("new system", "new f", "write", "m.py::f"))


def test_a_replay_is_not_cached_so_a_second_run_keeps_the_order(recording, tmp_path):
    store = Store(tmp_path)
    # the second run's first prompt is the first run's: were it cached, the replay would not count
    # its answer as served and would give it again for the revision, which differs this time
    for revision in ("b", "c"):
        replay = make_client(f"replay:{recording}", ORDER, store=store)
        texts = [replay.complete(Prompt("s", u, "write", "m.py::f")).text for u in ("a", revision)]
        assert [t.strip() for t in texts] == ["f1", "f2"]
