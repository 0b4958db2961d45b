"""Per-test results of a JavaScript test runner from its structured report: vitest's and jest's
JSON (`--reporter=json`, `--json`), `node --test`'s JUnit XML; failure messages cut to their own
words and the stack frames in the project's code."""

from __future__ import annotations

import json
import os
import re
import xml.etree.ElementTree as ET
from pathlib import Path

from assay.execution.runner import Outcome, TestResult
from assay.feedback import relativize
from assay.languages.tooling import TEST_ID_SEP

_ANSI = re.compile(r"\x1b\[[0-9;]*m")
TITLE_SEP = " > "  # describe > it, as vitest names a test
_OWN_FRAMES = re.compile(
    r"node_modules|node:internal|^\s*at new Promise|^\s*at (async )?(runTest|runWithTimeout)"
)


def _message(text: str, roots: tuple[str, ...]) -> str:
    """A failure's first line and the stack frames in the project's own code (not the runner's),
    without colour codes (ts-jest colours its diagnostics: `\x1b[90m TS7016: \x1b[0m`)."""
    text = _ANSI.sub("", text)
    lines = [ln.rstrip() for ln in relativize(text, *roots).strip().splitlines() if ln.strip()]
    head = [ln for ln in lines if not ln.lstrip().startswith("at ")][:6]
    frames = [
        ln.strip() for ln in lines if ln.lstrip().startswith("at ") and not _OWN_FRAMES.search(ln)
    ]
    return "\n".join(head + frames[:1])


def results(out: Path, rel: str, runner: str, roots: tuple[str, ...]) -> dict[str, TestResult]:
    results: dict[str, TestResult] = {}
    if runner == "node":
        try:
            root = ET.parse(out).getroot()
        except (OSError, ET.ParseError):
            return results
        _walk_junit(root, [], rel, results, roots)
        return results
    try:
        data = json.loads(out.read_text())
    except (OSError, ValueError):
        return results
    status = {
        "passed": Outcome.PASSED,
        "failed": Outcome.FAILED,
        "skipped": Outcome.SKIPPED,
        "pending": Outcome.SKIPPED,
        "todo": Outcome.SKIPPED,
        "disabled": Outcome.SKIPPED,
    }
    for suite in data.get("testResults", []):
        for case in suite.get("assertionResults", []):
            # vitest 1 names the file's own suite "" first: ids read `file:: > describe > it`
            titles = [t for t in case.get("ancestorTitles", []) if t]
            name = TITLE_SEP.join([*titles, case.get("title", "")])
            test_id = f"{rel}{TEST_ID_SEP}{name}"
            msg = _message("\n".join(case.get("failureMessages") or []), roots)
            results[test_id] = TestResult(
                test_id,
                status.get(case.get("status"), Outcome.FAILED),
                float(case.get("duration") or 0) / 1000,
                msg,
            )
        # the file failed to load
        if not suite.get("assertionResults") and suite.get("message"):
            test_id = f"{rel}{TEST_ID_SEP}<file>"
            results[test_id] = TestResult(
                test_id, Outcome.ERROR, 0.0, _message(suite["message"], roots)
            )
    return results


def _walk_junit(
    node: ET.Element,
    path: list[str],
    rel: str,
    results: dict[str, TestResult],
    roots: tuple[str, ...],
) -> None:
    """`node --test`'s JUnit XML: a describe is a nested <testsuite>, a test a <testcase>."""
    for child in node:
        if child.tag == "testsuite":
            _walk_junit(child, [*path, child.get("name", "")], rel, results, roots)
        elif child.tag == "testcase":
            title = child.get("name", "")
            if not path and os.path.isabs(title):  # a file without node:test tests (tape): the
                # one test `node --test` makes of it is named by the scratch copy's path
                title = relativize(title, *roots)
            name = TITLE_SEP.join([*path, title])
            failure = child.find("failure")
            skipped = child.find("skipped")
            outcome = (
                Outcome.FAILED
                if failure is not None
                else Outcome.SKIPPED
                if skipped is not None
                else Outcome.PASSED
            )
            # node 20's reporter escapes `"` twice in the message attribute (`&amp;quot;`): read
            # once, it still says `&quot;`
            said = (
                (failure.get("message") or "").replace("&quot;", '"') if failure is not None else ""
            )
            msg = "" if failure is None else _message(said + "\n" + (failure.text or ""), roots)
            test_id = f"{rel}{TEST_ID_SEP}{name}"
            results[test_id] = TestResult(test_id, outcome, float(child.get("time") or 0), msg)
