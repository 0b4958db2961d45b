"""Gate 4 on a file that imports no module of the project: the run tells what the tests reach
(issue 25, point 6). A test of a pasted copy is rejected; fixture-fed and subprocess tests are
not."""

from __future__ import annotations

import pytest

from assay.api import verify
from assay.config import Settings
from assay.gates.reach import process_start, through_package
from assay.model import GateStatus, Verdict
from assay.project import Project

SLUG = {
    "src/slug/__init__.py": "from slug.core import slugify\n",
    "src/slug/core.py": """
    def slugify(text):
        words = text.lower().split()
        return "-".join(w for w in words if w.isalnum())
    """,
    "src/slug/word.py": """
    class Word:
        __slots__ = ("_text",)

        def __init__(self, text):
            self._text = text

        @property
        def text(self):
            return self._text
    """,
    "src/slug/cli.py": """
    import sys

    from slug.core import slugify

    if __name__ == "__main__":
        print(slugify(" ".join(sys.argv[1:])))
    """,
    # the project comes from a fixture, imported when the fixture runs (after collection)
    "tests/conftest.py": """
    import pytest


    @pytest.fixture
    def slugger():
        from slug.core import slugify

        return slugify


    @pytest.fixture
    def word():
        from slug.word import Word

        return Word("a")
    """,
    # what it checks is declared (a read-only property), and no function of the project runs
    "tests/test_readonly.py": """
    import pytest


    def test_text_is_read_only(word):
        with pytest.raises(AttributeError):
            word.text = "b"
    """,
    "tests/test_pasted.py": """
    def slugify(text):
        words = text.lower().split()
        return "-".join(w for w in words if w.isalnum())


    def test_joins_words():
        assert slugify("Hello World") == "hello-world"


    def test_drops_punctuation():
        assert slugify("a ! b") == "a-b"
    """,
    "tests/test_fed.py": """
    def test_joins_words(slugger):
        assert slugger("Hello World") == "hello-world"


    def test_drops_punctuation(slugger):
        assert slugger("a ! b") == "a-b"
    """,
    # imports only the package, whose __init__ holds no function (more-itertools' `import
    # more_itertools as mi`): held to the module its tests reach, not to an empty __init__
    "tests/test_package.py": """
    import slug as s


    def test_joins_words():
        assert s.slugify("Hello World") == "hello-world"
    """,
    "tests/test_cli_run.py": """
    import os
    import subprocess
    import sys


    def test_cli_prints_the_slug():
        out = subprocess.run(
            [sys.executable, "-m", "slug.cli", "Hello", "World"],
            capture_output=True,
            text=True,
            env={**os.environ, "PYTHONPATH": "src"},
        )
        assert out.stdout.strip() == "hello-world"
    """,
}


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    from tests.conftest import write_project

    root = write_project(tmp_path_factory.mktemp("reach") / "slug", SLUG)
    settings = Settings(gates=["green", "mutation"], cache=False)
    report = verify([root / "tests"], settings)
    return {f.path: f for f in report.files}


def test_a_test_of_a_pasted_copy_is_rejected(files):
    f = files["tests/test_pasted.py"]
    assert (f.verdict, f.rejected_at) == (Verdict.REJECTED, "mutation")
    gate = f.gates[-1]
    assert gate.details["reason"].startswith("the tests run no code of the project")
    assert "THE TESTS RUN NO CODE OF THE PROJECT" in gate.feedback


def test_a_fixture_fed_test_is_held_to_the_module_it_reaches(files):
    f = files["tests/test_fed.py"]
    gate = f.gates[-1]
    assert gate.status is not GateStatus.SKIP
    assert gate.details["reached"] == ["src/slug/core.py"]
    assert gate.details["score"] is not None
    assert f.verdict is not Verdict.REJECTED


def test_a_fixture_fed_test_of_a_declared_attribute_is_not_a_pasted_copy(files):
    f = files["tests/test_readonly.py"]
    gate = f.gates[-1]
    assert gate.status is GateStatus.SKIP
    assert "takes the fixture 'word' of tests/conftest.py" in gate.details["reason"]
    assert f.verdict is Verdict.ACCEPTED


def test_a_file_importing_only_a_reexporting_package_is_held_to_what_it_reaches(files):
    f = files["tests/test_package.py"]
    gate = f.gates[-1]
    assert f.targets == ["src/slug/__init__.py"]
    assert gate.details["reached"] == ["src/slug/core.py"] and gate.details["score"] is not None
    assert all(t.verdict is Verdict.ACCEPTED for t in f.tests), f.tests


def test_a_test_that_runs_the_cli_in_a_subprocess_is_not_rejected(files):
    f = files["tests/test_cli_run.py"]
    gate = f.gates[-1]
    assert gate.status is GateStatus.SKIP
    assert "imports subprocess" in gate.details["reason"]
    assert f.verdict is Verdict.ACCEPTED


@pytest.mark.parametrize(
    ("source", "how"),
    [
        ("import os\n\ndef test_x():\n    os.system('slug a')\n", "calls os.system"),
        ("def test_x(pytester):\n    pytester.runpytest_subprocess()\n", "uses pytester"),
        ("from click.testing import CliRunner\n\nrunner = CliRunner()\n", "uses CliRunner"),
        # frozendict 2.5.1's test_subinterpreter.py: the project runs in another interpreter
        (
            'import pytest\n\ninterpreters = pytest.importorskip("_xxsubinterpreters")\n',
            "runs code in another interpreter (_xxsubinterpreters)",
        ),
        (
            "import _testcapi\n\ndef test_x():\n    _testcapi.run_in_subinterp('1')\n",
            "runs code in another interpreter (_testcapi.run_in_subinterp)",
        ),
        ("import asyncio\n\ndef test_x():\n    asyncio.run(main())\n", None),
        ("import os\n\ndef test_x():\n    assert os.path.exists('.')\n", None),
    ],
)
def test_process_starts_are_seen_statically(source, how):
    assert process_start(source) == how


def test_the_verdict_of_a_file_that_imports_no_module_is_cached_under_every_module(project):
    from assay.pipeline import cache_key
    from assay.project import Project, candidate

    root = project(SLUG)
    proj = Project.load(root)
    fed = candidate(proj, "tests/test_fed.py", SLUG["tests/test_fed.py"])
    assert fed.targets == []
    before = cache_key(proj, fed, Settings(), "py")
    (root / "src/slug/core.py").write_text("def slugify(text):\n    return text\n")
    assert cache_key(proj, fed, Settings(), "py") != before


def test_a_package_read_whole_for_a_name_it_passes_on_is_a_way_into_the_project(project):
    """rfc3986's `import rfc3986; rfc3986.iri_reference(...)`; its own `__version__` is not."""
    root = project(
        {
            "kv/__init__.py": "from .api import parse\n\n__version__ = '1.0'\n",
            "kv/api.py": "def parse(text):\n    return text\n",
        }
    )
    proj = Project.load(root)
    bare = ["kv/__init__.py"]
    assert through_package(proj, "import kv\n\nkv.parse('a')\n", bare) == "kv.parse"
    assert through_package(proj, "import kv as k\n\nk.parse('a')\n", bare) == "k.parse"
    assert through_package(proj, "import kv\n\nassert kv.__version__\n", bare) is None
    assert through_package(proj, "from kv import parse\n\nparse('a')\n", bare) is None
