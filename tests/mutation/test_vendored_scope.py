"""Code a project carries of another project's is not its own: jsonpath-ng 1.17's
`test_filter_query_operands.py` (74 exact tests of filter queries, run through
`jsonpath_ng.ext.parse`) was rejected at gate 4 for survivors in `jsonpath_ng/_ply/lex.py`, the
copy of PLY 3.11 the project ships: its `lexoptimize` flag, its logger, its state checks."""

from __future__ import annotations

import pytest

from assay.project import Project
from tests.conftest import verify_json

TOKENS = """
    class Token:
        def __init__(self, value, pos, lineno):
            self.value = value
            self.pos = pos
            self.lineno = lineno


    class Lexer:
        def __init__(self, text):
            self.text = text
            self.lineno = 1

        def tokens(self):
            out = []
            pos = 0
            for word in self.text.split(" "):
                out.append(Token(word, pos, self.lineno))
                pos += len(word) + 1
            return out
    """

FILES = {
    "words/__init__.py": 'from words.core import parse\n\n__version__ = "1.0"\n',
    "words/core.py": """
        from words._lex import tokens


        def parse(text):
            return tokens.Lexer(text).tokens()
        """,
    "words/_lex/__init__.py": '"""A lexer library, copied in."""\n\n__version__ = "3.11"\n',
    "words/_lex/tokens.py": TOKENS,
    "tests/__init__.py": "",
    # the values of the tokens, never where they are: reads nothing of the copied lexer's own
    "tests/test_parse.py": """
        import words


        def test_words():
            assert [t.value for t in words.parse("a bc")] == ["a", "bc"]


        def test_one_word():
            assert [t.value for t in words.parse("abc")] == ["abc"]
        """,
}


def _vendored(project, files) -> dict[str, str]:
    return Project.load(project(files)).vendored


def test_a_package_that_declares_a_version_of_its_own_is_vendored(project):
    assert _vendored(project, FILES) == {
        "words/_lex/__init__.py": "words/_lex/__init__.py declares a version of its own, 3.11",
        "words/_lex/tokens.py": "words/_lex/__init__.py declares a version of its own, 3.11",
    }


def test_a_vendoring_directory_is_vendored(project):
    files = {"pkg/__init__.py": "", "pkg/core.py": "X = 1\n", "pkg/_vendor/six.py": "Y = 2\n"}
    assert _vendored(project, files) == {"pkg/_vendor/six.py": "under a `_vendor/` directory"}


@pytest.mark.parametrize(
    "extra",
    [
        # the project's own version, in a subpackage that says it (or in its metadata only)
        {"words/_lex/__init__.py": '__version__ = "1.0"\n'},
        # a version file of the project's own, no code in it
        {"words/_lex/__init__.py": "", "words/_version.py": '__version__ = "0.9"\n'},
    ],
)
def test_the_projects_own_versions_are_not_vendoring(project, extra):
    assert _vendored(project, {**FILES, **extra}) == {}


def test_below_a_namespace_package_the_first_package_is_the_project(project):
    files = {
        "google/cloud/storage/__init__.py": '__version__ = "2.1"\n\ndef client():\n    return 1\n',
        "google/cloud/storage/blob.py": "def upload():\n    return 2\n",
    }
    assert _vendored(project, files) == {}


@pytest.mark.slow  # gate 4 end to end
def test_a_file_is_not_held_to_the_code_its_project_vendors(project, tmp_path):
    root = project(FILES, "[tool.assay]\ngates = ['compile', 'green', 'mutation']\n")
    f, shown = verify_json(root, "tests/test_parse.py", tmp_path / "r.json")
    gate = next(g for g in f["gates"] if g["gate"] == "mutation")
    # before: rejected, `words/_lex/tokens.py` under its threshold (positions and line numbers
    # the tests receive in each token and never read)
    assert f["verdict"] == "accepted", (gate, shown)
    assert gate["reached"] == ["words/core.py"], gate
    assert any("vendored): words/_lex/ (" in n for n in gate.get("notes", [])), gate
