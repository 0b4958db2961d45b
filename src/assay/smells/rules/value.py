"""Low-value rules: tests of code without logic. Their level is `reject` while
`fail_on_low_value` holds."""

from __future__ import annotations

from collections.abc import Iterator

from assay.config.smells import SmellsConfig
from assay.smells.model import Hit, rule
from assay.smells.testfunc import TestFunc
from assay.smells.value import low_value

HINT = (
    "Test behaviour with logic in it (branches, computation, error cases); "
    "drop checks of getters, field round-trips and literal mappings."
)


def _verdict(test: TestFunc) -> tuple[str, str] | None:
    key = ("low_value", id(test.node), id(test.cls))
    if key not in test.module.memo:
        index = test.module.targets
        test.module.memo[key] = low_value(test, index) if index is not None else None
    return test.module.memo[key]  # type: ignore[return-value]


@rule(
    "AS020",
    "trivial-target",
    "reject",
    "low value: the code under test has no logic",
    HINT,
    low_value=True,
)
def trivial_target(test: TestFunc, cfg: SmellsConfig) -> Iterator[Hit]:
    """Every target function the test calls is a getter, a conversion or a one-to-one literal
    mapping (decided from the target's source): the test restates the code.

    Bad:
        # shapes.py:  def label(kind):
        #                 match kind:
        #                     case Kind.SQUARE: return "square"
        #                     case Kind.ROUND: return "round"
        def test_label():
            assert label(Kind.SQUARE) == "square"

    Good:
        # shapes.py: def area(shape): return shape.w * shape.h if shape.kind is Kind.SQUARE ...
        def test_area_of_square():
            assert area(Shape(Kind.SQUARE, w=2, h=3)) == 6
    """
    found = _verdict(test)
    if found and found[0] == "AS020":
        yield Hit.at(test.node, found[1])


@rule(
    "AS021",
    "literal-roundtrip",
    "reject",
    "low value: only reads fields of objects built from literals",
    HINT,
    low_value=True,
)
def literal_roundtrip(test: TestFunc, cfg: SmellsConfig) -> Iterator[Hit]:
    """The test builds an object from literals and reads its fields (or `str`, `repr`, `.name`,
    `.value`) back, and the target class runs no logic on construction: it checks the language.

    Bad:
        def test_point():
            p = Point(1, 2)
            assert p.x == 1
            assert p.y == 2

    Good:
        def test_point_distance():
            assert Point(0, 0).distance(Point(3, 4)) == 5
    """
    found = _verdict(test)
    if found and found[0] == "AS021":
        yield Hit.at(test.node, found[1])
