"""A module pytest claims for assertion rewriting (`register_assert_rewrite`, or marked through a
plugin's distribution) must still be imported mutated when a mutant needs a fresh import."""

from __future__ import annotations

from assay.config import SandboxConfig
from assay.mutation.model import Status
from assay.sandbox import Sandbox
from tests.mutation._mutation_support import run_engine

FILES = {
    "conftest.py": "import pytest\n\npytest.register_assert_rewrite('calc')\n",
    "src/calc/__init__.py": "",
    "src/calc/ops.py": """
        import functools


        def _logged(func):
            @functools.wraps(func)
            def wrapper(*args, **kwargs):
                return func(*args, **kwargs)

            return wrapper


        @_logged
        def add(a, b):
            return a + b
        """,
    "tests/test_ops.py": "from calc.ops import add\n\n\ndef "
    "test_add():\n    assert add(2, 3) == 5\n",
}


def test_a_rewritten_module_is_still_served_mutated(project):
    root = project(FILES)
    run = run_engine(
        root,
        Sandbox(SandboxConfig(timeout_s=30), protect=root),
        ["src/calc/ops.py"],
        ["tests/test_ops.py"],
    )
    wrapper = [
        r.status for m, r in run.scored if m.operator == "return_value" and "func(*args" in m.before
    ]
    assert wrapper == [Status.KILLED]
    assert run.counts["Survived"] == 0
