"""Per-test results from JUnit XML (the JUnit console launcher, Surefire, Gradle, `node --test`):
the structured source the JVM and Node runners read, never their console text."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Callable
from pathlib import Path

from assay.execution.runner import Outcome, TestResult

MAX_MESSAGE_LINES = 12
_RUNNER_FRAMES = (
    "at org.junit.",
    "at java.base/",
    "at jdk.internal.",
    "at node:",
    "at async ",
    "at TestContext",
    "at Test.",
    "at Suite.",
    "at process.",
)


def _message(node: ET.Element) -> str:
    """The failure's own words: the message attribute, then the first lines of the stack trace."""
    head = (node.get("message") or "").strip()
    body = [ln.rstrip() for ln in (node.text or "").strip().splitlines() if ln.strip()]
    if head and body and head in body[0]:
        body = body[1:]
    frames = [
        ln
        for ln in body
        if ln.lstrip().startswith("at ") and not ln.lstrip().startswith(_RUNNER_FRAMES)
    ]
    # where, in the test's own code
    body = [ln for ln in body if not ln.lstrip().startswith("at ")] + frames[:1]
    return "\n".join([head, *body][:MAX_MESSAGE_LINES]).strip()


def skip_reason(node: ET.Element) -> str:
    """Why a test was skipped: Surefire puts it in the `message` attribute, the JUnit console
    launcher in the element's text, where a bare `@Disabled` reads "void com.acme.T.m() is
    @Disabled" (JUnit's own words): that is named "@Disabled"."""
    text = (node.get("message") or node.text or "").strip()
    return "@Disabled" if text.endswith(" is @Disabled") else text


def read(paths: list[Path], name_of: Callable[[str, str], str | None]) -> dict[str, TestResult]:
    """Test results of every testcase in the XML files; `name_of(classname, name)` gives the test
    id, or None to leave the testcase out (another class's, a suite's own)."""
    results: dict[str, TestResult] = {}
    for path in paths:
        try:
            root = ET.parse(path).getroot()
        except (OSError, ET.ParseError):
            continue
        for case in root.iter("testcase"):
            test_id = name_of(case.get("classname") or "", case.get("name") or "")
            if test_id is None:
                continue
            try:
                duration = float(case.get("time") or 0)
            except ValueError:
                duration = 0.0
            failure = case.find("failure")
            error = case.find("error")
            skipped = case.find("skipped")
            if failure is not None:
                outcome, msg = Outcome.FAILED, _message(failure)
            elif error is not None:
                outcome, msg = Outcome.FAILED, _message(error)
            elif skipped is not None:
                outcome, msg = Outcome.SKIPPED, skip_reason(skipped)
            else:
                outcome, msg = Outcome.PASSED, ""
            prev = results.get(test_id)
            if prev is not None and prev.outcome is not Outcome.PASSED:
                continue  # a parameterized case that failed decides the test
            results[test_id] = TestResult(test_id, outcome, duration, msg)
    return results
