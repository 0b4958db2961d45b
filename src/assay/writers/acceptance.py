"""The end of one target's run: what it keeps (the passing tests of a file that failed in part),
the final check, and the one new file written."""

from __future__ import annotations

from assay.model import FileReport, GateStatus, Verdict
from assay.words import counted
from assay.writers.output import compose_final
from assay.writers.report import Dropped, TargetResult
from assay.writers.steps import DROP, TargetSteps, feedback_of

SALVAGE_TRIES = 2  # verified files split at the end (each split is a run of gates 1-5)


class TargetAcceptance(TargetSteps):
    """Salvage and finish: turns what a target's steps verified into its result and its file."""

    def salvage(self) -> TargetResult:
        """No attempt was accepted whole: keep the tests of a verified file that passed every gate
        that judged them (the failing ones cut out, the rest re-verified as a file). The file with
        the most such tests is tried first, the latest of equals, then the next: a last answer
        that broke what an earlier one got right does not lose the earlier tests."""
        partly = [
            v
            for v in reversed(self.verified)
            if 0 < sum(t.verdict in DROP for t in v.report.tests) < len(v.report.tests)
        ]
        partly.sort(key=lambda v: -sum(t.verdict is Verdict.ACCEPTED for t in v.report.tests))
        for n, v in enumerate(partly[:SALVAGE_TRIES]):
            drop = [t.id for t in v.report.tests if t.verdict in DROP]
            rest = self.split(v.source, drop)
            if rest is not None:
                self.result.attempts[-1].answer = v.answer
            if rest is not None and rest[1].verdict is Verdict.ACCEPTED or n == 0:
                for t in v.report.tests:
                    if t.verdict in DROP and t.id not in self.dropped:
                        self.result.dropped.append(Dropped(t.id, t.verdict.value, t.gate, t.reason))
            if rest is not None and rest[1].verdict is Verdict.ACCEPTED:
                return self.finish(*rest, partial=True)
        if self.bug_sources:
            return self.finish(None, None)
        if self.result.outcome not in ("error",):
            flaky = any(d.verdict == "flaky" for d in self.result.dropped)
            self.result.outcome = (
                "budget"
                if self.gen.stopped and not self.gen.fatal and self.result.note
                else "flaky"
                if flaky
                else "rejected"
            )
            last = self.result.attempts[-1] if self.result.attempts else None
            if not self.result.note and last is not None:
                where = last.rejected_at or ("answer" if last.problem else last.verdict)
                answers = self.answers + self.review_answers
                self.result.note = (
                    f"nothing kept after {counted(answers, 'answer')}; last rejected at {where}"
                )
        return self.result

    def finish(
        self, source: str | None, report: FileReport | None, partial: bool = False
    ) -> TargetResult:
        """Mark the accepted tests (plus suspected bugs as strict xfails), check the final file on
        gates 1-2, and write it unless this is a dry run."""
        if self.plan is not None:
            return self.finish_whole(source, report)
        res = self.result
        if report is not None and source is not None:
            not_kept = [t for t in report.tests if t.verdict is not Verdict.ACCEPTED]
            if not_kept:  # accepted file, but some tests judged low value: they go
                res.dropped += [Dropped(t.id, t.verdict.value, t.gate, t.reason) for t in not_kept]
                rest = self.split(source, [t.id for t in not_kept])
                if rest is None or rest[1].verdict is not Verdict.ACCEPTED:
                    source, report = None, None
                else:
                    source, report = rest
                partial = True
        final = compose_final(source, self.bug_sources, self.target)
        if final is None:
            res.outcome, res.note = "rejected", res.note or "no test passed every gate"
            return res
        check = self.verify(final, quick=True)
        self.record("final", check)
        if check.verdict is Verdict.REJECTED and self.bug_sources and source is not None:
            # a suspected-bug test that does not xfail as marked: report it, do not write it
            self.bug_sources = []
            final = compose_final(source, [], self.target)
            check = self.verify(final or "", quick=True)
            self.record("final", check)
        if check.verdict is Verdict.REJECTED:
            res.outcome, res.note = (
                "rejected",
                "the final file failed its check: " + feedback_of(check).text.splitlines()[0],
            )
            return res
        res.kept_tests = [t.id for t in report.tests] if report is not None else []
        res.source = final
        try:
            self.gen.output.write(self.rel, final or "")
        except FileExistsError:
            res.outcome, res.note = (
                "error",
                f"{self.rel} appeared while generating; not overwritten",
            )
            return res
        for bug in res.suspected_bugs:
            bug.file = (
                self.rel
                if any(bug.test.endswith("::" + n) for n, _, _ in self.bug_sources)
                else None
            )
        if res.kept_tests:
            res.outcome = "partial" if partial or res.dropped else "accepted"
        else:
            res.outcome, res.note = "rejected", res.note or "only suspected bugs were written"
        return res

    def finish_whole(self, source: str | None, report: FileReport | None) -> TargetResult:
        """Another language: the accepted file is written as verified (header included, so no
        re-check), or not at all when a test in it was judged of low value; gates that could not
        judge it are named in the note."""
        res = self.result
        not_kept = [t for t in report.tests if t.verdict is not Verdict.ACCEPTED] if report else []
        if source is None or report is None or not_kept:
            res.dropped += [Dropped(t.id, t.verdict.value, t.gate, t.reason) for t in not_kept]
            res.outcome = "rejected"
            res.note = (
                res.note
                or f"{len(not_kept)} tests judged of low value; a {self.target.language} file is "
                "kept or dropped whole"
            )
            return res
        try:
            self.gen.output.write(self.rel, source)
        except FileExistsError:
            res.outcome, res.note = (
                "error",
                f"{self.rel} appeared while generating; not overwritten",
            )
            return res
        res.kept_tests, res.source, res.outcome = [t.id for t in report.tests], source, "accepted"
        skipped = [
            f"{g.gate} ({g.details.get('reason', 'skipped')})"
            for g in report.gates
            if g.status is GateStatus.SKIP
        ]
        if skipped:
            res.note = "not measured: " + "; ".join(skipped)
        return res
