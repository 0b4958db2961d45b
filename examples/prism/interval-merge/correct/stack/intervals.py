"""Closed intervals of numbers, as (start, end) pairs."""


def merge(intervals):
    """Merge overlapping or touching intervals; a stack of [start, end] lists."""
    stack = []
    for start, end in sorted(intervals, key=lambda pair: pair[0]):
        if stack and start <= stack[-1][1]:
            stack[-1][1] = max(stack[-1][1], end)
        else:
            stack.append([start, end])
    return stack
def total_length(intervals):
    """Sum of the lengths of disjoint intervals."""
    return sum(end - start for start, end in intervals)
