"""A table of the project's own tests that an answer uses and never defines is copied in (issue 28,
the real model's replay: `@pytest.mark.parametrize(..., ORDINAL_NUMBERS)` as in the style sample,
whose long table the prompt cuts). Before, the test went at collection and the answer was lost."""

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
'''
WORDS = ["a", "b", "hi", "yo", "no", "ok", "up", "go", "me", "we", "so", "ah"]
ROWS = "".join(f'    ("{w}", "{w.upper()}!"),\n' for w in WORDS)
EXISTING = f"""\
import pytest

from mini.text import shout

SHOUTS = (
{ROWS})
ODD = sorted(["x"])


@pytest.mark.parametrize(("word", "loud"), SHOUTS)
def test_shout(word, loud):
    assert shout(word) == loud
"""
# as the real model wrote it: the sample's table by name, imported from the module (which never
# binds it), and no definition
ANSWER = code(
    "import pytest\n\nfrom mini.text import shout, SHOUTS\n\n\n"
    '@pytest.mark.parametrize(("word", "loud"), SHOUTS)\n'
    "def test_shout_table(word, loud):\n    assert shout(word) == loud\n\n\n"
    "def test_shout_of_nothing():\n    assert shout('') == ''\n"
)


@pytest.mark.slow  # generate end to end: gates 1-5 on the answer
def test_an_answer_fed_a_table_of_the_projects_tests_keeps_its_tests(tmp_path):
    root = write_project(
        tmp_path / "mini",
        {"src/mini/__init__.py": "", "src/mini/text.py": TEXT, "tests/test_text.py": EXISTING},
        '[tool.pytest.ini_options]\npythonpath = ["src"]\n' + FAST,
    )
    asked: list[str] = []

    def script(req: Request) -> Reply:
        asked.append(req.user)
        return Reply(ANSWER)

    with FakeServer("openai", script) as server:
        out = generate_json(root, server.url, "src/mini/text.py::shout")
    (target,) = out["targets"]
    kept = {t.split("::")[-1].split("[")[0] for t in target["kept_tests"]}
    assert kept == {"test_shout_table", "test_shout_of_nothing"}, (kept, target["attempts"])
    assert target["writer_attempts"] == 1 and len(asked) == 1, target["attempts"]
    first = target["attempts"][0]
    assert first.get("borrowed") == ["SHOUTS"] and first["unbound"] == [], first


def test_only_literal_tables_are_borrowed_and_only_when_unbound(tmp_path):
    from assay.writers.borrow import borrow_constants, literal_tables

    tests = tmp_path / "test_text.py"
    tests.write_text(EXISTING)
    tables = literal_tables([tests])
    assert set(tables) == {"SHOUTS"}  # `ODD = sorted(...)` runs code: not copied
    assert tables["SHOUTS"].startswith("SHOUTS = (\n") and tables["SHOUTS"].endswith(")")
    src = "import pytest\n\n\n@pytest.mark.parametrize('a', SHOUTS)\ndef test_a(a):\n    assert a\n"
    out, names = borrow_constants(src, tables)
    assert names == ["SHOUTS"]
    assert out.index("import pytest") < out.index("SHOUTS = (") < out.index("@pytest.mark")
    compile(out, "t.py", "exec")
    defined = "SHOUTS = ()\n" + src
    assert borrow_constants(defined, tables) == (defined, [])
