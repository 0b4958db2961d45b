"""Gates 1 and 2 share one pytest process per Python file: the collection that passes gate 1 goes on
to run the tests gate 2 judges (one interpreter start and one collection less per file); a run that
crashed is no evidence on collection, so gate 1 then collects alone and gate 2 runs afresh."""

from __future__ import annotations

import json

from assay.api import verify
from assay.config import Settings
from assay.gates.base import BaseGate, GateContext
from assay.gates.compile import CompileGate
from assay.gates.green import GreenGate
from assay.model import Candidate, GateResult, GateStatus

LIB = {"src/calc/__init__.py": "", "src/calc/ops.py": "def add(a, b):\n    return a + b\n"}


class Sessions(BaseGate):
    """The pytest processes the gates before it started for the file, by mode (their job files)."""

    name = "sessions"

    def run(self, candidate: Candidate, ctx: GateContext) -> GateResult:
        jobs = sorted(ctx.workspace.run_dir.glob("*.job.json"), key=lambda p: p.stat().st_mtime_ns)
        modes = [json.loads(p.read_text())["mode"] for p in jobs]
        return GateResult(self.name, GateStatus.PASS, 0.0, details={"modes": modes})


def _verify(root, rel: str):
    s = Settings(gates=["compile", "green"], cache=False)
    s.sandbox.timeout_s = 20
    return verify([root / rel], s, gates=[CompileGate(s), GreenGate(s), Sessions(s)]).files[0]


def test_gates_one_and_two_run_one_pytest_process_and_fall_back_after_a_crash(project):
    root = project(
        {
            **LIB,
            "tests/test_ok.py": "from calc.ops import add\n\n\ndef test_add():\n"
            "    assert add(1, 2) == 3\n",
            "tests/test_bad.py": "from calc.ops import add\n\n\ndef test_add():\n"
            "    assert add(1, 2) == 4\n",
            "tests/test_exit.py": "import os\n\nfrom calc.ops import add\n\n\ndef test_add():\n"
            "    add(1, 2)\n    os._exit(3)\n",
            "tests/test_fixture.py": "def test_add(nowhere):\n    assert nowhere\n",
        }
    )
    ok = _verify(root, "tests/test_ok.py")
    assert ok.rejected_at is None and ok.gates[-1].details["modes"] == ["checked"]
    # gate 2 judges the run gate 1's process made
    bad = _verify(root, "tests/test_bad.py")
    assert bad.rejected_at == "green" and "assert 3 == 4" in bad.gates[-1].feedback
    # the process died in a test: gate 1 answers from a collection alone, gate 2 sees the crash
    crashed = _verify(root, "tests/test_exit.py")
    assert crashed.rejected_at == "green"
    fixture = _verify(root, "tests/test_fixture.py")
    assert fixture.rejected_at == "compile" and "fixture 'nowhere' not found" in (
        fixture.gates[0].feedback
    )
