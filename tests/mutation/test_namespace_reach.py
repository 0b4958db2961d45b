"""A file that reaches the project through a package it imports whole (`import rfc3986`, then
`rfc3986.iri_reference(...)`: the package's `__init__` only passes names on) is held to the modules
its tests reach, as when the package is all it imports; importing an exception class of another
module for `pytest.raises` (rfc3986's `test_iri.py`) must not shrink that to the exception's module
and leave the other tests "reaching no mutant" of code they run."""

from __future__ import annotations

import pytest

from assay.api import verify
from assay.config import Settings
from assay.model import Verdict
from tests.conftest import write_project

pytestmark = pytest.mark.slow  # gate 4 on one file

INIT = """
from .api import parse

__version__ = "1.0"
"""

API = """
from .core import split_pairs


def parse(text):
    return split_pairs(text)
"""

CORE = """
from .errors import Bad


def split_pairs(text):
    if not text:
        raise Bad(text)
    out = {}
    for part in text.split(";"):
        key, _, value = part.partition("=")
        out[key.strip()] = value.strip()
    return out
"""

ERRORS = """
class Bad(ValueError):
    def __init__(self, text):
        super().__init__(f"nothing to parse in {text!r}")
"""

TEST = """
import pytest

import kv
from kv.errors import Bad


def test_pairs():
    assert kv.parse("a=1; b = 2") == {"a": "1", "b": "2"}


def test_one():
    assert kv.parse("x=") == {"x": ""}


def test_empty_is_refused():
    with pytest.raises(Bad):
        kv.parse("")
"""


def test_a_package_imported_whole_holds_the_file_to_the_modules_its_tests_reach(tmp_path):
    root = write_project(
        tmp_path / "kv",
        {
            "src/kv/__init__.py": INIT,
            "src/kv/api.py": API,
            "src/kv/core.py": CORE,
            "src/kv/errors.py": ERRORS,
            "tests/test_kv.py": TEST,
        },
    )
    settings = Settings(gates=["compile", "green", "mutation"], cache=False)
    settings.sandbox.timeout_s = 20
    [f] = verify([root / "tests" / "test_kv.py"], settings).files
    gate = next(g for g in f.gates if g.gate == "mutation")
    scored = {m["file"] for m in gate.details["modules"]}
    assert "src/kv/core.py" in scored, gate.details["modules"]
    low = [(t.id, t.reason) for t in f.tests if t.verdict is Verdict.LOW_VALUE]
    assert low == [], low
    assert gate.details["killed"] > 0
