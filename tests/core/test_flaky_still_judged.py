"""A file stopped as flaky still has its other tests judged by what reads only the code: one
flaky test (humanfriendly 10.0's `test_timer`) left 68 of 69 tests "not judged", though gate 5's
smells take milliseconds. The file stays flaky; a test with a reject-level smell is rejected at
smells; the rest are not judged, and say that gate 5 found nothing in them. The summary, JSON,
JUnit and exit code agree."""

from __future__ import annotations

import pytest

from assay.api import verify
from assay.config import Settings
from assay.model import NOT_JUDGED, Verdict
from assay.report import junit

FILES = {
    "calc.py": (
        'def word(n):\n    return "1 second" if n == 1 else f"{n} seconds"\n\n\n'
        "def add(a, b):\n    return a + b\n"
    ),
    "tests/test_word.py": """
        from pathlib import Path

        from calc import add, word


        def test_word():
            marker = Path("marker.txt")
            expected = "2 seconds" if marker.exists() else "1 second"
            marker.write_text("x")
            assert word(1) == expected


        def test_add_runs():
            add(1, 2)


        def test_add():
            assert add(1, 2) == 3
        """,
}


@pytest.mark.slow
def test_the_other_tests_of_a_flaky_file_get_the_static_gates_verdicts(project):
    """Slow: gates 1-3 on one small file (about 18 s wall at load 19)."""
    root = project(FILES)
    settings = Settings(gates=["compile", "green", "stability", "mutation", "smells"], cache=False)
    report = verify([root / "tests/test_word.py"], settings)
    [f] = report.files
    assert (f.verdict, f.rejected_at) == (Verdict.FLAKY, "stability")
    by_name = {t.id.rsplit("::", 1)[-1]: t for t in f.tests}
    assert by_name["test_word"].verdict is Verdict.FLAKY
    runs = by_name["test_add_runs"]
    assert (runs.verdict, runs.gate) == (Verdict.REJECTED, "smells")
    assert runs.reason.startswith("AS001"), runs.reason
    clean = by_name["test_add"]
    assert clean.verdict is Verdict.UNVALIDATED
    assert clean.reason == f"{NOT_JUDGED} stability; smells found nothing in it"
    # gate 4 never ran; gate 5 did: its findings under gate 3's `static`, named once in its feedback
    assert [g.gate for g in f.gates] == ["compile", "green", "stability"]
    static = f.gates[-1].details["static"]["smells"]
    assert static["status"] == "reject"
    assert [x["rule"] for x in static["findings"] if x["level"] == "reject"] == ["AS001"]
    assert f.gates[-1].feedback.count("AS001") == 1, f.gates[-1].feedback
    counts = report.summary()
    assert (counts["flaky"], counts["tests"]["flaky"], counts["tests"]["rejected"]) == (1, 1, 1)
    assert (counts["unvalidated_tests"], counts["not_judged_tests"]) == (1, 1)
    assert [t["verdict"] for t in report.to_json()["files"][0]["tests"]] == [
        "flaky",
        "rejected",
        "unvalidated",
    ]
    assert 'failures="2"' in junit.render(report)
    assert report.exit_code == 1
