"""Parse order lines such as "3 x SKU-1 @ 4.50"."""

from __future__ import annotations

import re
from dataclasses import dataclass

LINE = re.compile(r"^\s*(\d+)\s*x\s*([A-Z0-9-]+)\s*@\s*(\d+)(?:\.(\d{1,2}))?\s*$")


@dataclass(frozen=True)
class OrderLine:
    quantity: int
    sku: str
    unit_cents: int


def parse_line(text: str) -> OrderLine:
    match = LINE.match(text)
    if not match:
        raise ValueError(f"not an order line: {text!r}")
    qty, sku, whole, frac = match.groups()
    cents = int(whole) * 100 + (int(frac.ljust(2, "0")) if frac else 0)
    return OrderLine(int(qty), sku, cents)


def parse_order(text: str) -> list[OrderLine]:
    """All non-blank, non-comment lines of an order."""
    lines = []
    for raw in text.splitlines():
        if not raw.strip() or raw.lstrip().startswith("#"):
            continue
        lines.append(parse_line(raw))
    return lines
