"""pytest setting up the package a test sits in is not the test receiving anything: toolz 1.2.0's
`test_serialization.py` lives in the `toolz` package, whose `__init__.py` has a module
`__getattr__`. A mutant that needs a fresh import runs its first test in a new collection, and
pytest's `Package.setup` then imports `toolz/__init__.py` again and looks up `pytest_plugins`,
`setUpModule`, `setup_module` ... on it: five calls of the project's `__getattr__` inside that
test's set-up, which the original runs (set up long before) never saw. Gate 4 read them as values
the test received differently, and charged it with every such survivor: `_signatures.py` 33% < 50%,
eight survivors of code whose changes reach nothing the test gets."""

from __future__ import annotations

import pytest

from assay.api import verify
from assay.config import Settings
from assay.model import Verdict
from tests.conftest import write_project

FILES = {
    "pkg/__init__.py": """\
        from pkg.core import wrap

        LENGTH = wrap(len)  # runs `note` while the package is imported: its mutants re-import


        def __getattr__(name):
            raise AttributeError(f"module 'pkg' has no attribute {name!r}")
        """,
    "pkg/core.py": """\
        def note(fn):
            if fn is len:
                return "builtin"
            return "python"


        def wrap(fn):
            note(fn)  # what it says reaches nobody

            def wrapped(*args):
                return fn(*args)

            return wrapped
        """,
    "pkg/tests/test_core.py": """\
        import pkg
        from pkg.core import wrap


        def test_length():
            assert pkg.LENGTH("ab") == 2


        def test_wrap():
            assert wrap(abs)(-2) == 2
        """,
}


@pytest.mark.slow
def test_a_packages_set_up_by_pytest_is_not_what_its_first_test_receives(tmp_path):
    """Slow: one gate-4 run of a few re-imported mutants (about 15 s at load 20). Before, the
    file was rejected at 28.6%: five survivors in `note`, charged to `test_wrap`, the first test
    of each re-imported mutant's run."""
    root = write_project(tmp_path / "p", FILES)
    settings = Settings(gates=["compile", "green", "mutation"], cache=False)
    (f,) = verify([root / "pkg/tests/test_core.py"], settings).files
    gate = f.gates[-1]
    assert f.verdict is Verdict.ACCEPTED, gate.feedback
    unexercised = {m["line"] for m in gate.details["unexercised_mutants"]}
    # `note`'s mutants, and the call of it removed, change nothing the tests receive
    assert unexercised == {2, 4, 8}, gate.details["unexercised_mutants"]
