"""What a test's name says it pins (hashids 1.3.1, a module the writer never saw:
`test_hashids_encode_of_1_and_minus_2_and_3_returns`, a name cut after its verb, for a call that
returns ''; `b''` was named `_returns_b`)."""

from __future__ import annotations

import pytest

from assay.writers.offline.probe import Kept
from assay.writers.offline.render import render


@pytest.mark.parametrize(
    ("expr", "ending"),
    [
        ("''", "_returns_empty_string"),
        ("b''", "_returns_empty_bytes"),
        ("()", "_returns_empty_tuple"),
        ("[]", "_returns_empty_list"),
        ("{}", "_returns_empty_dict"),
        ("set()", "_returns_empty_set"),
        ("'ab'", "_returns_ab"),
    ],
)
def test_a_test_of_one_call_names_the_value_it_returns_even_when_empty(expr, ending):
    k = Kept(
        "k",
        "encode",
        {"args": ["1", "-2"], "kwargs": {}, "receiver": None},
        {"k": "return", "expr": expr, "imports": []},
        set(),
        {"m1"},
    )
    text = render("ids", [k], {"encode": "function"}, {}, {"ids"}, ["encode"]).text
    assert f"def test_encode_of_1_and_minus_2{ending}():" in text, text
