"""Fails: the expected value does not follow the contract (a reservation lowers availability)."""

from shop.inventory import Inventory


def test_reserve_lowers_available():
    inv = Inventory()
    inv.add("A", 5)
    inv.reserve("A", 2)
    assert inv.available("A") == 5
