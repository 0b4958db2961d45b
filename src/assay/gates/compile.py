"""Gate 1: the file parses, and pytest can import it and collect its tests in the sandbox."""

from __future__ import annotations

import time

from assay.feedback import collection_summary, compose, relativize, trim
from assay.gates.base import GateContext
from assay.languages.python import run_pytest
from assay.model import Candidate, GateResult, GateStatus, Verdict

HEADER = "REJECT: Gate 1 — COMPILE ERROR"
HINT = "Fix the compile errors: check imports, types, API compatibility."
MISSING_HEADER = "UNVALIDATED: Gate 1 — MISSING DEPENDENCY"
MISSING_HINT = ("Install the project's test dependencies for {python}, or set [tool.assay.python] interpreter to "
                "a Python that has them.")


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
            where = [e["nodeid"] or candidate.rel for e in run.errors]
            causes = [ctx.project.dependencies.explain(e["message"]) for e in run.errors]
            if all(causes):  # the environment lacks something the project itself needs: no verdict on the test
                tests_per_cause: dict[str, set[str]] = {}
                for w, cause in zip(where, causes, strict=True):
                    tests_per_cause.setdefault(cause, set()).add(w)
                body = [f"{candidate.rel}: {cause}" + (f" ({len(ws)} tests)" if len(ws) > 1 else "")
                        for cause, ws in tests_per_cause.items()]
                return GateResult(self.name, GateStatus.SKIP, time.monotonic() - start,
                                  compose(MISSING_HEADER, body, MISSING_HINT.format(python=ctx.python)),
                                  verdict=Verdict.UNVALIDATED, details={"missing_dependencies": len(body)})
            body = [f"{w}: {collection_summary(relativize(e['message'], *roots))}" for w, e in zip(where, run.errors,
                                                                                                 strict=True)]
            return reject(body, collection_errors=len(run.errors))
        if not run.collected:
            return reject([f"{candidate.rel}: no tests collected (no test_* functions or Test* classes)"])
        ctx.state["collected"] = run.collected
        return GateResult(self.name, GateStatus.PASS, time.monotonic() - start,
                          details={"collected": len(run.collected)})
