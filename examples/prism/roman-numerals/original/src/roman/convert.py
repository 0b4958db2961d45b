"""Roman numerals."""

NUMERALS = [(1000, "M"), (500, "D"), (100, "C"), (50, "L"), (10, "X"), (5, "V"), (1, "I")]


def to_roman(number):
    """The Roman numeral of `number`."""
    digits = []
    for value, letters in NUMERALS:
        count, number = divmod(number, value)
        digits.append(letters * count)
    return "".join(digits)
