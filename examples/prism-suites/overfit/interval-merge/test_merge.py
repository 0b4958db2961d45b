from intervals import merge


def pairs(result):
    return [tuple(pair) for pair in result]


def test_overlapping_intervals_merge():
    assert merge([(1, 3), (2, 5)]) == [(1, 5)]  # exactly tuples, as the reference


def test_touching_intervals_merge():
    assert pairs(merge([(1, 3), (3, 4)])) == [(1, 4)]


def test_input_in_any_order():
    assert pairs(merge([(6, 8), (1, 2), (3, 4)])) == [(1, 2), (3, 4), (6, 8)]


def test_contained_interval_keeps_the_outer_end():
    assert pairs(merge([(1, 10), (2, 3)])) == [(1, 10)]


def test_empty_input():
    assert pairs(merge([])) == []


def test_input_is_not_modified():
    given = [(5, 6), (1, 2)]
    merge(given)
    assert given == [(5, 6), (1, 2)]
