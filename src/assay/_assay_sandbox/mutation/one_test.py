"""One test under pytest's protocol as gate 4's children run it, with its warning filters.

`runtestprotocol` returns the reports gate 4 reads, but it runs below the `pytest_runtest_protocol`
hook, whose wrapper in pytest's warnings plugin applies the configured filters and the test's
`@pytest.mark.filterwarnings` marks. Without it, async_lru 2.4.0's tests marked
`filterwarnings("ignore::async_lru.AlruCacheLoopResetWarning")`, in a project whose
`filterwarnings = error`, failed on the unmutated code in gate 4's baseline, after passing gates 2
and 3, and were called flaky. The filters are applied here as that wrapper applies them.

Standalone (stdlib + pytest): runs under the interpreter of the user's tests.
"""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pytest
    from _pytest.reports import TestReport


def run_test(item: pytest.Item, nextitem: pytest.Item | None) -> list[TestReport]:
    """The reports of `item`'s setup, call and teardown, run under its warning filters."""
    from _pytest.runner import runtestprotocol

    with _filters(item):
        return runtestprotocol(item, nextitem=nextitem, log=False)


def _filters(item: pytest.Item) -> contextlib.AbstractContextManager[None]:
    """The warnings plugin's context for a test, or none when the plugin is off (`-p
    no:warnings`) or its pytest has no such function."""
    if not item.config.pluginmanager.has_plugin("warnings"):
        return contextlib.nullcontext()
    try:
        from _pytest.warnings import catch_warnings_for_item
    except ImportError:
        return contextlib.nullcontext()
    return catch_warnings_for_item(item.config, ihook=item.ihook, when="runtest", item=item)
