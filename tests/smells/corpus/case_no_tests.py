# ruff: noqa  expect[AS023]
def check_total():
    assert total([1]) == 1
