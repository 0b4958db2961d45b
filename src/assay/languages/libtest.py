"""Per-test results of a Rust test binary (libtest) from its JSON events (`-Z unstable-options
--format json --report-time`), with the panic's own words: thread names and backtrace notes cut."""

from __future__ import annotations

import json
import re

from assay.execution.runner import Outcome, TestResult, TestRun
from assay.feedback import relativize
from assay.languages.tooling import TEST_ID_SEP, Ran

_BACKTRACE = re.compile(
    r"^(stack backtrace:|\s+\d+: |\s+at /rustc/|note: (Some details are omitted|run with))"
)
_THREAD = re.compile(r"^thread '[^']*' (\(\d+\) )?")


def results(rel: str, ran: Ran) -> TestRun:
    """A TestRun from the test binary's JSON events (`--format json`)."""
    run = TestRun(exit_status=ran.result.returncode, duration_s=ran.result.duration_s)
    started: list[str] = []
    for line in ran.result.stdout.splitlines():
        try:
            event = json.loads(line)
        except ValueError:
            continue
        if event.get("type") != "test":
            continue
        name, kind = event.get("name", ""), event.get("event")
        if kind == "started":
            started.append(name)
            continue
        outcome = {
            "ok": Outcome.PASSED,
            "failed": Outcome.FAILED,
            "ignored": Outcome.SKIPPED,
            "timeout": Outcome.TIMEOUT,
        }.get(kind or "")
        if outcome is None:
            continue
        text = event.get("stdout") or event.get("message") or ""
        msg = "\n".join(
            _THREAD.sub("", ln)
            for ln in text.strip().splitlines()
            if ln.strip() and not _BACKTRACE.match(ln)
        )
        test_id = f"{rel}{TEST_ID_SEP}{name}"
        run.tests[test_id] = TestResult(
            test_id, outcome, float(event.get("exec_time") or 0), relativize(msg, *ran.roots)
        )
    unfinished = [n for n in started if f"{rel}{TEST_ID_SEP}{n}" not in run.tests]
    if unfinished or (ran.result.returncode not in (0, 101) and not run.tests):
        run.crash = ran.why("the test binary")
        run.running = f"{rel}{TEST_ID_SEP}{unfinished[-1]}" if unfinished else None
    return run
