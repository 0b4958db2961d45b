"""AS000: the file cannot be analysed at all."""

from __future__ import annotations

from collections.abc import Iterator

from assay.smells.model import Hit, rule


@rule(
    "AS000",
    "cannot-parse",
    "reject",
    "cannot parse",
    "Fix the syntax (or the encoding: UTF-8, or a `# -*- coding: "
    "... -*-` line) so the file can be read.",
    scope="parse",
)
def cannot_parse(error: Exception) -> Iterator[Hit]:
    """A file that does not parse (syntax error, undecodable bytes, null bytes, nesting too deep
    or too large) cannot be checked, nor run.

    Bad:
        def test_total(:
            assert total([1]) == 1

    Good:
        def test_total():
            assert total([1]) == 1
    """
    line = getattr(error, "lineno", None) or 1
    col = getattr(error, "offset", None) or 1
    detail = getattr(error, "msg", None) or str(error) or type(error).__name__
    yield Hit(line, col, f"cannot parse: {detail}")
