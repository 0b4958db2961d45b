"""Gate 1: the file parses, and pytest can import it and collect its tests in the sandbox."""

from __future__ import annotations

import time

from assay.feedback import compose, relativize, trim
from assay.gates.base import GateContext
from assay.languages.python import run_pytest
from assay.model import Candidate, GateResult, GateStatus

HEADER = "REJECT: Gate 1 — COMPILE ERROR"
HINT = "Fix the compile errors: check imports, types, API compatibility."


class CompileGate:
    name = "compile"

    def run(self, candidate: Candidate, ctx: GateContext) -> GateResult:
        start = time.monotonic()

        def reject(body: list[str], **details) -> GateResult:
            return GateResult(self.name, GateStatus.REJECT, time.monotonic() - start,
                              compose(HEADER, body, HINT), details=details)

        if candidate.read_error:
            return reject([f"{candidate.rel}: {candidate.read_error}"])
        try:
            compile(candidate.source, candidate.rel, "exec", dont_inherit=True)
        except SyntaxError as err:
            return reject([f"{candidate.rel}:{err.lineno}: SyntaxError: {err.msg}"])
        except ValueError as err:  # e.g. null bytes
            return reject([f"{candidate.rel}: {err}"])

        run = run_pytest(ctx, candidate.rel, mode="collect")
        roots = (str(ctx.workspace.project), str(ctx.root))
        if run.crash:
            return reject([f"{candidate.rel}: collection did not finish: {trim(relativize(run.crash, *roots))}"])
        if run.errors:
            body = [f"{e['nodeid'] or candidate.rel}: {trim(relativize(e['message'], *roots))}" for e in run.errors]
            return reject(body, collection_errors=len(run.errors))
        if not run.collected:
            return reject([f"{candidate.rel}: no tests collected (no test_* functions or Test* classes)"])
        ctx.state["collected"] = run.collected
        return GateResult(self.name, GateStatus.PASS, time.monotonic() - start,
                          details={"collected": len(run.collected)})
