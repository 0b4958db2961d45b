"""One test per function where its cases fit one: a function whose cases form a small table and
a test of statements (returns at a default, raises: calls of other shapes) gets one test, the
table's rows as statements. isodate's `parse_date` had a table of six returns and a test of two
returns and two raises - two of the three test functions Pynguin's two were compared with (issue
28, the eighth pass). The folded test kills what the two did: each row is still its own call and
assertion. On tests/offline/fixtures/defaults: `slug(words, separator="-")`."""

from __future__ import annotations

import ast

from assay.writers.offline.combined import MAX_STATEMENTS
from tests.offline.test_defaults import DEFAULT, _case, _passes_then_fails, _render


def _tests(text: str) -> list[str]:
    return [n.name for n in ast.parse(text).body if isinstance(n, ast.FunctionDef)]


def test_a_small_table_joins_the_functions_test_of_statements_and_kills_what_both_did(tmp_path):
    """Before: `test_slug` (a table of three rows) and `test_slug_returns` (the call at the
    default). Now one test of four statements; it passes on the code and fails on the mutant of
    the default and on the mutant the rows kill."""
    cases = [
        _case("plus", "'a+b'", '["A", "b"]', "'+'", kills={"m-lower"}),
        _case("none", "'x'", '["X"]', "''", kills={"m-lower"}),
        _case("star", "'a*b*c'", '["a", "B", "c"]', "'*'", kills={"m-lower"}),
        _case("dash", "'a-b'", '["A", "b"]', kills={DEFAULT}),
    ]
    out = _render(cases)
    assert len(_tests(out.text)) == 1, out.text
    _passes_then_fails(
        tmp_path, out.text, ('separator="-"', 'separator="XX-XX"'), ("w.lower()", "w")
    )


def test_a_table_too_large_to_read_as_statements_stays_a_table():
    """A function's table stays a table when the statements would pass `MAX_STATEMENTS`."""
    rows = [
        _case(f"r{n}", repr("a" * n), f'["{"A" * n}"]', "''", kills={"m-lower"})
        for n in range(1, MAX_STATEMENTS + 1)
    ]
    out = _render([*rows, _case("dash", "'a-b'", '["A", "b"]', kills={DEFAULT})])
    assert len(_tests(out.text)) == 2, out.text
