"""Trivial: only reads back fields that were just set from literals."""

from shop.inventory import Item


def test_item_fields():
    item = Item("SKU-1", "Mug", 450)
    assert item.sku == "SKU-1"
    assert item.name == "Mug"
    assert item.price_cents == 450
