"""A flaky test's feedback shows the failure's exception, not the last line of its message:
humanfriendly 10.0's `test_timer` (wall-clock timing) was flaky with `+ 1 second`, the end of
unittest's diff of `'2 seconds' != '1 second'`; a failure with no message showed only where."""

from __future__ import annotations

from assay.api import verify
from assay.config import Settings
from assay.gates.stability import failure_line
from assay.model import Verdict

FILES = {
    "calc.py": 'def word(n):\n    return "1 second" if n == 1 else f"{n} seconds"\n',
    "tests/test_word.py": """
        import unittest
        from pathlib import Path

        from calc import word


        class Timer(unittest.TestCase):
            def test_word(self):
                marker = Path("marker.txt")
                expected = "2 seconds" if marker.exists() else "1 second"
                marker.write_text("x")
                self.assertEqual(word(1), expected)
        """,
}


def test_a_flaky_tests_feedback_shows_its_exception(project):
    root = project(FILES)
    report = verify(
        [root / "tests/test_word.py"], Settings(gates=["green", "stability"], cache=False)
    )
    [f] = report.files
    assert (f.verdict, f.rejected_at) == (Verdict.FLAKY, "stability")
    feedback = f.gates[-1].feedback
    assert "AssertionError: '1 second' != '2 seconds' (tests/test_word.py:13)" in feedback, feedback


def test_a_failure_message_without_e_lines_shows_its_exception_not_the_diffs_end():
    """humanfriendly's second run: flaky "when alone", the message unittest's own, no pytest `E`
    lines: it showed `?    ^`, the last line of the diff."""
    message = "AssertionError: '1.01' != '1.00'\n- 1.01\n?    ^\n+ 1.00\n?    ^"
    assert failure_line(message, message, "python") == "AssertionError: '1.01' != '1.00'"
    assert failure_line("", "", "python") == ""
