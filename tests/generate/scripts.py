"""Scripted writers and reviewers for the fake servers: what a model would answer on the demo
project (`shop`) and on a small project with a real bug. Answers are chosen by what the prompt asks,
so runs with several targets in flight stay deterministic."""

from __future__ import annotations

import re
import threading

from tests.generate.fakes import Reply, Request, code, review_json

PRICING_GOOD = """
from decimal import Decimal

import pytest

from shop.pricing import apply_discount, line_total, round_cents, with_tax


@pytest.mark.parametrize(("amount", "expected"), [("0.5", 1), ("1.49", 1), ("2.5", 3), ("-0.5", -1)])
def test_round_cents_half_up(amount, expected):
    assert round_cents(Decimal(amount)) == expected


def test_discount_takes_percentage_off():
    assert apply_discount(1000, 15) == {expected}
    assert apply_discount(999, 50) == 500


def test_discount_bounds_are_allowed():
    assert apply_discount(1000, 0) == 1000
    assert apply_discount(1000, 100) == 0


@pytest.mark.parametrize("percent", [-1, 100.5])
def test_discount_out_of_range_is_refused(percent):
    with pytest.raises(ValueError, match="out of range"):
        apply_discount(1000, percent)


def test_line_total_below_bulk_threshold():
    assert line_total(250, 9) == 2250


def test_line_total_bulk_discount_from_threshold():
    assert line_total(250, 10) == 2375


def test_line_total_refuses_zero_quantity():
    with pytest.raises(ValueError, match="positive"):
        line_total(100, 0)
{tax}"""
TAX_ONE = """

def test_with_tax():
    assert with_tax(1000) == 1200
    assert with_tax(1000, 0.07) == 1070
"""
TAX_SPLIT = """

def test_with_tax_default_rate():
    assert with_tax(1000) == 1200


def test_with_tax_given_rate():
    assert with_tax(1000, 0.07) == 1070
"""

INVENTORY = """
import pytest

from shop.inventory import Inventory, OutOfStock

SEEN = []


def test_add_then_available():
    inv = Inventory()
    inv.add("A", 3)
    assert inv.available("A") == 3


def test_add_refuses_non_positive():
    with pytest.raises(ValueError, match="positive"):
        Inventory().add("A", 0)


def test_reserve_more_than_available_raises():
    inv = Inventory()
    inv.add("A", 2)
    with pytest.raises(OutOfStock, match="3 requested, 2 available"):
        inv.reserve("A", 3)


def test_reserve_all_leaves_nothing():
    inv = Inventory()
    inv.add("A", 2)
    inv.reserve("A", 2)
    assert inv.available("A") == 0


def test_release_floors_reservation_at_zero():
    inv = Inventory()
    inv.add("A", 5)
    inv.reserve("A", 2)
    inv.release("A", 5)
    assert inv.available("A") == 5


def test_marks_first():
    SEEN.append("first")
    assert SEEN == ["first"]


def test_runs_after_first():
    assert SEEN == ["first"]
"""

PARSER = """
import pytest

from shop.parser import OrderLine, parse_line, parse_order


def test_parse_line_reads_quantity_sku_and_cents():
    assert parse_line("3 x SKU-1 @ 4.50") == OrderLine(3, "SKU-1", 450)


def test_parse_line_pads_one_decimal():
    assert parse_line("1 x A @ 2.5") == OrderLine(1, "A", 250)


def test_parse_line_whole_price():
    assert parse_line("2x B@7") == OrderLine(2, "B", 700)


def test_parse_line_refuses_other_text():
    with pytest.raises(ValueError, match="not an order line"):
        parse_line("three x A @ 1")


def test_parse_order_skips_blank_and_comment_lines():
    text = "# header\\n\\n1 x A @ 1.00\\n  # note\\n2 x B @ 0.05\\n"
    assert parse_order(text) == [OrderLine(1, "A", 100), OrderLine(2, "B", 5)]
"""


def _path(req: Request) -> str:
    m = re.search(r"test file `([^`]+)`", req.user)
    return m.group(1) if m else ""


