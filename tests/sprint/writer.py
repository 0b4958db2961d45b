"""A scripted test writer for `command:` (prompt on stdin, answer on stdout): the tests a model
would write for the fixture's two core tasks, chosen by the function the prompt asks about."""

import sys

PRICING = """
import pytest

from shop.pricing import apply_discount


def test_discount_takes_percentage_off():
    assert apply_discount(1000, 15) == 850


def test_discount_bounds_are_allowed():
    assert apply_discount(1000, 0) == 1000
    assert apply_discount(1000, 100) == 0


@pytest.mark.parametrize("percent", [-1, 101])
def test_discount_out_of_range_is_refused(percent):
    with pytest.raises(ValueError, match="out of range"):
        apply_discount(1000, percent)
"""
STOCK = """
import pytest

from shop.stock import Stock


def test_refund_puts_items_back():
    stock = Stock()
    stock.add("A", 2)
    assert stock.refund("A", 3) == 5
    assert stock.items == {"A": 5}


@pytest.mark.parametrize("n", [0, -1])
def test_refund_of_nothing_is_refused(n):
    with pytest.raises(ValueError, match="positive"):
        Stock().refund("A", n)
"""

prompt = sys.stdin.read()
if "sort a software team's sprint tasks" in prompt:
    print("unsure")  # the task no rule classifies stays unclassified
elif "rounded down to the cent" in prompt:
    print("no code: the stale docstring reached the writer")  # docs debt must be withheld
else:
    code = PRICING if "apply_discount" in prompt else STOCK
    print(f"```python\n{code.lstrip()}```")
