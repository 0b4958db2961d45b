"""The repair loop: per target, a writer's attempt is verified in memory (gates 1-5), its gate
feedback goes back for a revision, at most `max_attempts` answers; flaky tests, and tests gate 5
flags by name in a file whose other tests pass, are dropped, never repaired; tests that passed
every gate are kept even when others fail (the file is split and the rest re-verified as a file);
gate 6 reviews what passed, at most `rounds` times; a test that fails where the reviewer judges
the code wrong becomes a suspected bug. Nothing touches the user's tree until a file is accepted,
and then only a new file is created."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import replace

from assay.config import Settings
from assay.config.generate import GenerateConfig, ReviewConfig
from assay.events import ProgressEvent, Started, TargetDone
from assay.execution.executor import open_executor
from assay.gates.review import ReviewGate
from assay.languages import LANGUAGES
from assay.llm import Budget, BudgetExhausted, LLMConfig, LLMError, PermanentError
from assay.llm.prompts import Prompts
from assay.model import Verdict
from assay.pipeline import Verifier, build_gates
from assay.project import Project
from assay.shipped import ShippedVerifier
from assay.targets.model import Target
from assay.writers import polyglot
from assay.writers.acceptance import TargetAcceptance
from assay.writers.advice import same_file
from assay.writers.base import Attempt, Feedback, Writer
from assay.writers.edit import changed_share, remove_tests
from assay.writers.output import Output
from assay.writers.report import TargetResult
from assay.writers.steps import feedback_of

MAX_CUTS = 4  # salvage passes on one answer (each a gate-2 run; far cheaper than an answer)
GenerateSink = Callable[[ProgressEvent], None]


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
            if result.source is None and result.output:
                self.output.release(result.output)
                result.output = None
        result.duration_s = time.monotonic() - start
        self.emit(
            TargetDone(target.id, result.outcome, len(result.kept_tests), self.budget.usage.tokens)
        )
        return result


class TargetRun(TargetAcceptance):
    """The loop for one target; `run()` returns its result. Its state and steps are
    `steps.TargetSteps`'s, what it keeps and writes `acceptance.TargetAcceptance`'s."""

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
                if (
                    attempt.kind == "revise"
                    and attempt.parent is not None
                    and attempt.source is not None
                    and feedback is not None
                    and same_file(attempt.source, attempt.parent.source or "")
                ):  # resent unchanged: it would fail the same way; other words this time
                    feedback = self.resent(attempt.source, feedback)
                    attempt = replace(attempt, problem=feedback.text)
                    rec = self.record(attempt.kind, None, attempt)
                    if self.spent >= max_attempts:
                        break
                    rec.feedback = feedback.text
                    continue
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
                # a cut re-runs the file, which may then fail on the next check of a test
                for _ in range(MAX_CUTS):
                    if report.rejected_at != "green" or not (cut := self.cut(source, report)):
                        break
                    source, report = cut
                if (dropped := self.drop_flagged(source, report)) is not None:
                    source, report = dropped
                if report.verdict is Verdict.UNVALIDATED and report.rejected_at is None:
                    # a missing toolchain, or tests an environment gap left unjudged (gate 2)
                    why = next(g for g in report.gates if g.verdict is Verdict.UNVALIDATED)
                    self.result.outcome, self.result.note = (
                        "unvalidated",
                        why.feedback.strip().splitlines()[-1],
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
                feedback = self.feedback(report)
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
