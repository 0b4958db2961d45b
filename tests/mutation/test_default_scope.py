"""A default value in a def's signature is evaluated where the def runs (at import), but it is
part of that function's contract: a file whose tests call the function is accountable for it.
attrs 26.1.0's `TestDundersUnnamedClass::test_class` checks the `class_name="Comparable"` default
of `cmp_using` and was called low value, "kills none of the 61 mutants of the code it runs": the
one mutant it kills was left out of gate 4's scope as module-level code."""

from __future__ import annotations

import pytest

from assay.api import verify
from assay.config import Settings
from assay.mutation.mutants import generate
from tests.conftest import write_project

CMP = """\
def compare_using(eq, class_name="Comparable"):
    return type(class_name, (object,), {"__eq__": eq})
"""

TESTS = """\
from pkg.cmp import compare_using


def test_class_name():
    assert compare_using(lambda a, b: True).__name__ == "Comparable"
"""


def test_a_default_value_belongs_to_its_function():
    (default,) = [m for m in generate("pkg/cmp.py", CMP) if m.operator == "default_argument"]
    assert (default.function, default.signature) == ("<module>", "compare_using")


@pytest.mark.slow
def test_a_test_of_a_default_value_is_credited_with_its_mutant(tmp_path):
    """Slow: a whole gate-4 run in the sandbox (about 5 s on a quiet machine)."""
    root = write_project(
        tmp_path / "proj",
        {"pkg/__init__.py": "", "pkg/cmp.py": CMP, "tests/test_cmp.py": TESTS},
    )
    settings = Settings(gates=["compile", "green", "mutation"], cache=False)
    settings.mutation.early_stop = False
    report = verify([root / "tests/test_cmp.py"], settings)
    gate = next(g for g in report.files[0].gates if g.gate == "mutation")
    # the default value's mutant is in scope and killed, with `return None`'s (the `"__eq__"`
    # key's mutant changes nothing this test receives)
    assert gate.details["scope"]["mutants"] == len(generate("pkg/cmp.py", CMP)), gate.details
    assert (gate.details["killed"], gate.details["survived"]) == (2, 0), gate.details
