"""Tautological: the expected value is computed by the code under test itself."""

from shop.pricing import apply_discount


def test_discount_matches_itself():
    expected = apply_discount(1000, 15)
    assert apply_discount(1000, 15) == expected
