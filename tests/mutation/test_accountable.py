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


class Lexer:
    default = None

    @classmethod
    def get_default(cls):
        if cls.default is None:
            cls.default = cls()
            cls.default.rules = [("float", r"[0-9]+[.][0-9]*")]
            cls.default.words = []
            cls.default.words.append({"select": "keyword"})
        return cls.default


import string


class Quoted(string.Formatter):
    def convert_field(self, value, conversion):
        return "'" + str(value) + "'"


def positive(n):
    if n <= 0:
        raise ValueError(Quoted().format("{0} is not positive", n))
    return n
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
    with pytest.raises(Exception, match="empty"):  # reads the message, and "XXemptyXX" matches
        parse("")


def test_add_runs():
    Tally().add(1)


def test_each_calls_back():
    seen = []

    def visit(n):
        seen.append(n)

    each([1], visit)
"""

# sound: each test checks the type of what it refuses and reads nothing else of it, so a mutant
# of the message alone changes nothing they could see (glom's `raises(CheckError)`)
REFUSED = """
import pytest

from slugs.core import parse


def test_empty_is_refused():
    with pytest.raises(ValueError):
        parse("")


def test_empty_is_refused_by_the_call_form():
    pytest.raises(ValueError, parse, "")


def test_digits_are_read():
    assert parse("42") == 42
"""

# sqlparse's shape: the test takes one attribute of the object a call returns; a mutant of the
# object's other attributes changes nothing it received (the weak file takes the whole object)
TAKEN = """
import re

from slugs.core import Lexer


def test_a_float_is_a_float():
    name, pattern = Lexer.get_default().rules[0]
    assert (name, bool(re.fullmatch(pattern, "1.5"))) == ("float", True)
"""
WHOLE = """
from slugs.core import Lexer


def test_the_default_has_rules():
    lexer = Lexer.get_default()
    assert lexer.rules[0][0] == "float"
"""

# glom's shape: the message is built by the standard library calling back into the project
# (`string.Formatter.convert_field`); the test reads only the exception's type
FORMATTED = """
import pytest

from slugs.core import positive


def test_zero_is_refused():
    with pytest.raises(ValueError):
        positive(0)


def test_two_is_kept():
    assert positive(2) == 2
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
            "tests/test_refused.py": REFUSED,
            "tests/test_taken.py": TAKEN,
            "tests/test_whole.py": WHOLE,
            "tests/test_formatted.py": FORMATTED,
        },
    )
    settings = Settings(gates=["compile", "green", "mutation"], cache=False)
    settings.sandbox.timeout_s = 20
    settings.mutation.max_survivors = 50
    files = ["boundary", "weak", "refused", "taken", "whole", "formatted"]
    report = verify([root / "tests" / f"test_{name}.py" for name in files], settings)
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


def test_an_exception_caught_by_type_alone_is_received_by_its_type(judged):
    f = judged["test_refused.py"]
    gate = _gate(f)
    assert f.verdict is Verdict.ACCEPTED, gate.feedback
    unexercised = {(m["line"], m["mutated"]) for m in gate.details["unexercised_mutants"]}
    # the message changes; the type the tests check does not
    assert (31, "raise ValueError('XXemptyXX')") in unexercised
    assert gate.details["survived"] == 0
    assert gate.details["killed"] > 0  # `if text:` raises on "42"


def test_the_one_attribute_a_test_takes_of_a_result_is_what_it_receives(judged):
    taken, whole = _gate(judged["test_taken.py"]), _gate(judged["test_whole.py"])
    words = 57  # cls.default.words.append({"select": "keyword"})
    assert judged["test_taken.py"].verdict is Verdict.ACCEPTED, taken.feedback
    assert words in {m["line"] for m in taken.details["unexercised_mutants"]}
    assert taken.details["survived"] == 0
    # the test that holds the whole object received the change, and is charged for it
    assert words in {m["line"] for m in whole.details["survivors"]}


def test_what_the_project_computes_through_other_code_is_not_received_on_the_way(judged):
    f = judged["test_formatted.py"]
    gate = _gate(f)
    assert f.verdict is Verdict.ACCEPTED, gate.feedback
    # the quotes only the message holds: `string.Formatter` hands them back to the project
    quoted = {m["line"] for m in gate.details["unexercised_mutants"]}
    assert 66 in quoted, gate.details["unexercised_mutants"]
    assert gate.details["survived"] == 0


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


def test_a_text_holding_a_default_repr_is_the_same_text_in_every_run():
    # glom's messages and reprs embed `<function ... at 0x7f...>`: a new address each run made
    # every test that read one unstable, and every survivor it covered counted
    first, second = (f"Check(validate={f!r})" for f in (lambda: 1, lambda: 2))
    assert first != second
    assert _fingerprint(first) == _fingerprint(second)
    assert _fingerprint("0xff") != _fingerprint("0xfe")  # hex a project writes still counts
    assert _fingerprint("<object at 0x7f12>") != _fingerprint("<object at 0x7f13>")  # too short