class ShopWriter:
    """The scripted writer on `shop`: pricing comes back broken once (gate 2) and is repaired,
    then revised once after a review; inventory carries an order-dependent test (dropped as
    flaky); parser's first answer has no code block. The first call gets a 429 and the second a
    500 (retried)."""

    def __init__(self, faults: bool = True):
        self.calls = 0
        self.lock = threading.Lock()
        self.faults = faults

    def __call__(self, req: Request) -> Reply:
        with self.lock:
            self.calls += 1
            n = self.calls
        if self.faults and n == 1:
            return Reply(status=429, headers={"retry-after": "0"})
        if self.faults and n == 2:
            return Reply(status=500)
        path, user = _path(req), req.user
        if "pricing" in path:
            if "REJECT: Gate 6" in user:
                return Reply(
                    code(PRICING_GOOD.format(expected=850, tax=TAX_SPLIT), "split the tax test")
                )
            if "REJECT: Gate 2" in user:
                return Reply(
                    code(PRICING_GOOD.format(expected=850, tax=TAX_ONE), "fixed the expected value")
                )
            return Reply(code(PRICING_GOOD.format(expected=800, tax=TAX_ONE)))
        if "inventory" in path:
            return Reply(code(INVENTORY))
        if "parser" in path:
            if "NO CODE BLOCK" in user:
                return Reply(code(PARSER))
            return Reply(
                "I would test parse_line with valid and "
                "invalid lines, and parse_order with comments."
            )
        return Reply("nothing scripted for this prompt")


def shop_reviewer(req: Request) -> Reply:
    """Reviews: the first pricing review asks (HIGH) to split the tax test; bug checks blame
    the test."""
    user = req.user
    if "decide whether a failing unit test" in req.system:
        names = sorted(set(re.findall(r"::(test_\w+)", user)))
        return Reply(
            review_json_bug(
                [(n, "TEST_WRONG", "HIGH", "15% of 1000 is 150 off: 850") for n in names]
            )
        )
    if "test_with_tax():" in user:
        return Reply(
            review_json(
                [("test_with_tax", "REVISE", "HIGH", "checks two rates in one test")],
                verdict="REVISE",
            )
        )
    if "parse_order" in user:
        return Reply(
            "```json\n"
            + review_json(
                [("test_parse_line_whole_price", "LOW_VALUE", "MEDIUM", "close to the first case")]
            )
            + "\n```"
        )
    return Reply(review_json([], missing=[]))


def review_json_bug(items: list[tuple[str, str, str, str]]) -> str:
    import json

    return json.dumps(
        {"tests": [{"test": n, "verdict": v, "confidence": c, "reason": r} for n, v, c, r in items]}
    )


RANGES = '''
"""Small numeric helpers."""


def clamp(value: int, low: int, high: int) -> int:
    """Return value limited to the closed range [low, high]."""
    if value < low:
        return low
    if value > high:
        return high
    return value


def percent_of(part: int, whole: int) -> float:
    """Share of part in whole, in percent; 0.0 when whole is 0."""
    if whole == 0:
        return 0.0
    return part / whole * 10
'''

RANGES_TESTS = """
import os

from calc.ranges import clamp, percent_of


def test_clamp_below_range_gives_low():
    assert clamp(-5, 0, 10) == 0


def test_clamp_above_range_gives_high():
    assert clamp(15, 0, 10) == 10


def test_clamp_inside_range_keeps_value_and_sees_no_keys():
    assert not [k for k in os.environ if "API_KEY" in k], "the sandbox must not see API keys"
    assert clamp(5, 0, 10) == 5


def test_percent_of_nothing_is_zero():
    assert percent_of(3, 0) == 0.0


def test_percent_of_quarter_is_25():
    assert percent_of(1, 4) == 25.0
"""


def bug_writer(req: Request) -> Reply:
    return Reply(code(RANGES_TESTS))


def bug_reviewer(req: Request) -> Reply:
    if "decide whether a failing unit test" in req.system:
        return Reply(
            review_json_bug(
                [
                    (
                        "test_percent_of_quarter_is_25",
                        "CODE_WRONG",
                        "HIGH",
                        "the docstring says percent: 1 of 4 is 25.0, the code multiplies by 10",
                    )
                ]
            )
        )
    return Reply(review_json([]))
