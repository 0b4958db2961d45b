"""Closed intervals of numbers, as (start, end) pairs."""


def merge(intervals):
    """Merge overlapping intervals (not written yet)."""
    raise NotImplementedError("merge")
def total_length(intervals):
    """Sum of the lengths of disjoint intervals."""
    return sum(end - start for start, end in intervals)
