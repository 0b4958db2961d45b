from roman import to_roman


def test_small_numbers():
    assert to_roman(1) == "I"
    assert to_roman(3) == "III"


def test_tens():
    assert to_roman(30) == "XXX"
