"""Gate 4's observer on what a test receives that is not the same in every run, and on the parts
of a caught exception a test reads: a value that differs between two runs of the original code
(`datetime.now()` in the input, glom's `test_sample`) is left out and the test judged on the rest;
a test that reads attributes of the exception it caught (`caught.value.field`, rfc3986's
`captured_exc.value.args[-1]`) receives the exception's type and those attributes, not its text."""

from __future__ import annotations

from pathlib import Path

import pytest

from assay.api import verify
from assay.config import Settings
from assay.model import Verdict
from tests.conftest import write_project

pytestmark = pytest.mark.slow  # gate 4 on three files: 70 s at load 40

CORE = """
def echo(record):
    return dict(record)


def label(n):
    if n > 100:
        return "many"
    return "two" if n == 2 else "other"


class Refused(ValueError):
    def __init__(self, field, allowed):
        super().__init__(f"{field} must be one of {sorted(allowed)!r}", field)
        self._field = field
        self.allowed = allowed

    @property
    def field(self):
        return self._field


def check(field, value):
    allowed = {"a", "b"}
    if value not in allowed:
        raise Refused(field, allowed)
    return value


def inc(n):
    if n > 10**9:
        return 0
    return n + 1
"""

# the record's time differs in every run: what `echo` returns is never the same twice
UNSTEADY = """
import datetime

from recs.core import echo, label


def test_sample():
    record = {"when": datetime.datetime.now(), "n": 2}
    assert echo(record)["n"] == 2
    assert label(2) == "two"
"""

# the test reads the field the exception names (a property, as tomlkit's `e.value.line`), never
# its message nor what is allowed
FIELD = """
import pytest

from recs.core import Refused, check


def test_refused_names_the_field():
    with pytest.raises(Refused) as caught:
        check("mode", "z")
    assert caught.value.field == "mode"
    assert caught.value.args[-1] == "mode"


def test_allowed_passes():
    assert check("mode", "a") == "a"
"""


# 30,000 calls into the project: watched, each is an observation (far past the observer's limit)
MANY = """
from recs.core import inc


def test_many():
    assert sum(inc(i) for i in range(30000)) == 450015000
"""


@pytest.fixture(scope="module")
def judged(tmp_path_factory) -> dict[str, object]:
    root = write_project(
        tmp_path_factory.mktemp("unsteady") / "recs",
        {
            "src/recs/__init__.py": "",
            "src/recs/core.py": CORE,
            "tests/test_unsteady.py": UNSTEADY,
            "tests/test_field.py": FIELD,
            "tests/test_many.py": MANY,
        },
    )
    settings = Settings(gates=["compile", "green", "mutation"], cache=False)
    settings.sandbox.timeout_s = 20
    settings.mutation.max_survivors = 50
    report = verify(
        [root / "tests" / f"test_{n}.py" for n in ("unsteady", "field", "many")], settings
    )
    return {Path(f.path).name: f for f in report.files}


def _gate(f: object) -> object:
    return next(g for g in f.gates if g.gate == "mutation")  # type: ignore[attr-defined]


def _lines(gate: object, key: str) -> set[int]:
    return {m["line"] for m in gate.details[key]}  # type: ignore[attr-defined]


def test_a_value_that_differs_between_runs_of_the_original_is_left_out(judged):
    f = judged["test_unsteady.py"]
    gate = _gate(f)
    assert f.verdict is Verdict.ACCEPTED, gate.feedback
    # `n > 100` and the "other" text: label(2) returns "two" under each of their mutants
    assert {7, 9} <= _lines(gate, "unexercised_mutants"), gate.details["unexercised_mutants"]
    assert gate.details["survived"] == 0
    assert gate.details["killed"] > 0  # the steady calls still count: `n == 2`, "two"
    reasons = {m.get("reason", "") for m in gate.details["unexercised_mutants"]}
    assert any("left out: 1 of test_sample's 2 calls" in r for r in reasons), reasons


def test_the_attributes_a_test_reads_of_a_caught_exception_are_what_it_receives(judged):
    f = judged["test_field.py"]
    gate = _gate(f)
    assert f.verdict is Verdict.ACCEPTED, gate.feedback
    # what is allowed goes into the message and `allowed`: the test reads neither
    assert 24 in _lines(gate, "unexercised_mutants"), gate.details["survivors"]
    assert gate.details["survived"] == 0
    assert gate.details["killed"] > 0


def test_tests_the_observer_could_not_watch_are_named_with_what_they_leave_counted(judged):
    gate = _gate(judged["test_many.py"])
    assert gate.details["unobserved"]["tests"] == ["tests/test_many.py::test_many"], gate.details
    assert "3 x its own time" in gate.details["unobserved"]["limit"]
    # `n > 10**9`: survives, and stays counted: the test that covers it was not watched
    assert 31 in {m["line"] for m in gate.details["survivors"]}
    [note] = [n for n in gate.details["notes"] if "unobserved" in n]
    assert note.startswith("1 test ran unobserved (observed, slower than 3 x its own time")
    assert "test_many;" in note and "they cover counted as survived" in note, note
