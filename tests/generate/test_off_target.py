"""A file that never calls the function it was asked to test is not that function's test (issue
28's replay: camelize's answer was a file of `ordinal` tests; gate 4 scores the module, so it passed
and camelize was reported "accepted, 61 tests"). It goes back as an answer-format reject."""

from __future__ import annotations

import pytest

from tests.conftest import write_project
from tests.generate.conftest import FAST, generate_json
from tests.generate.fakes import FakeServer, Reply, Request, code

TEXT = '''\
"""Text helpers."""


def shout(s: str) -> str:
    """Upper case with a bang."""
    if not s:
        return ""
    return s.upper() + "!"


def whisper(s: str) -> str:
    """Lower case, trailing off."""
    if not s:
        return ""
    return s.lower() + "..."
'''
OTHER = code(
    "from mini.text import whisper\n\n\ndef test_whisper_lowers():\n"
    "    assert whisper('Hi') == 'hi...'\n\n\ndef test_whisper_of_nothing():\n"
    "    assert whisper('') == ''\n"
)
RIGHT = code(
    "from mini.text import shout\n\n\ndef test_shout_uppers():\n"
    "    assert shout('hi') == 'HI!'\n\n\ndef test_shout_of_nothing():\n"
    "    assert shout('') == ''\n"
)


@pytest.mark.slow  # generate end to end: gates 1-5 on the answer
def test_a_file_of_tests_of_another_function_goes_back_as_not_the_target(tmp_path):
    root = write_project(
        tmp_path / "mini",
        {"src/mini/__init__.py": "", "src/mini/text.py": TEXT},
        '[tool.pytest.ini_options]\npythonpath = ["src"]\n' + FAST,
    )
    asked: list[str] = []

    def script(req: Request) -> Reply:
        asked.append(req.user)
        return Reply([OTHER, RIGHT][min(len(asked), 2) - 1])

    with FakeServer("openai", script) as server:
        out = generate_json(root, server.url, "src/mini/text.py::shout")
    (target,) = out["targets"]
    kept = {t.split("::")[-1] for t in target["kept_tests"]}
    assert kept == {"test_shout_uppers", "test_shout_of_nothing"}, target["attempts"]
    first = target["attempts"][0]
    assert first["problem"].startswith("REJECT: ANSWER — NOT THE TARGET"), first
    assert "No test in the file calls `shout`" in asked[1], asked[1][-800:]
