from slugify import slugify


def test_accents_become_base_letters():
    assert slugify("Crème Brûlée") == "creme-brulee"


def test_runs_of_separators_become_one_hyphen():
    assert slugify("a  --  b") == "a-b"


def test_no_hyphen_at_either_end():
    assert slugify("  Hello, World!  ") == "hello-world"


def test_digits_are_kept():
    assert slugify("Route 66") == "route-66"


def test_nothing_left_gives_empty_string():
    assert slugify("!!!") == ""
