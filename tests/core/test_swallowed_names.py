"""A committed test file that guards an import and uses one of its names at import time fails to
collect with a NameError when the module is missing: mccabe 0.7.0's `test_mccabe.py` does
`try: import hypothesmith; from hypothesis import settings ... except ImportError: hypothesmith =
None`, then decorates with `@settings(...)`. Without hypothesmith assay said "COMPILE ERROR:
NameError: name 'settings' is not defined ... check imports" on the author's own tests: the
environment lacks a module the project's tests import, so the file is `unvalidated` with that
module named. The same shape in a new file is still the file's own fault."""

from __future__ import annotations

from assay.api import verify
from assay.model import Verdict
from tests.conftest import commit_all

GATES_1_2 = "[tool.assay]\ngates = ['compile', 'green']\n"

GUARDED = """
    import pytest

    try:
        import madeup_strategies
        from madeup_props import given, settings
    except ImportError:
        madeup_strategies = None

    from calc import add


    @settings(max_examples=5)
    @given(madeup_strategies)
    @pytest.mark.skipif(not madeup_strategies, reason="madeup_strategies could not be imported")
    def test_any_numbers(a):
        assert add(a, 0) == a


    def test_add():
        assert add(1, 2) == 3
    """


def test_a_name_a_swallowed_import_left_undefined_is_the_missing_modules_gap(project):
    root = project(
        {"src/calc.py": "def add(a, b):\n    return a + b\n", "tests/test_calc.py": GUARDED},
        "[tool.pytest.ini_options]\npythonpath = ['src']\n" + GATES_1_2,
    )
    commit_all(root)
    (root / "tests" / "test_new.py").write_text(
        (root / "tests" / "test_calc.py").read_text().replace("madeup_strategies", "other_madeup")
    )
    report = verify([root / "tests"], root=root, use_cache=False)
    by = {f.path: f for f in report.files}
    old, new = by["tests/test_calc.py"], by["tests/test_new.py"]
    assert (old.verdict, old.rejected_at) == (Verdict.UNVALIDATED, "compile"), old.gates[0]
    feedback = old.gates[0].feedback
    assert "module 'madeup_strategies' is not installed" in feedback, feedback
    assert "'settings'" in feedback, feedback
    # a module only the new file imports: the file's own fault, as any missing import of it
    assert (new.verdict, new.rejected_at) == (Verdict.REJECTED, "compile"), new.gates[0]
