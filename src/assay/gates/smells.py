"""Gate 5: test smells and test value, by static analysis of the test file and its
targets' source."""

from __future__ import annotations

import re
import threading
import time
from concurrent.futures import Future
from typing import ClassVar

from assay.config import Settings
from assay.feedback import compose
from assay.gates.base import BaseGate, GateContext, skipped
from assay.model import Candidate, GateResult, GateStatus, TestOutcome, Verdict
from assay.smells import Finding, analyze, polyglot, read_targets

_PARAMS = re.compile(r"\[.*\]$")
WARNING_MARK = " (a warning: not what fails the file)"


def _line(f: Finding) -> str:
    return f"{f.path}:{f.line} {f.rule} {f.text}"


def _hint(findings: list[Finding]) -> str:
    return " ".join(dict.fromkeys(f.hint for f in findings))


def _outcomes(
    candidate: Candidate, findings: list[Finding], collected: list[str]
) -> list[TestOutcome]:
    """Per-test verdicts for tests with reject-level or low-value findings, under pytest's node ids
    (one per parametrized case when the compile gate collected them)."""
    by_test: dict[str, list[Finding]] = {}
    for f in findings:
        if f.test and (f.level == "reject" or f.low_value) and f.level != "info":
            by_test.setdefault(f.test, []).append(f)
    out = []
    for test, found in by_test.items():
        base = f"{candidate.rel}::{test}"
        ids = [c for c in collected if _PARAMS.sub("", c) == base] or [base]
        verdict = Verdict.LOW_VALUE if all(f.low_value for f in found) else Verdict.REJECTED
        reason = "; ".join(f"{f.rule} {f.message}" for f in found)
        out += [TestOutcome(i, verdict, "smells", reason) for i in ids]
    return out


class SmellsGate(BaseGate):
    name = "smells"
    languages: ClassVar[frozenset[str] | None] = frozenset({"python"}) | polyglot.LANGUAGES
    static: ClassVar[bool] = True

    def __init__(self, settings: Settings) -> None:
        super().__init__(settings)
        # (file, its text) -> its findings, found while the gates before this one ran (`warm`);
        # taken once (by gate 5, or by `causes` when an earlier gate stops the file)
        self._early: dict[tuple[str, str], Future[list[Finding]]] = {}
        self._lock = threading.Lock()

    def warm(self, candidate: Candidate, ctx: GateContext) -> None:
        """A Python file's findings (static: its text and its targets', read from the user's
        tree) are found on a thread of their own while gates 1-4 run, not after gate 4."""
        if candidate.language != "python" or candidate.read_error:
            return
        future: Future[list[Finding]] = Future()
        with self._lock:
            self._early[candidate.rel, candidate.source] = future

        def find() -> None:
            try:
                future.set_result(self._analyze(candidate, ctx))
            except BaseException as err:  # raised where they are asked for, as before
                future.set_exception(err)

        threading.Thread(target=find, name="smells-ahead", daemon=True).start()

    def _findings(self, candidate: Candidate, ctx: GateContext) -> list[Finding]:
        with self._lock:
            future = self._early.pop((candidate.rel, candidate.source), None)
        return future.result() if future is not None else self._analyze(candidate, ctx)

    def _analyze(self, candidate: Candidate, ctx: GateContext) -> list[Finding]:
        # tree-sitter rules AP000-AP006 (docs/smells-polyglot.md)
        if candidate.language != "python":
            return polyglot.analyze(
                candidate.source, candidate.rel, candidate.language, ctx.settings.smells, ctx.root
            )
        return analyze(
            candidate.source,
            candidate.rel,
            read_targets(ctx.root, candidate.targets),
            ctx.settings.smells,
            ctx.root,
        )

    def causes(self, candidate: Candidate, ctx: GateContext) -> list[str]:
        """Reject-level findings (no assertion, tautology, mocked code under test ...):
        milliseconds to find, and often the root cause of a later gate's reject, so they are
        reported first with it."""
        if (
            candidate.language not in (self.languages or {candidate.language})
            or candidate.read_error
        ):
            return []
        found = self._findings(candidate, ctx)
        # a mixin's finding is one line, however many test classes run it
        return list(
            dict.fromkeys(_line(f) for f in found if f.level == "reject" and f.rule != "AS000")
        )

    def run(self, candidate: Candidate, ctx: GateContext) -> GateResult:
        start = time.monotonic()
        if candidate.language != "python" and not polyglot.available(
            candidate.language, candidate.rel
        ):
            return skipped(
                self,
                f"the tree-sitter grammar for {candidate.language} is not installed "
                "(pip install the tree-sitter grammar wheels: see docs/languages.md)",
            )
        findings = self._findings(candidate, ctx)
        shown = [f for f in findings if f.level in ("reject", "warn")]
        smells = [f for f in shown if f.level == "reject" and not f.low_value]
        low = [f for f in shown if f.low_value]
        verdict = None
        if smells:
            status, header = GateStatus.REJECT, "REJECT: Gate 5 — TEST SMELLS"
        elif low:
            verdict = Verdict.LOW_VALUE
            rejecting = any(f.level == "reject" for f in low)
            status = GateStatus.REJECT if rejecting else GateStatus.WARN
            header = f"{'REJECT' if rejecting else 'WARN'}: Gate 5 — LOW-VALUE TESTS"
        elif shown:
            status, header = GateStatus.WARN, "WARN: Gate 5 — TEST SMELLS"
        else:
            status, header = GateStatus.PASS, ""
        ordered = sorted(shown, key=lambda f: (f.level != "reject", f.line, f.col))
        # under a REJECT, a warning says so: python-box's two rejecting lines came with 14
        # warnings in one list, and which made the file fail was not told
        mark = status is GateStatus.REJECT
        lines = [_line(f) + (WARNING_MARK if mark and f.level == "warn" else "") for f in ordered]
        feedback = (
            compose(header, list(dict.fromkeys(lines)), _hint(smells or low or shown))
            if shown
            else ""
        )
        return GateResult(
            self.name,
            status,
            time.monotonic() - start,
            feedback,
            verdict=verdict,
            tests=_outcomes(candidate, findings, ctx.facts.collected or []),
            details={
                "findings": [
                    {
                        "rule": f.rule,
                        "level": f.level,
                        "line": f.line,
                        "col": f.col,
                        "message": f.message,
                        "test": f.test,
                    }
                    for f in findings
                ]
            },
        )
