"""The repair loop: per target, a writer's attempt is verified in memory (gates 1-5), its gate
feedback goes back for a revision, at most `max_attempts` answers; flaky tests are dropped, never
repaired; tests that passed every gate are kept even when others fail (the file is split and the
rest re-verified as a file); gate 6 reviews what passed, at most `rounds` times; a test that fails
where the reviewer judges the code wrong becomes a suspected bug. Nothing touches the user's tree
until a file is accepted, and then only a new file is created."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import replace

from assay.config import Settings
from assay.config.generate import GenerateConfig, ReviewConfig
from assay.execution.executor import open_executor
from assay.gates.review import ReviewBrief, ReviewGate
from assay.languages import LANGUAGES, WritePlan
from assay.llm import Budget, BudgetExhausted, LLMConfig, LLMError, PermanentError
from assay.llm.context import existing_tests, rules
from assay.llm.excerpt import excerpt
from assay.llm.prompts import Prompts
from assay.model import FileReport, GateStatus, ProgressEvent, Started, TargetDone, Verdict
from assay.pipeline import Verifier, build_gates
from assay.project import Project, candidate
from assay.shipped import ShippedVerifier
from assay.targets.model import Target
from assay.writers import polyglot
from assay.writers.base import Attempt, Feedback, WriteContext, Writer
from assay.writers.edit import changed_share, remove_tests, test_key
from assay.writers.output import Output, compose_final
from assay.writers.report import AttemptRecord, Dropped, SuspectedBug, TargetResult

GenerateSink = Callable[[ProgressEvent], None]
DROP = (Verdict.REJECTED, Verdict.FLAKY, Verdict.LOW_VALUE)


def feedback_of(report: FileReport) -> Feedback:
    """The stopping gate's feedback (the pipeline already put cheap static causes first), typed
    for writers."""
    gate = next((g for g in report.gates if g.gate == report.rejected_at), None)
    if gate is None:
        gate = next((g for g in report.gates if g.status is not GateStatus.PASS), report.gates[-1])
    return Feedback(
        gate.feedback or f"{report.verdict.value} at {gate.gate}",
        gate.gate,
        [t.id for t in report.tests if t.verdict in DROP],
        list(gate.details.get("survivors", [])),
        report,
    )


class Generator:
    """What one `generate` run shares: verifiers, writer, reviewer, budget, output planning,
    stop flag."""

    def __init__(
        self,
        project: Project,
        settings: Settings,
        writer: Writer,
        reviewer: ReviewGate | None,
        budget: Budget,
        output: Output,
        prompts: Prompts,
        use_cache: bool = True,
        on_event: GenerateSink | None = None,
    ):
        self.project, self.settings, self.writer, self.reviewer = (
            project,
            settings,
            writer,
            reviewer,
        )
        self.budget, self.output, self.prompts = budget, output, prompts
        self.emit = on_event or (lambda *_: None)
        # Gates 1-5 do not depend on who writes or reviews: those sections stay out of the verify
        # cache key.
        vsettings = settings.model_copy(
            deep=True,
            update={
                "generate": GenerateConfig.model_validate({}),
                "review": ReviewConfig.model_validate({}),
                "llm": LLMConfig.model_validate({}),
            },
        )
        # a scheduler: attempts verify on its workers
        verifier = ShippedVerifier if settings.scheduler else Verifier
        self.full = verifier(project, vsettings, use_cache, gates=build_gates(vsettings))
        quick = vsettings.model_copy(deep=True)
        quick.gates = ["compile", "green"]  # also keeps its cache entries apart from full runs
        self.quick = verifier(project, quick, use_cache, gates=build_gates(quick))
        self.stopped: str | None = None
        self.fatal = False
        self._lock = threading.Lock()

    def stop(self, reason: str, fatal: bool = False) -> None:
        with self._lock:
            self.stopped = self.stopped or reason
            self.fatal = self.fatal or fatal

    def run(self, targets: list[Target], jobs: int) -> list[TargetResult]:
        self.emit(Started(len(targets)))
        try:
            with open_executor("threads", max(1, min(jobs, len(targets)))) as pool:
                return list(pool.map(self.one, targets))
        finally:
            self.full.close()
            self.quick.close()

    def one(self, target: Target) -> TargetResult:
        start = time.monotonic()
        if self.stopped:
            result = TargetResult(
                target, "error" if self.fatal else "budget", note=f"not started: {self.stopped}"
            )
        else:
            result = TargetRun(self, target).run()
        result.duration_s = time.monotonic() - start
        self.emit(
            TargetDone(target.id, result.outcome, len(result.kept_tests), self.budget.usage.tokens)
        )
        return result


class TargetRun:
    """The loop for one target; `run()` returns its result. State: the attempt in hand, what
    was verified."""

    def __init__(self, gen: Generator, target: Target):
        self.gen, self.target = gen, target
        self.settings = gen.settings
        self.result = TargetResult(target)
        # another language than Python: judged and written as a whole file
        self.plan: WritePlan | None = None
        if target.language == "python":
            self.rel = gen.output.plan(target)
            ex = excerpt(gen.project, target)
            tests = existing_tests(gen.project, target.module, self.rel)
            rule_text = rules(gen.prompts, gen.settings)
        else:
            self.plan = gen.output.plan_other(target)
            self.rel = self.plan.path
            ex, tests, rule_text = polyglot.context_facts(
                gen.project, gen.settings, gen.prompts, target, self.plan
            )
        self.result.output = self.rel
        self.context = WriteContext(
            gen.project,
            gen.settings,
            self.rel,
            ex,
            tests,
            rule_text,
            target.language,
            verifier=gen.full,
            plan=self.plan,
        )
        self.brief = ReviewBrief(task=target.task, excerpt=ex, existing_tests=tests)
        self.verified: list[tuple[str, FileReport]] = []  # every verified text, for the salvage
        self.dropped: list[str] = []  # node ids taken out for good (flaky, suspected bugs)
        self.bug_sources: list[tuple[str, str, str]] = []  # (test name, its file, reason)
        self.answers = 0
        # answers of another language that did not compile: max_compile_retries bounds them
        self.compile_rejects = 0
        self.review_answers = 0
        self.reviews = 0

    @property
    def spent(self) -> int:
        """Answers counted against max_attempts (a compile reject of another language has its
        own bound)."""
        return self.answers - self.compile_rejects

    # --- steps ------------------------------------------------------------------------------------
    def record(
        self, kind: str, report: FileReport | None, attempt: Attempt | None = None
    ) -> AttemptRecord:
        calls = attempt.calls if attempt is not None else []
        rec = AttemptRecord.of(
            len(self.result.attempts) + 1,
            kind,
            report,
            calls,
            attempt.problem if attempt is not None else None,
        )
        self.result.attempts.append(rec)
        return rec

    def verify(self, source: str, quick: bool = False) -> FileReport:
        verifier = self.gen.quick if quick else self.gen.full
        other = self.plan is not None
        report = verifier.verify_file(
            candidate(
                self.gen.project,
                self.rel,
                source,
                self.target.language if other else None,
                [self.target.module] if other else None,
            )
        )
        if report is None:  # the run was cancelled (Ctrl-C): nothing more to judge
            raise KeyboardInterrupt
        self.verified.append((source, report))
        return report

    def ask(
        self, attempt: Attempt | None, feedback: Feedback | None, rewrite: bool = False
    ) -> Attempt:
        """The writer's next answer: a revision, or a new file (first time, after a review REJECT,
        or from a writer that does not revise)."""
        if feedback is not None and feedback.gate == "review" and not rewrite:
            self.review_answers += 1  # bounded by the review rounds, not by max_attempts
        else:
            self.answers += 1
        if attempt is None or feedback is None or rewrite or not self.gen.writer.revises:
            new = self.gen.writer.write(self.target, self.context)
            return replace(new, kind="rewrite") if attempt is not None else new
        feedback.dropped = sorted({test_key(d)[-1] for d in self.dropped})
        return self.gen.writer.revise(attempt, feedback)

    def split(
        self, source: str, drop: list[str], quick: bool = False
    ) -> tuple[str, FileReport] | None:
        """The file without `drop`, verified as a file; None when no test is left."""
        rest = remove_tests(source, drop)
        if rest is None:
            return None
        report = self.verify(rest, quick)
        self.record("split", report)
        return rest, report

    def drop_flaky(self, source: str, report: FileReport) -> tuple[str, FileReport] | None:
        flaky = [t for t in report.tests if t.verdict is Verdict.FLAKY]
        for t in flaky:
            self.result.dropped.append(Dropped(t.id, t.verdict.value, t.gate, t.reason))
        self.dropped += [t.id for t in flaky]
        return self.split(source, [t.id for t in flaky])

    def check_bugs(self, source: str, report: FileReport) -> tuple[str, FileReport] | None:
        """Gate-2 failures the reviewer blames on the code leave the file as suspected bugs; returns
        the rest, re-verified, when anything left."""
        reviewer = self.gen.reviewer
        failing = [t for t in report.tests if t.verdict is Verdict.REJECTED and t.gate == "green"]
        # no strict-xfail marking outside pytest
        if reviewer is None or not failing or self.plan is not None:
            return None
        green = next(g for g in report.gates if g.gate == "green")
        verdicts, _ = reviewer.bugcheck(
            self.rel, source, [(t.id, t.reason) for t in failing], self.brief
        )
        self.result.attempts[-1].calls += self.brief.calls
        self.brief.calls = []
        blamed = {
            test_key(v.test)[-1]: v
            for v in verdicts
            if v.verdict == "CODE_WRONG" and v.confidence == "HIGH"
        }
        bugs = [t for t in failing if test_key(t.id)[-1] in blamed and len(test_key(t.id)) == 1]
        if not bugs:
            return None
        for t in bugs:
            reason = blamed[test_key(t.id)[-1]].reason
            failure = "\n".join(
                ln
                for ln in green.feedback.splitlines()
                if ln.startswith(t.id) or ln.startswith("  ")
            )
            self.result.suspected_bugs.append(
                SuspectedBug(self.target.id, t.id, failure or t.reason, reason)
            )
            self.bug_sources.append((test_key(t.id)[-1], source, reason))
            self.dropped.append(t.id)
        return self.split(source, [t.id for t in bugs])

    def review(self, source: str, report: FileReport, attempt: Attempt) -> bool:
        """Gate 6 on a file that passed the others; True when it passes (or review is off or used
        up). The review's result joins the file's report; a reject sets up the revision."""
        reviewer = self.gen.reviewer
        if reviewer is None or self.reviews >= self.settings.review.rounds:
            return True
        self.reviews += 1
        mutation = next((g for g in report.gates if g.gate == "mutation"), None)
        if mutation is not None:
            self.brief.mutation = mutation.details
        self.brief.rationale = attempt.rationale
        collected = [t.id for t in report.tests]
        result = reviewer.review(self.rel, source, self.brief, collected)
        rec = self.record("review", None)
        rec.calls, self.brief.calls = self.brief.calls, []
        rec.gates, rec.verdict = {"review": result.status.value}, result.status.value
        report.gates.append(result)
        self.result.review = result.details
        by_id = {t.id: t for t in result.tests}
        report.tests = [by_id.get(t.id, t) for t in report.tests]
        if result.status is GateStatus.REJECT:
            report.verdict, report.rejected_at = Verdict.REJECTED, "review"
            rec.rejected_at, rec.feedback = "review", result.feedback
            return False
        return True

    # --- the loop ---------------------------------------------------------------------------------
    def run(self) -> TargetResult:
        gen, max_attempts = self.gen, self.settings.generate.max_attempts
        attempt: Attempt | None = None
        feedback: Feedback | None = None
        rewrite = False
        lang = LANGUAGES[self.target.language]
        # no tokens spent on it
        if self.plan is not None and (problem := lang.toolchain_problem(self.settings)):
            self.result.outcome, self.result.note = (
                "unvalidated",
                f"{lang.title} toolchain missing: {problem}",
            )
            return self.result
        try:
            while True:
                attempt = self.ask(attempt, feedback, rewrite)
                rewrite = False
                small = (
                    attempt.kind == "review-revise"
                    and attempt.parent is not None
                    and attempt.source
                    and changed_share(attempt.parent.source or "", attempt.source)
                    <= self.settings.review.small_change
                )
                if attempt.source is None:  # no usable answer: its own feedback, no gate ran
                    rec = self.record(attempt.kind, None, attempt)
                    feedback = Feedback(attempt.problem or "no test file in the answer")
                    if self.spent >= max_attempts:
                        break
                    rec.feedback = feedback.text
                    continue
                source = (
                    remove_tests(attempt.source, self.dropped) if self.dropped else attempt.source
                )
                if source is None:
                    source = attempt.source
                # verified with its header: the file written is the file judged
                if self.plan is not None:
                    source = polyglot.with_header(source, self.target, self.plan)
                report = self.verify(source, quick=bool(small))
                self.record(attempt.kind, report, attempt)
                rest = (
                    self.drop_flaky(source, report)
                    if report.verdict is Verdict.FLAKY
                    else self.check_bugs(source, report)
                    if report.rejected_at == "green"
                    else None
                )
                if rest is not None:
                    source, report = rest
                if report.verdict is Verdict.UNVALIDATED and report.rejected_at is None:
                    self.result.outcome, self.result.note = (
                        "unvalidated",
                        report.gates[0].feedback.splitlines()[-1],
                    )
                    return self.result
                attempt = replace(attempt, source=source)
                if report.verdict is Verdict.ACCEPTED:
                    if self.review(source, report, attempt):
                        return self.finish(source, report)
                    gate6 = report.gates[-1]
                    if gate6.details.get("file_verdict") == "REJECT":
                        if (
                            self.spent >= max_attempts
                            or self.reviews >= self.settings.review.rounds
                        ):
                            break
                        rewrite, feedback = True, feedback_of(report)
                        self.result.attempts[-1].feedback = ""
                        continue
                    if self.reviews >= self.settings.review.rounds:
                        # review rounds used up: the salvage keeps what the reviewer did not flag
                        break
                    feedback = feedback_of(report)
                    continue
                if self.plan is not None and report.rejected_at == "compile":
                    self.compile_rejects += 1
                    if self.compile_rejects > self.settings.max_compile_retries:
                        break
                elif self.spent >= max_attempts:
                    break
                feedback = feedback_of(report)
                self.result.attempts[-1].feedback = feedback.text
        except BudgetExhausted as err:
            gen.stop(str(err))
            self.result.note = str(err)
        except PermanentError as err:
            gen.stop(str(err), fatal=True)
            self.result.outcome, self.result.note = "error", str(err)
        except LLMError as err:
            self.result.outcome, self.result.note = "error", str(err)
        return self.salvage()

    def salvage(self) -> TargetResult:
        """No attempt was accepted whole: keep the tests of the latest verified file that passed
        every gate that judged them (the failing ones cut out, the rest re-verified as a file)."""
        for source, report in reversed(self.verified[-3:]):
            drop = [t.id for t in report.tests if t.verdict in DROP]
            if not drop or len(drop) == len(report.tests):
                continue
            for t in report.tests:
                if t.verdict in DROP and t.id not in self.dropped:
                    self.result.dropped.append(Dropped(t.id, t.verdict.value, t.gate, t.reason))
            rest = self.split(source, drop)
            if rest is not None and rest[1].verdict is Verdict.ACCEPTED:
                return self.finish(*rest, partial=True)
            break
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
                self.result.note = f"nothing kept after {answers} answers; last rejected at {where}"
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
