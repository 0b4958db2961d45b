"""Gate 4 runs each test under its warning filters, as pytest does: async_lru 2.4.0's tests marked
`@pytest.mark.filterwarnings("ignore::...")`, in a project whose `filterwarnings = error`, passed
gates 2 and 3 and failed on the unmutated code in gate 4's baseline: sound tests called flaky."""

from __future__ import annotations

import pytest

from assay.api import verify
from assay.model import Verdict

FILES = {
    "pkg/__init__.py": """
        import warnings


        class ResetWarning(UserWarning):
            pass


        class Counter:
            def __init__(self):
                self.n = 0
                self.owner = None

            def hit(self, owner):
                if self.owner is not None and self.owner != owner:
                    warnings.warn("owner changed", ResetWarning)
                    self.n = 0
                self.owner = owner
                self.n += 1
                return self.n
        """,
    "tests/test_counter.py": """
        import pytest

        from pkg import Counter


        def test_counts():
            c = Counter()
            assert c.hit("a") == 1
            assert c.hit("a") == 2


        @pytest.mark.filterwarnings("ignore::pkg.ResetWarning")
        def test_reset_on_new_owner():
            c = Counter()
            c.hit("a")
            assert c.hit("b") == 1
        """,
}


@pytest.mark.slow
def test_a_test_marked_to_ignore_a_warning_is_not_flaky_in_gate_4(project):
    root = project(
        FILES,
        '[tool.pytest.ini_options]\nfilterwarnings = ["error"]\n'
        "[tool.assay]\ngates = ['compile', 'green', 'mutation']\n",
    )
    f = verify([root / "tests"], root=root, use_cache=False).files[0]
    mutation = next(g for g in f.gates if g.gate == "mutation")
    assert f.verdict is Verdict.ACCEPTED, mutation.feedback
    assert {t.verdict for t in f.tests} == {Verdict.ACCEPTED}
    # the mark's warning is the test's to ignore: the mutant that skips the reset is killed
    assert mutation.details["killed"] and not mutation.details["survived"], mutation.details
