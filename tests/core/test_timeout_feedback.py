"""A test that runs past the sandbox's time limit is rejected at gate 2, and the feedback says
which limit and how to raise it; a smell such as "no assertion" is no cause of a timeout, so it
follows the failure instead of leading it as "the likely cause". mccabe 0.7.0's hypothesis test
(1,000 generated modules, about a minute quiet, three under load) read "AS001 no assertion ... Fix
these first: they are the likely cause of the reject below. REJECT: Gate 2 ... timed out after
60 s"."""

from __future__ import annotations

import pytest

from assay.api import verify
from assay.config import Settings
from assay.model import Verdict


@pytest.mark.slow  # 7 s in the fast lane on 2 cores (the CI simulation)
def test_a_timeout_names_the_limit_and_its_smells_follow_it(project):
    root = project(
        {
            "calc.py": "def add(a, b):\n    return a + b\n",
            "tests/test_slow.py": "from calc import add\n\n\ndef test_many():\n"
            "    while True:\n        add(1, 2)\n",
        }
    )
    s = Settings(gates=["compile", "green", "smells"], cache=False)
    s.sandbox.timeout_s = 3
    f = verify([root / "tests/test_slow.py"], s).files[0]
    assert (f.verdict, f.rejected_at) == (Verdict.REJECTED, "green"), f
    feedback = f.gates[-1].feedback
    assert "timed out after 3 s" in feedback, feedback
    assert "[tool.assay.sandbox] timeout_s" in feedback, feedback
    assert "likely cause" not in feedback, feedback
    assert feedback.index("timed out") < feedback.index("AS001"), feedback
    assert "not the cause of the timeout above" in feedback, feedback
