"""Go test binaries run directly: gate 1 builds the package's test binary once (`go test -c`), and
every run of gates 2 and 3 executes it, as `go test` itself does, without the `go` command's own
start-up, package loading and relinking each time (about 0.4 s a run, where the binary takes
milliseconds; stability alone runs a file 5 times plus once per test).

The binary runs with `-test.v=test2json`, the mode `go test -json` uses: framing lines start with
a SYN byte, so a test's own output can never pass for a result. `events` turns that output into the
events `go test -json` prints, `results` those events into a TestRun.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from pathlib import Path

from assay.execution.runner import Outcome, TestResult, TestRun
from assay.execution.workspace import Workspace
from assay.feedback import relativize
from assay.languages.tooling import TEST_ID_SEP, Ran

SYN = "\x16"
_TIMED_OUT = "panic: test timed out after"
_RUN_NOISE = re.compile(r"^\s*(=== (RUN|PAUSE|CONT|NAME)|--- (FAIL|PASS|SKIP):)")
_FRAME = re.compile(
    r"^\s*(?:=== (RUN|NAME|CONT|PAUSE) {1,3}(\S*)|--- (PASS|FAIL|SKIP): (\S+) \((\d+\.\d+)s\))"
)


@dataclass(frozen=True)
class TestBinary:
    """A package's test binary in a workspace, and the state of the sources it was built from."""

    path: Path
    built_from: tuple
    built_in: str | None = None  # the scratch project a kept binary was built in (`go_binaries`)


def sources_state(ws: Workspace, package_dir: Path, module_dir: Path) -> tuple:
    """What a binary's freshness depends on: the workspace's resets, and the name, size and mtime
    of every file of the package and of go.mod / go.sum (a candidate rewritten in place changes
    them)."""
    state: list[object] = [ws.resets]
    for directory in (package_dir, module_dir):
        try:
            entries = sorted(os.scandir(directory), key=lambda e: e.name)
        except OSError:
            continue
        for entry in entries:
            if entry.is_file() and entry.name.endswith((".go", ".mod", ".sum", ".s")):
                st = entry.stat()
                state.append((entry.path, st.st_size, st.st_mtime_ns))
    return tuple(state)


def events(stdout: str, stderr: str) -> list[dict]:
    """`go test -json`'s events (`Test`, `Action`, `Output`, `Elapsed`) from a binary's test2json
    output. stderr (a panic's trace) follows stdout and belongs to the test named last, as when
    `go test` merges the two streams; results come last, so each test's output is complete."""
    out: list[dict] = []
    results: list[dict] = []
    current = ""
    for line in [*stdout.splitlines(), *stderr.splitlines()]:
        framed = line.lstrip().startswith(SYN)
        found = _FRAME.match(line.replace(SYN, "")) if framed else None
        if found is None:
            if current:
                out.append({"Action": "output", "Test": current, "Output": line + "\n"})
            continue
        kind, name, outcome, finished, elapsed = found.groups()
        if kind in ("RUN", "NAME", "CONT"):
            current = name
            if kind == "RUN":
                out.append({"Action": "run", "Test": name})
        elif outcome:
            results.append({"Action": outcome.lower(), "Test": finished, "Elapsed": float(elapsed)})
    return out + results


def results(rel: str, ran: Ran, stream: list[dict], timeout_s: float) -> TestRun:
    """A TestRun from `go test -json`'s events (`events`, or `go test -json` itself)."""
    run = TestRun(exit_status=ran.result.returncode, duration_s=ran.result.duration_s)
    output: dict[str, list[str]] = {}
    started: list[str] = []
    for event in stream:
        test = event.get("Test")
        if not test:
            continue
        top = test.split("/", 1)[0]
        action = event.get("Action")
        if action == "output":
            text = event.get("Output", "")
            if not _RUN_NOISE.match(text):
                output.setdefault(top, []).append(text.rstrip("\n"))
        elif action == "run" and test == top:
            started.append(top)
        elif action in ("pass", "fail", "skip") and test == top:
            outcome = {"pass": Outcome.PASSED, "fail": Outcome.FAILED, "skip": Outcome.SKIPPED}[
                action
            ]
            msg = relativize("\n".join(ln for ln in output.get(top, []) if ln.strip()), *ran.roots)
            run.tests[f"{rel}{TEST_ID_SEP}{top}"] = TestResult(
                f"{rel}{TEST_ID_SEP}{top}",
                outcome,
                float(event.get("Elapsed") or 0),
                msg.strip(),
            )
    unfinished = [t for t in started if f"{rel}{TEST_ID_SEP}{t}" not in run.tests]
    # go test's own -timeout: on stdout through `go test`, on stderr from the binary itself
    if ran.result.timed_out or _TIMED_OUT in ran.result.stdout + ran.result.stderr:
        run.timed_out = True
        run.crash = f"timed out after {timeout_s:g} s"
        run.running = f"{rel}{TEST_ID_SEP}{unfinished[-1]}" if unfinished else None
    elif unfinished or (
        ran.result.returncode != 0
        and not any(r.outcome is Outcome.FAILED for r in run.tests.values())
    ):
        run.crash = ran.why("go test")
        if unfinished:
            run.running = f"{rel}{TEST_ID_SEP}{unfinished[-1]}"
            panic = "\n".join(output.get(unfinished[-1], [])[-10:])
            run.crash = relativize(panic, *ran.roots) or run.crash
    return run


def json_events(stdout: str) -> list[dict]:
    """The events of `go test -json` (lines that are not JSON objects left out)."""
    found = []
    for line in stdout.splitlines():
        try:
            event = json.loads(line)
        except ValueError:
            continue
        if isinstance(event, dict):
            found.append(event)
    return found
