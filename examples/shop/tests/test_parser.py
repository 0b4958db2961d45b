"""Good: the parser's contract, including malformed input and comments."""

import pytest

from shop.parser import OrderLine, parse_line, parse_order


def test_parse_line_with_cents():
    assert parse_line("3 x SKU-1 @ 4.50") == OrderLine(3, "SKU-1", 450)


def test_parse_line_single_decimal_means_tens_of_cents():
    assert parse_line("1 x B @ 2.5") == OrderLine(1, "B", 250)


def test_parse_line_without_cents():
    assert parse_line(" 12x AB-9@7 ") == OrderLine(12, "AB-9", 700)


@pytest.mark.parametrize("text", ["", "x SKU @ 1", "3 x sku @ 1", "3 x A @ 1.234"])
def test_parse_line_rejects_malformed(text):
    with pytest.raises(ValueError, match="not an order line"):
        parse_line(text)


def test_parse_order_skips_blank_and_comment_lines():
    text = "2 x A @ 1\n\n   # note\n1 x B @ 0.05\n"
    assert parse_order(text) == [OrderLine(2, "A", 100), OrderLine(1, "B", 5)]
