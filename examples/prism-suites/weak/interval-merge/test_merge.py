from intervals import merge


def test_overlapping_intervals_merge():
    assert [tuple(pair) for pair in merge([(1, 3), (2, 4)])] == [(1, 4)]


def test_empty_input():
    assert list(merge([])) == []
