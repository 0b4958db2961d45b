"""Does not compile: a syntax error, as LLM writers produce when a bracket goes missing."""

from shop.parser import parse_line


def test_parse_line_reads_quantity():
    line = parse_line("3 x SKU-1 @ 4.50"
    assert line.quantity == 3
