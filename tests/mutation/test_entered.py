"""Gate 4 holds a file whose tests reach the project only through other code (python-dotenv's
`test_ipython.py` runs the `%dotenv` magic through IPython and reads `os.environ`) to the modules
that code enters, not to everything they delegate to (issue 25, point 4)."""

from __future__ import annotations

import pytest

from assay.api import verify
from assay.config import Settings
from assay.model import Verdict
from assay.mutation.entered import beyond_entries, narrow
from assay.mutation.model import MutantResult, MutationResult, Status
from assay.mutation.mutants import generate
from tests.conftest import write_project

# the parser counts lines only for its warnings: no test of the handler can see that count
ENVFILE = """\
import warnings


class Reader:
    def __init__(self, text):
        self.text = text
        self.line = 1

    def pairs(self):
        for raw in self.text.split("\\n"):
            if "=" in raw:
                key, value = raw.split("=", 1)
                yield key.strip(), value.strip()
            elif raw.strip():
                warnings.warn(f"line {self.line}: no '=' in {raw!r}")
            self.line += 1


def parse(text):
    return dict(Reader(text).pairs())
"""
# the extension: a logging handler, built and called by `logging.config`, never by the tests
HANDLER = """\
import logging
import os

from pkg.envfile import parse


class EnvHandler(logging.Handler):
    def __init__(self, override):
        super().__init__()
        self.override = override

    def emit(self, record):
        for key, value in parse(record.getMessage()).items():
            if self.override or key not in os.environ:
                os.environ[key] = value
"""
# imports nothing of the project: logging builds the handler from a dotted name and calls it
TEST = """\
import logging
import logging.config
import os
from unittest import mock


def logger(override):
    handler = {"()": "pkg.handler.EnvHandler", "override": override}
    logging.config.dictConfig(
        {
            "version": 1,
            "handlers": {"env": handler},
            "loggers": {"envload": {"handlers": ["env"], "level": "INFO"}},
        }
    )
    return logging.getLogger("envload")


@mock.patch.dict(os.environ, {"a": "c"}, clear=True)
def test_keeps_what_is_set():
    logger(False).info("a=b\\nx=y")
    assert os.environ == {"a": "c", "x": "y"}


@mock.patch.dict(os.environ, {"a": "c"}, clear=True)
def test_overrides():
    logger(True).info("a=b")
    assert os.environ == {"a": "b"}
"""
SCOPE = {
    "pkg/handler.py": ["EnvHandler.__init__", "EnvHandler.emit"],
    "pkg/envfile.py": ["Reader.__init__", "Reader.pairs", "parse"],
}
SOURCES = {"pkg/handler.py": HANDLER, "pkg/envfile.py": ENVFILE}


def test_the_functions_no_project_code_refers_to_are_the_entry_points():
    entries, beyond = beyond_entries(SCOPE, SOURCES)
    # a constructor runs through its class, which only logging names (in a string)
    assert entries == {"pkg/handler.py": ["EnvHandler.__init__", "EnvHandler.emit"]}
    assert beyond == {"pkg/envfile.py": ["Reader.__init__", "Reader.pairs", "parse"]}


def test_a_module_the_project_calls_back_into_is_no_entry():
    """`Reader` refers to the handler's `emit` (a callback it runs): only the parser is entered."""
    sources = {**SOURCES, "pkg/envfile.py": ENVFILE + "\n\ndef feed(handler):\n    handler.emit\n"}
    scope = {**SCOPE, "pkg/envfile.py": [*SCOPE["pkg/envfile.py"], "feed"]}
    entries, beyond = beyond_entries(scope, sources)
    assert entries == {"pkg/handler.py": ["EnvHandler.__init__"], "pkg/envfile.py": ["feed"]}
    assert beyond == {}  # every reached module holds an entry: the scope stays whole


def _run(handler: Status) -> MutationResult:
    """A run over SCOPE whose handler mutants all ended `handler`, the parser's all survived."""
    mutants = [m for rel, text in SOURCES.items() for m in generate(rel, text)]
    results = {
        m.id: MutantResult(handler if m.file == "pkg/handler.py" else Status.SURVIVED)
        for m in mutants
    }
    scope = {rel: list(names) for rel, names in SCOPE.items()}
    return MutationResult(mutants, results, dict(SOURCES), scope=scope)


def test_the_mutants_beyond_the_entry_modules_are_set_aside():
    run = _run(Status.KILLED)
    parser = sum(m.file == "pkg/envfile.py" for m, _ in run.scored)
    entered = narrow(run, SOURCES)
    assert entered is not None and entered.mutants == parser > 5
    assert {m.file for m, _ in run.scored} == {"pkg/handler.py"}
    assert run.scope == {"pkg/handler.py": SCOPE["pkg/handler.py"], "pkg/envfile.py": []}


def test_entry_modules_with_no_mutant_that_counts_keep_the_whole_scope():
    """Else a file whose framework enters a module with only equivalent mutants would be
    accountable for nothing, and pass."""
    run = _run(Status.IGNORED)
    before = len(run.results)
    assert narrow(run, SOURCES) is None
    assert len(run.results) == before


@pytest.mark.slow
def test_a_file_is_accountable_for_the_module_a_framework_enters(tmp_path):
    """Slow: one whole gate-4 run (about 5 s on a quiet machine). Before, the file was rejected
    for the parser's line counting, which no value the handler sets depends on; then the parser's
    mutants ran, only to be set aside after."""
    root = write_project(
        tmp_path / "p",
        {
            "pkg/__init__.py": "",
            "pkg/envfile.py": ENVFILE,
            "pkg/handler.py": HANDLER,
            "tests/test_handler.py": TEST,
        },
    )
    settings = Settings(gates=["compile", "green", "mutation"], cache=False)
    (f,) = verify([root / "tests/test_handler.py"], settings).files
    gate = f.gates[-1]
    assert f.verdict is Verdict.ACCEPTED, gate.feedback
    entered = gate.details["entered"]
    assert entered["entries"] == [
        "pkg/handler.py::EnvHandler.__init__",
        "pkg/handler.py::EnvHandler.emit",
    ]
    assert entered["not_counted"] == ["pkg/envfile.py"]
    assert entered["mutants"] == 16  # with `yield key, value` -> `yield None` (yield_value)
    assert entered["not_run"] == 16  # decided from the baseline's facts, before any mutant ran
    assert gate.details["notes"][0].startswith(
        "16 mutants of pkg/envfile.py not counted: the tests"
    )
    assert gate.details["notes"][0].endswith("(16 set aside before they ran)")
    assert gate.details["reached"] == ["pkg/envfile.py", "pkg/handler.py"]
