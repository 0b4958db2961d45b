"""Weak: passes and asserts, but would pass for almost any implementation (low mutation score)."""

from shop.pricing import line_total


def test_line_total_is_positive():
    assert line_total(250, 3) > 0


def test_bulk_line_total_is_positive():
    assert line_total(250, 12) > 0
