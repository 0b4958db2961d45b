"""Progress is typed events a renderer draws: the library never prints, nothing parses strings."""

from __future__ import annotations

from assay import api
from assay.events import FileDone, GateStarted, Started
from assay.model import Verdict

GATES = "[tool.assay]\ngates = ['compile', 'green']\n"
TEST = "from calc import add\n\ndef test_add():\n    assert add(2, {}) == 5\n"


def test_verify_reports_its_progress_as_typed_events(project):
    root = project(
        {
            "src/calc.py": "def add(a, b):\n    return a + b\n",
            "tests/test_ok.py": TEST.format(3),
            "tests/test_bad.py": TEST.format(2),
        },
        GATES,
    )
    events: list[object] = []
    api.verify([root / "tests"], root=root, use_cache=False, on_event=events.append)
    assert events[0] == Started(2)
    gates = {(e.file, e.gate) for e in events if isinstance(e, GateStarted)}
    assert ("tests/test_bad.py", "green") in gates
    done = {e.file: e for e in events if isinstance(e, FileDone)}
    assert done["tests/test_ok.py"].verdict is Verdict.ACCEPTED
    assert done["tests/test_bad.py"].rejected_at == "green"
    assert done["tests/test_bad.py"].describe().startswith("rejected at green (")

    again: list[object] = []
    api.verify([root / "tests/test_ok.py"], root=root, on_event=again.append)
    assert [e.describe() for e in again if isinstance(e, FileDone)][-1] == "cached"
