"""The worker's warm-up: the baseline's `re` patterns, compiled again in the parent, are the same
cache keys."""

from __future__ import annotations

import json
import re

from assay._assay_sandbox.mutation.warm import compile_all, patterns


def test_patterns_found_in_a_child_fill_the_same_cache_keys_in_the_parent():
    re.purge()
    re.compile(r"(?i)^(ox)$", re.MULTILINE)
    re.search(b"\xff+", b"\xff")
    found = json.loads(json.dumps(patterns()))  # as the baseline child's result travels
    assert ["s", "(?i)^(ox)$", re.MULTILINE] in found
    assert ["b", "\xff+", 0] in found
    re.purge()
    assert compile_all(found + [["s", "(unclosed", 0]]) == len(found)
    assert (str, "(?i)^(ox)$", re.MULTILINE) in re._cache
    assert (bytes, b"\xff+", 0) in re._cache
