# ruff: noqa
# targets: lowvalue/shapes.py
import pytest

from lowvalue.shapes import Account, Kind, Point, Validated, area, describe, label, short_label


def test_enum_mapping():  # expect[AS020]
    assert label(Kind.SQUARE) == "square"


def test_dict_mapping():  # expect[AS020]
    assert short_label("sq") == "square"


def test_if_chain_mapping():  # expect[AS020]
    assert describe("rd") == "round"


def test_getter():  # expect[AS020]
    acct = Account("ann", 10)
    assert acct.get_owner() == "ann"


def test_fields_of_literal_object():  # expect[AS021]
    p = Point(1, 2)
    assert p.x == 1
    assert p.y == 2


def test_property_and_str():  # expect[AS021]
    acct = Account("ann", 10)
    assert acct.balance == 10
    assert str(acct) == "ann"


def test_enum_value():  # expect[AS021]
    assert Kind.ROUND.value == "round"


def test_computation_is_fine():
    assert area(Kind.SQUARE, 2, 3) == 6


def test_method_with_logic_is_fine():
    acct = Account("ann", 10)
    assert acct.withdraw(3) == 7


def test_error_case_is_fine():
    acct = Account("ann", 10)
    with pytest.raises(ValueError, match="insufficient"):
        acct.withdraw(30)


def test_distance_is_fine():
    assert Point(0, 0).distance(Point(3, 4)) == 5


def test_validating_constructor_is_fine():
    assert Validated(3).n == 3


def test_unknown_helper_is_fine():
    acct = make_account()
    assert acct.balance == 10
