"""Gate 4 charges a file only for the mutants that change something its tests receive from the
project: a sound test of one option of a big function is not rejected for code of another option
its inputs never reach; a test that receives a changed value, exception or object state and does
not check it still is."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from assay._assay_sandbox.mutation.observe import Walk
from assay.api import verify
from assay.config import Settings
from assay.model import GateStatus, Verdict
from tests.conftest import write_project

# python-slugify's shape: one function, several options; entity decoding runs only on a "&"
CORE = """import re

ENTITY = re.compile(r"&(\\w+);")
NAMES = {"amp": "and", "lt": "less", "gt": "more"}


def slug(text, max_length=0, word_boundary=False, entities=True, separator="-"):
    text = text.lower()
    if entities and "&" in text:
        text = ENTITY.sub(lambda m: " " + NAMES.get(m.group(1), m.group(1)) + " ", text)
        text = text.replace("&", " and ")
        text = text.replace("  ", " ")
    words = re.findall(r"[a-z0-9]+", text)
    out = separator.join(words)
    if max_length and len(out) > max_length:
        if word_boundary:
            cut = ""
            for word in words:
                candidate = word if not cut else cut + separator + word
                if len(candidate) > max_length:
                    break
                cut = candidate
            out = cut
        else:
            out = out[:max_length].strip(separator)
    return out


def parse(text):
    if not text:
        raise ValueError("empty")
    return int(text)


class Tally:
    def __init__(self):
        self.items = []

    def add(self, n):
        self.items.append(n * 2)


def each(items, visit):
    for item in items:
        visit(item + 1)
"""

BOUNDARY = """
from slugs.core import slug


def test_cut_at_a_word_boundary():
    assert slug("Hello big World", max_length=9, word_boundary=True) == "hello-big"
    assert slug("Hello big World", max_length=11, word_boundary=True) == "hello-big"


def test_cut_anywhere():
    assert slug("Hello big World", max_length=7) == "hello-b"


def test_short_enough():
    assert slug("Hello big World", max_length=15, word_boundary=True) == "hello-big-world"
"""

# each test receives what the mutants change (a return value, an exception, an object's state,
# a callback's argument) and checks none of it
WEAK = """
import pytest

from slugs.core import Tally, each, parse, slug


def test_boundary_runs():
    assert isinstance(slug("Hello big World", max_length=9, word_boundary=True), str)


def test_empty_is_refused():
    with pytest.raises(Exception):
        parse("")


def test_add_runs():
    Tally().add(1)


def test_each_calls_back():
    seen = []

    def visit(n):
        seen.append(n)

    each([1], visit)
"""


@pytest.fixture(scope="module")
def judged(tmp_path_factory) -> dict[str, object]:
    root = write_project(
        tmp_path_factory.mktemp("accountable") / "slugs",
        {
            "src/slugs/__init__.py": "",
            "src/slugs/core.py": CORE,
            "tests/test_boundary.py": BOUNDARY,
            "tests/test_weak.py": WEAK,
        },
    )
    settings = Settings(gates=["compile", "green", "mutation"], cache=False)
    settings.sandbox.timeout_s = 20
    settings.mutation.max_survivors = 50
    report = verify([root / "tests/test_boundary.py", root / "tests/test_weak.py"], settings)
    return {Path(f.path).name: f for f in report.files}


def _gate(f: object) -> object:
    return next(g for g in f.gates if g.gate == "mutation")  # type: ignore[attr-defined]


def test_a_sound_test_of_one_option_is_not_charged_for_code_its_inputs_never_reach(judged):
    f = judged["test_boundary.py"]
    gate = _gate(f)
    assert f.verdict is Verdict.ACCEPTED, gate.feedback
    assert gate.status in (GateStatus.PASS, GateStatus.WARN)
    # the entity branch (its condition's mutants survive, its body never runs) is listed, apart
    unexercised = {(m["line"], m["mutated"]) for m in gate.details["unexercised_mutants"]}
    assert (9, 'if entities and "&" not in text:') in unexercised
    assert any(line == 11 for line, _ in unexercised)
    assert gate.details["survived"] == 0


def test_a_test_that_receives_a_changed_value_and_checks_nothing_is_still_rejected(judged):
    f = judged["test_weak.py"]
    gate = _gate(f)
    assert (f.verdict, gate.status) == (Verdict.REJECTED, GateStatus.REJECT)
    survivors = {(m["line"], m["mutated"]) for m in gate.details["survivors"]}
    # a changed return value, a changed exception, a changed object state: each counts
    assert (20, "if len(candidate) >= max_length:") in survivors
    assert (31, "raise ValueError('XXemptyXX')") in survivors
    assert (40, "self.items.append(n / 2)") in survivors
    assert (45, "visit(item - 1)") in survivors  # what the project hands the test's callback
    assert "Not counted:" in gate.feedback
    assert gate.details["unexercised"] > 0


def _fingerprint(value: object) -> str:
    h = hashlib.blake2b(digest_size=8)
    Walk(h, 500).feed(value)
    return h.hexdigest()


class Node:
    def __init__(self, name: str) -> None:
        self.name = name
        self.next: Node | None = None


class Hostile:
    @property
    def __dict__(self):  # type: ignore[override]
        raise RuntimeError("no")


def test_fingerprints_are_stable_and_see_what_changed():
    assert _fingerprint({"b", "a", "c"}) == _fingerprint({"c", "a", "b"})
    assert _fingerprint(object()) == _fingerprint(object())  # addresses left out
    loop = Node("a")
    loop.next = loop
    other = Node("b")
    other.next = other
    assert _fingerprint(loop) != _fingerprint(other)  # a cycle ends, the state still counts
    assert _fingerprint(ValueError("x")) != _fingerprint(ValueError("y"))
    assert _fingerprint([1.0]) != _fingerprint([1])
    assert _fingerprint(Hostile()) == _fingerprint(Hostile())  # never raises
