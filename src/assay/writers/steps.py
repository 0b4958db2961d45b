"""One target's state in the repair loop and the steps the loop takes on it: ask the writer,
verify, split tests out, drop flaky ones, check suspected bugs, review (gate 6)."""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from assay.gates.review import ReviewBrief
from assay.languages import WritePlan
from assay.llm.brief import WriteBrief, write_brief
from assay.llm.context import existing_tests, rules
from assay.llm.excerpt import excerpt, read_index
from assay.model import FileReport, GateStatus, Verdict
from assay.project import candidate
from assay.targets.model import Target
from assay.writers import polyglot
from assay.writers.advice import UNCHANGED_HEADER, advise, top_level_names, unchanged
from assay.writers.base import Attempt, Feedback, WriteContext
from assay.writers.edit import remove_tests, test_key
from assay.writers.report import AttemptRecord, Dropped, SuspectedBug, TargetResult
from assay.writers.salvage import Cut, cut_failures, told

if TYPE_CHECKING:
    from assay.writers.loop import Generator

DROP = (Verdict.REJECTED, Verdict.FLAKY, Verdict.LOW_VALUE)


@dataclass
class Verified:
    """A text the gates judged, and the writer answer (1-based count) it was made of."""

    source: str
    report: FileReport
    answer: int


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


def called(target: Target, gen: Generator) -> frozenset[str]:
    """The names a test of the target calls: its functions (methods by their own name), or every
    function of the module when the target names none."""
    names = [f.name for f in target.functions] or list(read_index(gen.project.root, target.module))
    return frozenset(n.rsplit(".", 1)[-1] for n in names)


