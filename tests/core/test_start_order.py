"""Files start longest first, by what their gates took in the previous run: the file still running
at the end of a `verify DIR` is a short one, not a long one alone on one core while the others
idle. The order is observed in the run's own events; the report keeps the order of the paths."""

from __future__ import annotations

from pathlib import Path

from assay.api import verify
from assay.config import Settings
from assay.events import GateStarted, ProgressEvent
from assay.execution.order import NAMESPACE
from assay.store import Store

QUICK = "def test_quick():\n    assert 1 + 1 == 2\n"
SLOW = "import time\n\n\ndef test_slow():\n    time.sleep(0.3)\n    assert 1 + 1 == 2\n"
FILES = ["tests/test_a.py", "tests/test_b.py", "tests/test_c_slow.py"]


def started_order(root: Path) -> list[str]:
    started: list[str] = []

    def seen(event: ProgressEvent) -> None:
        if isinstance(event, GateStarted):
            started.append(event.file)

    # --no-cache: the verdicts are judged again, the hints are still read
    report = verify(
        [root / "tests"], Settings(gates=["green"], jobs=1), use_cache=False, on_event=seen
    )
    assert [f.path for f in report.files] == FILES
    return started


def test_files_start_in_the_order_of_what_they_took_last_time(project):
    root = project({FILES[0]: QUICK, FILES[1]: QUICK, FILES[2]: SLOW})
    assert started_order(root) == FILES  # nothing timed yet: the order of the paths
    with Store(root) as store:
        took = {rel: store.get(NAMESPACE, rel) for rel in FILES}
    assert took[FILES[2]] >= 0.3  # its test sleeps that long
    assert started_order(root) == sorted(FILES, key=lambda rel: -took[rel])
