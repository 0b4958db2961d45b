"""Prices in cents: discounts, tax and rounding."""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal

BULK_THRESHOLD = 10
BULK_DISCOUNT = Decimal("0.05")


def round_cents(amount: Decimal) -> int:
    """Round a cent amount half-up to a whole cent."""
    return int(amount.quantize(Decimal("1"), rounding=ROUND_HALF_UP))


def apply_discount(price_cents: int, percent: float) -> int:
    """Price after a percentage discount; percent must lie in [0, 100]."""
    if percent < 0 or percent > 100:
        raise ValueError(f"discount out of range: {percent}")
    return round_cents(Decimal(price_cents) * (Decimal(100) - Decimal(str(percent))) / Decimal(100))


def line_total(unit_cents: int, quantity: int) -> int:
    """Total of one order line, with a bulk discount from BULK_THRESHOLD items on."""
    if quantity <= 0:
        raise ValueError("quantity must be positive")
    total = Decimal(unit_cents) * quantity
    if quantity >= BULK_THRESHOLD:
        total -= total * BULK_DISCOUNT
    return round_cents(total)


def with_tax(net_cents: int, rate: float = 0.2) -> int:
    """Gross price from net price and a tax rate."""
    return round_cents(Decimal(net_cents) * (1 + Decimal(str(rate))))
