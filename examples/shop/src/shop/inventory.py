"""Stock keeping: items, quantities, reservations."""

from __future__ import annotations

from dataclasses import dataclass, field


class OutOfStock(Exception):
    """Raised when a reservation asks for more than is available."""


@dataclass
class Item:
    sku: str
    name: str
    price_cents: int

    def label(self) -> str:
        return f"{self.name} ({self.sku})"


@dataclass
class Inventory:
    stock: dict[str, int] = field(default_factory=dict)
    reserved: dict[str, int] = field(default_factory=dict)

    def add(self, sku: str, quantity: int) -> None:
        if quantity <= 0:
            raise ValueError("quantity must be positive")
        self.stock[sku] = self.stock.get(sku, 0) + quantity

    def available(self, sku: str) -> int:
        return self.stock.get(sku, 0) - self.reserved.get(sku, 0)

    def reserve(self, sku: str, quantity: int) -> None:
        if quantity > self.available(sku):
            raise OutOfStock(f"{sku}: {quantity} requested, {self.available(sku)} available")
        self.reserved[sku] = self.reserved.get(sku, 0) + quantity

    def release(self, sku: str, quantity: int) -> None:
        self.reserved[sku] = max(0, self.reserved.get(sku, 0) - quantity)
