"""Test ids of bounded length in every session assay runs.

A test id is a key that travels through every file of a run (the plan's results, progress lines,
the mutation job, one event per mutant naming the tests that cover it). A project can make ids of
any length: python-multipart's test metaclass names each generated method after its parameter's
value, 10,000,200 characters, and the events file passed the sandbox's 512 MB file-size limit after
166 of 1219 mutants (614 s, then `unvalidated`: "File too large"). So an id longer than `LIMIT` is
replaced, as pytest collects the item, by a readable head and a digest of the whole id: the same in
every session (gates 1-4, the worker and its children), distinct for distinct ids, and short in
reports. The parameters' part (`[...]`) is cut first, so that the test function's own id, which a
fresh collection names on pytest's command line, stays whole where it is short; `real` gives the id
pytest made back within the process that collected it. Stdlib and pytest only.
"""

from __future__ import annotations

import hashlib

import pytest

LIMIT = 240
_HEAD = 120  # characters of the cut part kept readable
REAL: dict[str, str] = {}  # short id -> the id pytest made, for the ids this process collected


def shorten(nodeid: str) -> str:
    """`nodeid` itself when short; else its head, `...`, and 12 hex digits of its SHA-256."""
    if len(nodeid) <= LIMIT:
        return nodeid
    digest = hashlib.sha256(nodeid.encode("utf-8", "surrogatepass")).hexdigest()[:12]
    function, bracket, params = nodeid.partition("[")
    if bracket and len(function) <= LIMIT - _HEAD:
        return f"{function}[{params[:_HEAD]}...{digest}]"
    return f"{nodeid[: LIMIT - 20]}...{digest}"


def real(nodeid: str) -> str:
    """The id pytest made for a test this process collected under a short id."""
    return REAL.get(nodeid, nodeid)


class ShortIds:
    """pytest plugin: each item's id bounded as it is collected, before any other plugin reads it
    (ordering, selection by id, reports)."""

    @pytest.hookimpl(tryfirst=True)
    def pytest_itemcollected(self, item: pytest.Item) -> None:
        bound(item)


def bound(item: pytest.Item) -> pytest.Item:
    """The item under its short id; also for items a child collects again by hand
    (`collect_one_node`, which calls no `pytest_itemcollected`)."""
    short = shorten(item.nodeid)
    if short != item.nodeid:
        REAL[short] = item.nodeid
        _rename(item, short)
    return item


def _rename(item: pytest.Item, nodeid: str) -> None:
    """pytest 9 keeps a node's id as a `NodeId` in `_id`; earlier versions as a string in
    `_nodeid`."""
    try:
        from _pytest.nodeid import coerce_node_id  # type: ignore[import-not-found,unused-ignore]
    except ImportError:
        item._nodeid = nodeid  # type: ignore[attr-defined]
    else:
        item._id = coerce_node_id(nodeid)
