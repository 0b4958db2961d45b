"""Gate 4: the candidate's tests must kill enough mutants of the code they exercise.

Scope: mutants inside the functions and methods the candidate's tests execute in their call phase, so a
focused test of one function is not charged for the rest of a large module. The threshold depends on the
code class of the targets (pure / service / io, see `assay.mutation.codeclass`).
"""

from __future__ import annotations

import time

from assay.gates.base import GateContext
from assay.model import Candidate, GateResult, GateStatus, Verdict
from assay.mutation.codeclass import classify
from assay.mutation.engine import Engine, MutationError
from assay.mutation.summary import details, feedback, passes
from assay.store import Store


class MutationGate:
    name = "mutation"

    def run(self, candidate: Candidate, ctx: GateContext) -> GateResult:
        start = time.monotonic()
        conf = ctx.settings.mutation
        if not candidate.targets:
            return GateResult(self.name, GateStatus.SKIP, time.monotonic() - start,
                              details={"reason": "no target: the file imports no module of the project "
                                                 "(pass --target)"})
        tests = list(ctx.state.get("passing_tests") or [candidate.rel])
        packages = {name.split(".")[0] for name in ctx.project.modules}
        classes = [classify(rel, ctx.workspace.path(rel).read_text(encoding="utf-8", errors="replace"), conf,
                            packages) for rel in candidate.targets]
        code_class = max(classes, key=lambda c: conf.thresholds[c])
        threshold = conf.thresholds[code_class]
        store = Store(ctx.root) if ctx.settings.cache else None
        try:
            engine = Engine(ctx.workspace, ctx.sandbox, ctx.python, ctx.source_roots, conf,
                            ctx.settings.python.pytest_args, store)
            run = engine.run(list(candidate.targets), tests, scoped=True)
        except MutationError as err:  # no evidence either way: the file cannot be validated, never "passed"
            reason = f"mutation run failed: {str(err)[:500]}"
            return GateResult(self.name, GateStatus.SKIP, time.monotonic() - start,
                              f"SKIP: Gate 4 — MUTATION NOT MEASURED\n{reason}", verdict=Verdict.UNVALIDATED,
                              details={"reason": reason})
        finally:
            if store:
                store.close()
        info = details(run, threshold, code_class, conf.max_survivors)
        if passes(run, threshold):
            return GateResult(self.name, GateStatus.PASS, time.monotonic() - start, details=info)
        return GateResult(self.name, GateStatus.REJECT, time.monotonic() - start,
                          feedback(run, threshold, conf.max_survivors), details=info)
