"""Roman numerals, one decimal digit at a time."""

ONES = ["", "I", "II", "III", "IV", "V", "VI", "VII", "VIII", "IX"]
TENS = ["", "X", "XX", "XXX", "XL", "L", "LX", "LXX", "LXXX", "XC"]
HUNDREDS = ["", "C", "CC", "CCC", "CD", "D", "DC", "DCC", "DCCC", "CM"]
THOUSANDS = ["", "M", "MM", "MMM"]


def to_roman(number):
    """The Roman numeral of `number` (1 to 3999)."""
    if type(number) is not int or number < 1 or number > 3999:
        raise ValueError("out of range")
    return THOUSANDS[number // 1000] + HUNDREDS[number // 100 % 10] + TENS[number // 10 % 10] + ONES[number % 10]
