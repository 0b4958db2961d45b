"""AS024 (an assertion decided by randomness, the clock or the network) where the surroundings of
the test decide: a seed set in a conftest.py, and gate 5 of `verify`."""

from __future__ import annotations

from assay.api import verify
from assay.config import Settings
from assay.model import GateStatus, Verdict
from assay.smells import analyze

FILES = {
    "dice.py": """\
        def roll(rng):
            return rng.randint(1, 6)
        """,
    "tests/test_dice.py": """\
        import random

        from dice import roll


        def test_roll_is_high():
            value = random.randint(1, 6)
            assert value > 2
        """,
}


def as024(root):
    source = (root / "tests/test_dice.py").read_text()
    return [(f.rule, f.line) for f in analyze(source, "tests/test_dice.py", {}, root=root)]


def test_an_assertion_on_an_unseeded_draw_rejects_the_file_at_gate_5(project):
    root = project(FILES)
    assert ("AS024", 8) in as024(root)
    settings = Settings(gates=["compile", "smells"], cache=False)
    (f,) = verify([root / "tests/test_dice.py"], settings).files
    assert (f.verdict, f.rejected_at, f.gates[-1].status) == (
        Verdict.REJECTED,
        "smells",
        GateStatus.REJECT,
    )
    assert "tests/test_dice.py:8 AS024 test_roll_is_high: assertion decided by unseeded " in (
        f.gates[-1].feedback
    )


def test_a_seed_in_a_conftest_above_the_file_seeds_its_tests(project):
    root = project(
        {
            **FILES,
            "tests/conftest.py": """\
                import random

                import pytest


                @pytest.fixture(autouse=True)
                def _seed():
                    random.seed(20)
                """,
        }
    )
    assert as024(root) == []
