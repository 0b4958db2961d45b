"""Gate 4 on a file that imports only a package whose `__init__` defines no function (it
re-exports, as `import more_itertools as mi`): no run against that `__init__` can reach a
function, so the run against the modules the tests reach comes first and is the only one. Counted
with a worker started per run (no worker on standby), which `worker_starts` then counts."""

from __future__ import annotations

from typing import ClassVar

import pytest

from assay import api
from assay.config import Settings
from assay.gates.compile import CompileGate
from assay.gates.green import GreenGate
from assay.gates.mutation import MutationGate
from assay.model import FileReport, Verdict
from assay.pipeline import Verifier
from assay.project import Project

LIB = {
    "src/slug/__init__.py": 'from slug.core import slugify\n\nVERSION = "1.0"\n',
    "src/slug/core.py": """
    def slugify(text):
        words = text.lower().split()
        return "-".join(w for w in words if w.isalnum())
    """,
    "tests/test_package.py": """
    import slug as s


    def test_joins_words():
        assert s.slugify("Hello World") == "hello-world"


    def test_drops_punctuation():
        assert s.slugify("a ! b") == "a-b"
    """,
    # reads a value of the package and runs none of its functions: both runs, as before
    "tests/test_version.py": """
    import slug


    def test_version():
        assert slug.VERSION == "1.0"
    """,
}


class ColdMutationGate(MutationGate):
    """Gate 4 with a sandboxed worker started for each run: `worker_starts` counts the runs."""

    uses_standby: ClassVar[bool] = False


def _verify(root, rel: str) -> FileReport:
    settings = Settings(gates=["compile", "green", "mutation"], cache=False, jobs=1)
    project = Project.load(root)
    gates = [CompileGate(settings), GreenGate(settings), ColdMutationGate(settings)]
    verifier = Verifier(project, settings, use_cache=False, gates=gates)
    try:
        report = verifier.verify_file(api.candidate(project, rel, (root / rel).read_text()))
    finally:
        verifier.close()
    assert report is not None
    return report


def _gate4(report: FileReport) -> dict:
    [gate] = [g for g in report.gates if g.gate == "mutation"]
    return gate.details


@pytest.mark.slow
def test_a_file_importing_a_package_without_functions_is_measured_once(project):
    """Slow (gates 1-4 of two files with a worker started per run: about 5 s of CPU)."""
    root = project(LIB)
    # a file that reaches no function gets both runs, and the verdict it got before
    version = _verify(root, "tests/test_version.py")
    details = _gate4(version)
    assert (details["worker_starts"], details["killed"], details["score"]) == (2, 0, None)
    assert "reached" not in details and version.verdict is Verdict.LOW_VALUE
    report = _verify(root, "tests/test_package.py")
    details = _gate4(report)
    assert details["reached"] == ["src/slug/core.py"]
    assert (details["killed"], details["score"]) == (2, 100.0)
    assert report.verdict is Verdict.ACCEPTED
    assert details["worker_starts"] == 1  # was 2: the run against the __init__ came first
