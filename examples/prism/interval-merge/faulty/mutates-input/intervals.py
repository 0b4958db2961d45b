"""Closed intervals of numbers, as (start, end) pairs."""


def merge(intervals):
    """Merge overlapping or touching intervals into disjoint ones, sorted by start."""
    intervals.sort()
    merged = []
    for start, end in intervals:
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged
def total_length(intervals):
    """Sum of the lengths of disjoint intervals."""
    return sum(end - start for start, end in intervals)
