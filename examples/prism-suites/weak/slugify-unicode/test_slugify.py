from slugify import slugify


def test_words_joined_by_hyphens():
    assert slugify("Hello World") == "hello-world"


def test_accent():
    assert slugify("Crème") == "creme"
