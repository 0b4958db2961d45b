import pytest

from roman import to_roman


@pytest.mark.parametrize("number, numeral", [
    (1, "I"), (4, "IV"), (9, "IX"), (14, "XIV"), (40, "XL"), (90, "XC"), (400, "CD"), (900, "CM"),
    (1994, "MCMXCIV"), (3999, "MMMCMXCIX"),
])
def test_numerals(number, numeral):
    assert to_roman(number) == numeral


@pytest.mark.parametrize("bad", [0, -1, 4000, 2.5])
def test_out_of_range_raises(bad):
    with pytest.raises(ValueError):
        to_roman(bad)
