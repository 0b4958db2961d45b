"""AS016: numbers in assertions that do not say where they come from: bounds and adjustments, not
the expected value (where literals belong)."""

from __future__ import annotations

import ast
from collections.abc import Iterator, Sequence

from assay.config.smells import SmellsConfig
from assay.smells.checks import Assertion
from assay.smells.model import Hit, rule
from assay.smells.names import dotted, last_name
from assay.smells.testfunc import TestFunc

EQUALITY_OPS = (ast.Eq, ast.NotEq, ast.Is, ast.IsNot, ast.In, ast.NotIn)
# unittest / numpy.testing checks of equality or membership: (actual, expected) in either order.
EQUALITY_METHODS = {
    "assertEqual",
    "assertEquals",
    "assertNotEqual",
    "assertIs",
    "assertIsNot",
    "assertIn",
    "assertNotIn",
    "assertCountEqual",
    "assertListEqual",
    "assertTupleEqual",
    "assertSetEqual",
    "assertDictEqual",
    "assertSequenceEqual",
    "assertMultiLineEqual",
    "assertAlmostEqual",
    "assertAlmostEquals",
    "assertNotAlmostEqual",
    "assert_equal",
    "assert_array_equal",
    "assert_almost_equal",
    "assert_allclose",
    "assert_array_almost_equal",
    "assert_frame_equal",
    "assert_series_equal",
}
ORDER_METHODS = {"assertGreater", "assertGreaterEqual", "assertLess", "assertLessEqual"}
# Calls that build a value rather than compute one: `date(2001, 2, 3)`,
# `Decimal("1.5")`, `approx(0.3)`.
VALUE_BUILDERS = {
    "int",
    "float",
    "complex",
    "str",
    "bytes",
    "bytearray",
    "bool",
    "list",
    "tuple",
    "set",
    "frozenset",
    "dict",
    "range",
    "slice",
    "date",
    "datetime",
    "time",
    "timedelta",
    "timezone",
    "approx",
    "array",
    "deque",
    "OrderedDict",
    "Counter",
    "namedtuple",
}


def _small(value: object) -> bool:
    return (
        isinstance(value, bool)
        or not isinstance(value, (int, float))
        or -1 <= value <= 10
        or value == 100
    )


def _builder(call: ast.Call, test: TestFunc) -> bool:
    name = last_name(dotted(call.func, test.module.aliases))
    return name in VALUE_BUILDERS or name[:1].isupper()


def _stated(node: ast.AST, test: TestFunc) -> bool:
    """An operand that states a value rather than computes one: literals, names, containers,
    arithmetic, comprehensions, and calls that only build a value (`date(2001, 2, 3)`,
    `D({1: 11})`)."""
    return all(_builder(n, test) for n in ast.walk(node) if isinstance(n, ast.Call))


def _loose(node: ast.AST, test: TestFunc) -> Iterator[ast.Constant]:
    """Numbers used as bounds or adjustments: operands of comparisons and arithmetic, not the
    arguments of a call (inputs), subscripts (positions) or containers (data)."""
    if isinstance(node, ast.Constant):
        if not _small(node.value):
            yield node
    elif isinstance(node, ast.UnaryOp):
        yield from _loose(node.operand, test)
    elif isinstance(node, ast.BinOp):
        yield from _loose(node.left, test)
        yield from _loose(node.right, test)
    elif isinstance(node, ast.IfExp):
        yield from _loose(node.body, test)
        yield from _loose(node.orelse, test)
    elif isinstance(node, (ast.Compare, ast.BoolOp)):
        yield from _check(node, test)


def _compared(
    operands: Sequence[ast.AST], equality: bool, test: TestFunc
) -> Iterator[ast.Constant]:
    for operand in operands:
        if not (equality and _stated(operand, test)):  # the expected side of an equality is exempt
            yield from _loose(operand, test)


def _check(expr: ast.AST, test: TestFunc) -> Iterator[ast.Constant]:
    if isinstance(expr, ast.Compare):
        equality = all(isinstance(op, EQUALITY_OPS) for op in expr.ops)
        yield from _compared([expr.left, *expr.comparators], equality, test)
    elif isinstance(expr, ast.BoolOp):
        for value in expr.values:
            yield from _check(value, test)
    elif isinstance(expr, ast.UnaryOp) and isinstance(expr.op, ast.Not):
        yield from _check(expr.operand, test)
    else:
        yield from _loose(expr, test)


def _numbers(a: Assertion, test: TestFunc) -> Iterator[ast.Constant]:
    node = a.node
    if isinstance(node, ast.Assert):
        yield from _check(node.test, test)
    elif isinstance(node, ast.Call) and a.kind == "method":
        if a.name in EQUALITY_METHODS or a.name in ORDER_METHODS:
            yield from _compared(node.args[:2], a.name in EQUALITY_METHODS, test)
        elif a.name in ("assertTrue", "assertFalse", "assert_") and node.args:
            yield from _check(node.args[0], test)


@rule(
    "AS016",
    "magic-number",
    "warn",
    "magic number in assertion",
    "Name the number (a constant or a variable saying what it is), or derive it from the input.",
)
def magic_number(test: TestFunc, cfg: SmellsConfig) -> Iterator[Hit]:
    """A bound or an adjustment with an unexplained number (`assert len(cache) <= 4096`,
    `assert elapsed(job) < 250`, `assert total(cart) - 213 == 4000`) does not say where it
    comes from.

    Where literals belong is not flagged. The expected side of an equality or membership check
    (`==`, `!=`, `is`, `in`, `assertEqual`, `assertIn` ...) is the operand that states a value
    rather than computes one: literals, names, containers and arithmetic of them, and calls that
    only build a value (`date(2001, 2, 3)`, `timedelta(434)`, `Decimal(...)`, `approx(...)`, any
    capitalised class); so `assert parse("P3Y") == 434` and
    `assertEqual(parse(s), date(2001, 2, 3))` are fine. So are the arguments of a call (the inputs
    of the case: `nth_prime(688_381)`), subscripts, keyword tolerances (`rel=1e-9`, `places=3`) and
    small numbers (-1 to 10, and 100) anywhere.

    Bad:
        def test_cache_is_bounded():
            assert len(fill(Cache(), 10_000)) <= 4096

    Good:
        def test_cache_is_bounded():
            assert len(fill(Cache(), 10_000)) <= Cache.MAX_ENTRIES

        def test_parse_duration():
            assert parse("P3Y").days == 1096
    """
    for a in test.assertions:
        const = next(_numbers(a, test), None)
        if const is not None:
            yield Hit.at(const, f"magic number {const.value!r} in assertion")
