"""`@typing.overload` signatures are not the function: async_lru 2.4.0's `alru_cache` has two, and
gate 4 took the first one's span for the name, so the code its tests ran (in the def after them)
was out of scope: `test_alru_cache_not_callable` read "low value: reaches no mutant"."""

from __future__ import annotations

import pytest

from assay.api import verify
from assay.mutation.mutants import function_spans, generate

SCALE = """\
from typing import overload


@overload
def scale(x: int, factor: int = 2) -> int:
    ...


@overload
def scale(x: str, factor: int = 2) -> str:
    ...


def scale(x, factor=2):
    if isinstance(x, int):
        return x * factor
    raise NotImplementedError(f"{x!r} is not supported")
"""


def test_the_def_after_the_overloads_is_the_function():
    assert function_spans(SCALE) == {"scale": (14, 17)}
    # the signatures' defaults are never used: no mutant there
    assert {m.line for m in generate("pkg/__init__.py", SCALE)} == {14, 15, 16}


@pytest.mark.slow
def test_a_test_of_an_overloaded_function_is_measured(project):
    root = project(
        {
            "pkg/__init__.py": SCALE,
            "tests/test_scale.py": """
                import pytest

                from pkg import scale


                def test_scale_other():
                    with pytest.raises(NotImplementedError):
                        scale(1.5)
                """,
        },
        "[tool.assay]\ngates = ['compile', 'green', 'mutation']\n",
    )
    f = verify([root / "tests"], root=root, use_cache=False).files[0]
    mutation = next(g for g in f.gates if g.gate == "mutation")
    assert mutation.details["scope"]["functions"] == ["pkg/__init__.py::scale"], mutation.details
    assert mutation.details["killed"] >= 1, mutation.details
