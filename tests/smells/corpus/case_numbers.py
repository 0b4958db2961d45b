# ruff: noqa
# Corpus for AS016: bounds and adjustments are magic; the expected side of an equality is not.
import unittest
from datetime import date, timedelta
from decimal import Decimal

import pytest

from pricing import Cart, parse, parse_date, total


def test_expected_number_is_fine():
    assert parse("P3Y") == 434


def test_expected_number_on_the_left_is_fine():
    assert 434 == parse("P3Y")


def test_year_in_a_date_is_fine():
    assert parse_date("2001-02-03") == date(2001, 2, 3)


def test_year_in_the_input_is_fine():
    assert parse_date("2001-02-25").replace(year=2001) - timedelta(434) == parse_date("1999-12-17")


def test_value_objects_and_containers_are_fine():
    assert total([Decimal("4213.5")]) == Decimal("4213.5")
    assert parse("x") in {11, 22}
    assert parse("list") == [1024, 2048]
    assert total([0.1, 0.2]) == pytest.approx(4213.5, rel=1e-9)


def test_upper_bound():
    assert len(parse("x" * 5000)) <= 4096  # expect[AS016]


def test_range_check():
    count = total([1, 2])
    assert 940 <= count and count <= 1280  # expect[AS016]


def test_adjusted_actual():
    assert total([4000]) - 213 == 3787  # expect[AS016]


def test_bound_negated():
    assert not total([1]) > 5000  # expect[AS016]


class TestUnittestStyle(unittest.TestCase):
    def test_assert_equal_expected_is_fine(self):
        self.assertEqual(parse("P3Y"), 434)
        self.assertEqual(434, parse("P3Y"))
        self.assertAlmostEqual(total([1.5]), 4213.5, places=3)
        self.assertIn(4213, parse("all"))

    def test_assert_less(self):
        self.assertLess(total([1]), 256 * 1024)  # expect[AS016]

    def test_assert_true_with_bound(self):
        self.assertTrue(total([1]) < 4096)  # expect[AS016]

    def test_subscript_and_call_arguments_are_fine(self):
        self.assertTrue(parse("x")[4096] == "y")
        self.assertEqual(Cart(size=4096).size, 4096)
