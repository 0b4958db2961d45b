# ruff: noqa
# Corpus for AS011: checks that may never run, and loops over tables of cases.
import itertools
import unittest

import pytest

from pricing import Cart, chunked, discount, parse, total

TABLE = {"a": 1, "b": 2}
ONE_CASE = [(1, 1)]


@pytest.mark.parametrize("text, expected", [("1", 1), ("x", None)])
def test_if_else_both_assert_is_fine(text, expected):
    if expected is None:
        with pytest.raises(ValueError):
            parse(text)
    else:
        assert parse(text) == expected


@pytest.mark.parametrize("kind", ["a", "b", "c"])
def test_elif_chain_all_assert_is_fine(kind):
    if kind == "a":
        assert parse(kind) == 1
    elif kind == "b":
        assert parse(kind) == 2
    else:
        pytest.fail(f"unknown kind {kind}")


def test_branch_that_skips_is_fine():
    cart = Cart()
    if cart.supports_discounts:
        assert discount(cart) == 0
    else:
        pytest.skip("discounts are off in this build")


@pytest.mark.parametrize("kind", ["a", "b", "c"])
def test_elif_chain_without_else(kind):
    if kind == "a":  # expect[AS011]
        assert parse(kind) == 1
    elif kind == "b":
        assert parse(kind) == 2


@pytest.mark.parametrize("kind", ["a", "b"])
def test_if_without_else(kind):
    result = parse(kind)
    if result:  # expect[AS011]
        assert result == 1


@pytest.mark.parametrize("kind", ["a", "b"])
def test_branch_that_only_prepares_is_fine_when_the_check_follows(kind):
    if kind == "a":
        kind = kind.upper()
    assert parse(kind) in (1, 2)


@pytest.mark.parametrize("kind", ["a", "b", "c"])
def test_match_with_catch_all_is_fine(kind):
    match kind:
        case "a":
            assert parse(kind) == 1
        case _:
            with pytest.raises(ValueError):
                parse(kind)


@pytest.mark.parametrize("kind", ["a", "b"])
def test_match_without_catch_all(kind):
    match kind:  # expect[AS011]
        case "a":
            assert parse(kind) == 1
        case "b":
            assert parse(kind) == 2


def test_nested_if_inside_an_all_asserting_if(self=None):
    cart = Cart()
    if cart.empty:
        if cart.locked:  # expect[AS011]
            assert total(cart) == 0
        assert cart.size == 0
    else:
        assert cart.size > 0


def test_loop_over_a_literal_table():
    for text, expected in [("1", 1), ("2", 2)]:  # expect[AS011]
        assert parse(text) == expected


def test_loop_over_a_local_table_through_enumerate():
    cases = ["1", "2", "3"]
    for i, text in enumerate(cases, 1):  # expect[AS011]
        assert parse(text) == i


def test_loop_over_a_module_dict_items():
    for text, expected in TABLE.items():  # expect[AS011]
        assert parse(text) == expected


def test_loop_probing_membership():
    cart = Cart([1, 2])
    for missing in (30, 40, 50):  # expect[AS011]
        assert missing not in cart


def test_loop_over_indexes():
    cart = Cart([1, 2])
    for index in [5, -5]:  # expect[AS011]
        with pytest.raises(IndexError):
            cart[index]


def test_loop_over_results_of_calls():
    for actual in [total([1, 2]), total([2, 1])]:  # expect[AS011]
        assert actual == 3


def test_successive_states_are_fine():
    it = chunked([1, 2, 3, 4], 2)
    for expected in ([1, 2], [3, 4]):
        assert next(it) == expected


def test_nested_loop_over_a_row_is_one_finding():
    for args, members in [((1, 2), (1,)), ((3, 4), (3, 4))]:  # expect[AS011]
        cart = Cart(*args)
        for m in members:
            assert m in cart.items()


def test_loop_over_one_case_is_fine():
    for text, expected in ONE_CASE:
        assert discount(text) == expected


def test_loop_over_the_result_is_fine():
    for chunk in chunked(range(9), 3):
        assert len(chunk) == 3


def test_loop_over_a_computed_domain_is_fine():
    for a, b in itertools.product(range(5), repeat=2):
        assert total([a, b]) == a + b


def test_random_trials_are_fine():
    for _ in range(100):
        assert 0 <= discount(7) <= 7


def test_stepping_an_iterator_is_fine():
    it = chunked([1, 2, 3, 4], 2)
    k = 0
    while k < 2:
        assert len(next(it)) == 2
        k += 1


class TestTable(unittest.TestCase):
    CASES = [("1", 1), ("2", 2)]

    def test_loop_over_a_class_table(self):
        for text, expected in self.CASES:  # expect[AS011]
            self.assertEqual(parse(text), expected)

    def test_loop_with_subtest_is_fine(self):
        for text, expected in self.CASES:
            with self.subTest(text=text):
                self.assertEqual(parse(text), expected)
