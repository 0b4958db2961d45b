"""When no input of a function evaluates, the report says the error that stopped them. uritools'
`SplitResult.getpath`: "none of its 156 inputs gave an outcome a test can pin (156 does not
evaluate)" - true, but not what to fix: every receiver was `SplitResult()`, and
`SplitResult.__new__() missing 5 required positional arguments` is. On
tests/offline/fixtures/receiver/pairs.py."""

from __future__ import annotations

import shutil
import sys
import time

from assay._assay_sandbox.offline.worker import explore
from assay._assay_sandbox.protocol import OfflineFunction, OfflineJob
from assay.writers.offline.outcomes import _no_input
from tests.offline.test_docstring_types import PATH as CODEC

FIXTURE = CODEC.parent.parent / "receiver" / "pairs.py"


def test_inputs_whose_receiver_cannot_be_built_say_why(tmp_path):
    shutil.copy(FIXTURE, tmp_path / "pairs.py")
    sys.path.insert(0, str(tmp_path))
    try:
        import pairs

        path = str(tmp_path / "pairs.py")
        job = OfflineJob(
            "",
            "",
            "",
            "pairs",
            path,
            ["from pairs import Pair"],
            [],
            [],
            call_timeout=1.0,
            max_inputs=4,
        )
        inputs = [{"args": [a], "kwargs": {}, "receiver": "Pair()"} for a in ("0", "1", "2")]
        fn = OfflineFunction("Pair.total", "method", inputs)
        now = time.monotonic()
        found = explore(job, pairs, fn, path, now + 5, False, now + 30)
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop("pairs", None)
    assert not found["kept"] and set(found["dropped"]) == {"does not evaluate"}, found
    reason = _no_input(found)
    assert "does not evaluate: TypeError: " in reason, reason
    assert "missing 2 required positional arguments" in reason, reason
