"""Which lines of a test file catch an exception by its type alone (gate 4's observer then keeps
only the type of what the project raises there) and which let the test read it."""

from __future__ import annotations

import re

from assay._assay_sandbox.mutation.taken import caught_lines

SOURCE = """
import pytest

def test_forms(self):
    with pytest.raises(ValueError):
        plain()
    with pytest.raises(ValueError, match="empty"):
        matched()
    with pytest.raises(ValueError) as excinfo:
        read_later()
    assert "x" in str(excinfo.value)
    with raises(KeyError) as unused:
        named_not_read(
            1)
    try:
        in_try()
    except KeyError:
        pass
    try:
        with raises(KeyError):
            inside_a_reader()
    except Exception as err:
        print(err)
    pytest.raises(ValueError, call_form, 1)
    self.assertRaises(ValueError, unittest_call_form)
    info = pytest.raises(ValueError, kept_call_form)
    with self.assertRaisesRegex(ValueError, "x"):
        regex()
    with self.assertRaises(ValueError) as cm:
        context_read()
    cm.exception
    with self.assertRaises(ValueError):
        def later():
            nested_def()
    after()
"""


def _caught(name: str) -> bool | None:
    """What catches the line that calls `name` (each is called on one line only)."""
    (number,) = [
        i for i, text in enumerate(SOURCE.splitlines(), 1) if re.search(rf"\b{name}\b", text)
    ]
    return caught_lines(SOURCE).get(number)


def test_a_catcher_that_lets_the_test_read_nothing_of_the_exception_is_by_type():
    for name in ("plain", "named_not_read", "in_try", "call_form", "unittest_call_form"):
        assert _caught(name) is True, name
    assert caught_lines(SOURCE)[SOURCE.splitlines().index("            1)") + 1] is True


def test_a_catcher_that_reads_the_message_or_the_object_is_not():
    for name in ("matched", "read_later", "inside_a_reader", "regex", "context_read"):
        assert _caught(name) is False, name


def test_lines_no_catcher_is_around_are_absent():
    # a nested function is caught only by what is around it inside it
    for name in ("nested_def", "after", "kept_call_form"):
        assert _caught(name) is None, name
    assert caught_lines("def broken(:\n") == {}


READS = """
import pytest

def test_reads(self):
    with pytest.raises(Refused) as caught:
        by_field()
    assert caught.value.field == "mode" and caught.value.args[-1] == "mode"
    assert caught.type is Refused
    with self.assertRaises(Refused) as cm:
        by_code()
    assert cm.exception.code == 2
    try:
        in_try()
    except Refused as err:
        assert err.field == "x"
    with pytest.raises(Refused) as whole:
        read_whole()
    assert whole.value.args == ("m",) and whole.match("m")
    with pytest.raises(Refused) as held:
        read_held()
    kept = held.value
"""


def test_a_catcher_read_only_through_attributes_of_the_exception_gives_those_attributes():
    lines = caught_lines(READS)
    rows = READS.splitlines()

    def at(name: str) -> object:
        return lines.get(next(i for i, t in enumerate(rows, 1) if re.search(rf"\b{name}\b", t)))

    assert at("by_field") == (("args", -1), ("field", None))
    assert at("by_code") == (("code", None),)
    assert at("in_try") == (("field", None),)
    # a method of the exception info (`match` reads the text), the whole exception held
    assert at("read_whole") is False
    assert at("read_held") is False


# rfc3986's test_validators.py: the exception given a name of its own, then read by attributes
ALIASED = """
import pytest

def test_aliased(self):
    with pytest.raises(Missing) as captured_exc:
        by_alias()
    exception = captured_exc.value
    assert 2 == len(exception.args[-1])
    with pytest.raises(Refused) as caught_exc:
        by_attribute()
    exc = caught_exc.value
    assert exc.component_name == "host"
    with pytest.raises(Refused) as whole:
        by_text()
    err = whole.value
    assert "host" in str(err)
    with pytest.raises(Refused) as twice:
        stored_twice()
    again = twice.value
    again = None
    assert again is None
"""


def test_an_exception_given_a_name_read_only_through_attributes_gives_those_attributes():
    lines = caught_lines(ALIASED)
    rows = ALIASED.splitlines()

    def at(name: str) -> object:
        return lines.get(next(i for i, t in enumerate(rows, 1) if re.search(rf"\b{name}\b", t)))

    assert at("by_alias") == (("args", -1),)
    assert at("by_attribute") == (("component_name", None),)
    # the alias read whole (its text), or a name that holds something else later
    assert at("by_text") is False
    assert at("stored_twice") is False
