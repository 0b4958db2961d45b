"""Verdicts that follow the code, not the names of tests or functions."""

from __future__ import annotations

import textwrap

from assay.smells import analyze

CHECKS = {
    "pkg/checks.py": textwrap.dedent(
        """\
        def in_stock(order):
            return order.total > 0 and bool(order.items)


        def is_ready(order):
            return order.items
        """
    )
}


def weak(source: str) -> list[int]:
    findings = analyze(textwrap.dedent(source), "tests/test_checks.py", CHECKS)
    return [f.line for f in findings if f.rule == "AS009"]


def test_truthiness_of_a_target_function_is_judged_on_what_it_returns():
    # `in_stock` returns a comparison: asserting its answer is the whole check, name aside
    assert (
        weak(
            """\
            from pkg.checks import in_stock

            def test_valid():
                ok = in_stock(order(3))
                assert ok
            """
        )
        == []
    )
    # `is_ready` returns the items themselves: truthiness says little, though named like a predicate
    assert weak(
        """\
        from pkg.checks import is_ready

        def test_ready():
            ready = is_ready(order(3))
            assert ready
        """
    ) == [5]
