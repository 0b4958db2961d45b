"""Good: exact expected values, boundaries, and the error path."""

from decimal import Decimal

import pytest

from shop.pricing import apply_discount, line_total, round_cents, with_tax


@pytest.mark.parametrize(("amount", "expected"), [("0.5", 1), ("1.49", 1), ("2.5", 3), ("-0.5", -1)])
def test_round_cents_rounds_half_up(amount, expected):
    assert round_cents(Decimal(amount)) == expected


def test_apply_discount_takes_percentage_off():
    assert apply_discount(1000, 15) == 850
    assert apply_discount(999, 50) == 500


def test_apply_discount_accepts_bounds():
    assert apply_discount(1000, 0) == 1000
    assert apply_discount(1000, 100) == 0


@pytest.mark.parametrize("percent", [-1, 100.5])
def test_apply_discount_rejects_out_of_range(percent):
    with pytest.raises(ValueError, match="out of range"):
        apply_discount(1000, percent)


def test_line_total_below_bulk_threshold_has_no_discount():
    assert line_total(250, 9) == 2250


def test_line_total_from_bulk_threshold_on_is_discounted():
    assert line_total(250, 10) == 2375
    assert line_total(199, 11) == 2080


def test_line_total_rejects_non_positive_quantity():
    with pytest.raises(ValueError, match="positive"):
        line_total(100, 0)


def test_with_tax_uses_default_and_given_rate():
    assert with_tax(1000) == 1200
    assert with_tax(1000, 0.07) == 1070