class TargetSteps:
    """One target's state (answers counted, texts verified, tests dropped) and the steps the loop
    (`loop.TargetRun`) takes on it."""

    def __init__(self, gen: Generator, target: Target):
        self.gen, self.target = gen, target
        self.settings = gen.settings
        self.result = TargetResult(target)
        # another language than Python: judged and written as a whole file
        self.plan: WritePlan | None = None
        if target.language == "python":
            self.rel = gen.output.plan(target)
            ex = excerpt(gen.project, target)
            tests = existing_tests(gen.project, target.module, self.rel, calls=called(target, gen))
            rule_text = rules(gen.prompts, gen.settings)
            brief: WriteBrief | None = write_brief(gen.project, target)
        else:
            brief = None
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
            brief=brief,
        )
        self.brief = ReviewBrief(task=target.task, excerpt=ex, existing_tests=tests)
        self.verified: list[Verified] = []  # every verified text, for the salvage
        self.dropped: list[str] = []  # node ids taken out for good (flaky, smells, suspected bugs)
        self.why_dropped: dict[str, str] = {}  # test name -> why, for the writer's next prompt
        self.bug_sources: list[tuple[str, str, str]] = []  # (test name, its file, reason)
        self.answers = 0
        # answers of another language that did not compile: max_compile_retries bounds them
        self.compile_rejects = 0
        self.review_answers = 0
        self.reviews = 0
        self.cuts: list[Cut] = []  # failing checks cut out since the writer was last told
        self.resends = 0  # answers that resent the file they were asked to fix
        self.resent_of: Feedback | None = None  # the gate feedback those resends answered

    @property
    def spent(self) -> int:
        """Answers counted against max_attempts (a compile reject of another language has its
        own bound)."""
        return self.answers - self.compile_rejects

    def feedback(self, report: FileReport) -> Feedback:
        """The stopping gate's feedback, with advice for the failures small models repeat."""
        found = feedback_of(report)
        if self.plan is None:
            try:
                module = (self.gen.project.root / self.target.module).read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError):
                module = ""
            found.text = advise(found.text, self.target, top_level_names(module))
        if self.cuts:  # told once, with the first feedback after the cut
            found.text = found.text.rstrip() + "\n" + told(self.cuts)
            self.cuts = []
        return found

    def resent(self, source: str, feedback: Feedback) -> Feedback:
        """The feedback for an answer that resends `source` unchanged: other, more concrete words
        (`advice.unchanged`) about the gate feedback it answered."""
        if not feedback.text.startswith(UNCHANGED_HEADER):
            self.resent_of = feedback
        base = self.resent_of or feedback
        self.resends += 1
        behaviours = self.context.brief.behaviours if self.context.brief else []
        # the lines the gate points at: `path:LINE` in its words, where gate 2 saw a test fail
        flagged = [int(n) for n in re.findall(re.escape(self.rel) + r":(\d+)", base.text)]
        if base.report is not None:
            for gate in base.report.gates:
                flagged += [int(n) for n in gate.details.get("failed_at", {}).values()]
        text = unchanged(base.text, source, flagged, base.failing_tests, behaviours, self.resends)
        return replace(base, text=text)

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
        if attempt is not None:
            rec.copied, rec.imported = list(attempt.copied), list(attempt.imported)
            rec.unbound, rec.borrowed = list(attempt.unbound), list(attempt.borrowed)
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
        self.verified.append(Verified(source, report, self.answers))
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
        names = sorted({test_key(d)[-1] for d in self.dropped})
        feedback.dropped = [
            f"{n} ({self.why_dropped[n]})" if n in self.why_dropped else n for n in names
        ]
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

    def cut(self, source: str, report: FileReport) -> tuple[str, FileReport] | None:
        """A file that failed gate 2 in part, its failing checks (or tests) cut out and verified
        again; None when there is nothing to keep."""
        green = next((g for g in report.gates if g.gate == "green"), None)
        failing = [
            t.id for t in report.tests if t.verdict is Verdict.REJECTED and t.gate == "green"
        ]
        if green is None or not failing or self.plan is not None:
            return None
        found = cut_failures(source, green.details.get("failed_at", {}), failing)
        if found is None:
            return None
        text, cuts = found
        self.result.dropped += [
            Dropped(c.test, Verdict.REJECTED.value, "green", "cut: " + c.describe()) for c in cuts
        ]
        self.cuts += cuts
        report = self.verify(text)
        self.record("salvage", report)
        return text, report

    def drop_flaky(self, source: str, report: FileReport) -> tuple[str, FileReport] | None:
        flaky = [t for t in report.tests if t.verdict is Verdict.FLAKY]
        for t in flaky:
            self.result.dropped.append(Dropped(t.id, t.verdict.value, t.gate, t.reason))
        self.dropped += [t.id for t in flaky]
        return self.split(source, [t.id for t in flaky])

    def drop_flagged(self, source: str, report: FileReport) -> tuple[str, FileReport] | None:
        """A file gate 5 stopped for tests it names (reject-level smells, low value), whose other
        tests passed every gate: the named tests go, like flaky ones, and the rest is verified as
        a file; no repair round is spent on a file that can be kept. None when there is nothing
        to drop, or the rest does not pass (then nothing is dropped for good)."""
        if report.rejected_at != "smells" or self.plan is not None:
            return None
        flagged = [t for t in report.tests if t.verdict in DROP]
        kept = [t for t in report.tests if t.verdict is Verdict.ACCEPTED]
        if not flagged or not kept or any(t.gate not in ("smells", "mutation") for t in flagged):
            return None
        rest = self.split(source, [t.id for t in flagged])
        if rest is None or rest[1].verdict is not Verdict.ACCEPTED:
            # e.g. the flagged tests held kills gate 4 needs: the writer fixes the file instead
            return None
        for t in flagged:
            self.result.dropped.append(Dropped(t.id, t.verdict.value, t.gate, t.reason))
            self.why_dropped[test_key(t.id)[-1]] = f"{t.verdict.value} at {t.gate}: {t.reason}"
        self.dropped += [t.id for t in flagged]
        return rest

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
