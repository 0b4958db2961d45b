"""Gates declare what they need, provide and support; the pipeline holds them to it."""

from __future__ import annotations

import pytest

from assay.api import verify
from assay.config import Settings
from assay.gates import REGISTRY
from assay.gates.base import BaseGate, GateContext
from assay.gates.compile import CompileGate
from assay.gates.green import GreenGate
from assay.model import Candidate, GateResult, GateStatus, Verdict

LIB = {
    "src/calc/__init__.py": "",
    "src/calc/ops.py": "def add(a, b):\n    return a + b\n"
    "\ndef half(n):\n    if n > 10:\n        return n // 2\n"
    "    return n\n",
}
ORDER = """
STATE = []

def test_first():
    STATE.append(1)
    assert STATE

def test_second():
    assert STATE == [1]
"""


def settings(*gates: str) -> Settings:
    s = Settings(gates=list(gates), cache=False)
    s.sandbox.timeout_s = 20
    s.stability.reruns = 1
    s.stability.budget_s = 0
    return s


def test_a_gate_whose_needs_no_earlier_gate_met_leaves_the_file_unvalidated(project):
    root = project({**LIB, "tests/test_order.py": ORDER})
    f = verify([root / "tests/test_order.py"], settings("compile", "stability")).files[0]
    assert (f.verdict, f.rejected_at) == (Verdict.UNVALIDATED, "stability")  # was `accepted` before
    skip = f.gates[-1]
    assert skip.status is GateStatus.SKIP and "needs passing_tests" in skip.feedback
    with_green = verify(
        [root / "tests/test_order.py"], settings("compile", "green", "stability")
    ).files[0]
    assert with_green.verdict is Verdict.FLAKY


def test_gates_are_constructed_with_settings_and_can_be_injected(project):
    root = project(
        {
            **LIB,
            "tests/test_ok.py": "from calc.ops import add\n\ndef test_add():\n"
            "    assert add(1, 2) == 3\n",
        }
    )

    class SlowTestsGate(BaseGate):
        """A team's own gate: every test must take less than `budget` seconds in the green run."""

        name = "budget"
        needs = ("test_durations",)

        def __init__(self, settings: Settings, budget: float):
            super().__init__(settings)
            self.budget = budget

        def run(self, candidate: Candidate, ctx: GateContext) -> GateResult:
            slow = [t for t, d in (ctx.facts.test_durations or {}).items() if d > self.budget]
            status = GateStatus.REJECT if slow else GateStatus.PASS
            return GateResult(
                self.name, status, 0.0, "REJECT: too slow: " + ", ".join(slow) if slow else ""
            )

    s = settings("compile", "green")
    strict = verify(
        [root / "tests/test_ok.py"], s, gates=[CompileGate(s), GreenGate(s), SlowTestsGate(s, -1.0)]
    )
    rejected = strict.files[0]
    assert (
        rejected.rejected_at == "budget"
        and "tests/test_ok.py::test_add" in rejected.gates[-1].feedback
    )
    lenient = verify(
        [root / "tests/test_ok.py"], s, gates=[CompileGate(s), GreenGate(s), SlowTestsGate(s, 60.0)]
    )
    assert lenient.files[0].verdict is Verdict.ACCEPTED


def test_a_gate_for_other_languages_skips_with_its_reason_and_the_file_can_pass(project):
    root = project(
        {
            **LIB,
            "tests/test_ok.py": "from calc.ops import add\n\ndef test_add():\n"
            "    assert add(1, 2) == 3\n",
        }
    )

    class GoOnly(BaseGate):
        name = "go-vet"
        languages = frozenset({"go"})

        def run(self, candidate, ctx):  # pragma: no cover - must never be called for Python
            raise AssertionError("ran on a python file")

    s = settings("compile", "green")
    f = verify(
        [root / "tests/test_ok.py"], s, gates=[CompileGate(s), GreenGate(s), GoOnly(s)]
    ).files[0]
    assert f.verdict is Verdict.ACCEPTED
    assert (
        f.gates[-1].status is GateStatus.SKIP and "not available for python" in f.gates[-1].feedback
    )


def test_declaring_a_fact_that_does_not_exist_fails_at_class_creation():
    with pytest.raises(TypeError, match="unknown facts"):

        class Broken(BaseGate):
            name = "broken"
            needs = ("coverage_of_everything",)  # type: ignore[assignment]


def test_every_registered_gate_declares_its_facts():
    provided = {fact for gate in REGISTRY.values() for fact in gate.provides}
    assert {fact for gate in REGISTRY.values() for fact in gate.needs} <= provided


def test_cheap_static_causes_come_first_in_a_later_gates_feedback(project):
    root = project(
        {
            **LIB,
            "tests/test_noassert.py": "from calc.ops import half\n\ndef test_half():\n"
            "    half(20)\n    half(3)\n",
        }
    )
    s = Settings(cache=False)
    s.sandbox.timeout_s = 20
    s.stability.reruns = 1
    s.stability.budget_s = 0
    f = verify([root / "tests/test_noassert.py"], s).files[0]
    assert f.rejected_at == "mutation"  # the deciding gate keeps its number
    lines = f.gates[-1].feedback.splitlines()
    assert lines[0] == "REJECT: Gate 5 — TEST SMELLS (static check, reported first)"
    assert "AS001" in lines[1] and any(
        line.startswith("REJECT: Gate 4 — LOW MUTATION SCORE") for line in lines
    )
    assert len(lines) <= 50
