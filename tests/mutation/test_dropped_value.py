"""A value the test drops (a call as a statement of its own) is not something it receives:
semver 3.0.2's `test_deprecated_functions.py` calls each deprecated function under `pytest.warns`
and checks the warning only; it was rejected at gate 4 (24% < 50%) for `return x` -> `return None`
in every one of them, values no assertion of the file could see (their own tests are other
files')."""

from __future__ import annotations

import dis
import json

import pytest

from assay._assay_sandbox.mutation.taken import attribute_after_call, value_dropped
from tests.conftest import run_cli

SAMPLE = """
def sample(g, obj):
    g(1)
    kept = g(2)
    if g(3) == kept:
        return g(4).field, obj
"""


def test_only_a_call_as_a_statement_drops_its_value():
    space: dict = {}
    exec(compile(SAMPLE, "sample.py", "exec"), space)  # not rewritten by pytest
    code = space["sample"].__code__
    calls = [i for i in dis.get_instructions(code) if i.opname.startswith("CALL")]
    dropped = [value_dropped(code, i.offset) for i in calls]
    assert dropped == [True, False, False, False]
    assert attribute_after_call(code, calls[3].offset) == "field"
    assert attribute_after_call(code, calls[0].offset) is None


FILES = {
    "ver/__init__.py": "",
    "ver/api.py": """
        import functools
        import warnings


        def deprecated(func):
            @functools.wraps(func)
            def wrapper(*args, **kwargs):
                warnings.warn("Function 'ver." + func.__name__ + "' is deprecated.",
                              DeprecationWarning, stacklevel=2)
                return func(*args, **kwargs)

            return wrapper


        @deprecated
        def bump(version):
            major, minor, patch = version.split(".")
            return str(int(major) + 1) + ".0.0"


        @deprecated
        def parse(version):
            return tuple(int(part) * 1 for part in version.split("."))


        @deprecated
        def newer(a, b):
            return max(a, b) if a > b else b
        """,
    "tests/__init__.py": "",
    "tests/test_deprecated.py": """
        import pytest

        from ver.api import bump, newer, parse


        @pytest.mark.parametrize(
            "func, args",
            [(bump, ("1.2.3",)), (parse, ("1.2.3",)), (newer, ("1.0.0", "2.0.0"))],
        )
        def test_should_raise_deprecation_warnings(func, args):
            with pytest.warns(DeprecationWarning, match=r"Function 'ver.[a-z]+' is deprecated."):
                func(*args)
        """,
}


@pytest.mark.slow  # gate 4 end to end
def test_the_values_a_test_drops_are_not_what_it_is_accountable_for(project, tmp_path):
    root = project(FILES, "[tool.assay]\ngates = ['compile', 'green', 'mutation']\n")
    out = tmp_path / "r.json"
    proc = run_cli("verify", "tests/test_deprecated.py", "-f", f"json={out}", cwd=root)
    [f] = json.loads(out.read_text())["files"]
    gate = next(g for g in f["gates"] if g["gate"] == "mutation")
    assert f["verdict"] == "accepted", (gate, proc.stdout[-3000:])
    unexercised = {m["line"] for m in gate["unexercised_mutants"]}
    assert {19, 24, 29} <= unexercised, gate  # what bump, parse and newer return
