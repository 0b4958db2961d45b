"""Gate 6: a second model reviews tests that passed gates 1-5, for what tools cannot judge - fit
to the task, tautologies, missing scenarios, contract correctness, sensible mocks, duplication
and value.

Only a HIGH-confidence REVISE of a test (or a file REJECT) rejects; lower confidence is a warning.
The answer is validated JSON (`llm.schemas`); an invalid one is asked again once, then the gate is
`skip` with the reason - never a silent pass. The gate is opt-in (it needs a model):
`assay verify --review provider:model`, or name it in `gates` with `[tool.assay.review] reviewer`
set. `generate` calls `review()` and `bugcheck()` directly."""

from __future__ import annotations

import re
import threading
import time
from dataclasses import dataclass, field
from typing import Any, ClassVar

from assay.config import Settings
from assay.errors import ConfigError
from assay.feedback import compose
from assay.gates.base import BaseGate, GateContext
from assay.languages import language_of
from assay.llm import LLMClient, LLMError, Prompt, make_client
from assay.llm.base import Call
from assay.llm.context import existing_tests, review_excerpt
from assay.llm.extract import fence_for
from assay.llm.prompts import Prompts
from assay.llm.schemas import BugCheck, BugVerdict, Review, parse
from assay.model import Candidate, GateResult, GateStatus, TestOutcome, Verdict
from assay.store import Store

HINT = "Fix what the reviewer names; keep the tests it did not flag."
_PARAMS = re.compile(r"\[.*\]$")


@dataclass
class ReviewBrief:
    """What the reviewer is told besides the test file."""

    task: str | None = None
    excerpt: str = ""
    rationale: str = ""
    existing_tests: str = ""
    mutation: dict[str, Any] | None = None  # gate 4's details (score, survivors)
    calls: list[Call] = field(default_factory=list)  # filled in: the model calls made for it


def _mutation_line(details: dict[str, Any] | None) -> str:
    if not details or details.get("score") is None:
        return ""
    line = f"score {details['score']}% (threshold {details.get('threshold')}%)"
    survivors = details.get("survivors") or []
    if survivors:
        shown = "; ".join(
            f"line {s['line']}: `{s['original']}` -> `{s['mutated']}`" for s in survivors[:5]
        )
        line += f"; surviving mutants: {shown}"
    return line


def node_ids(name: str, collected: list[str], rel: str) -> list[str]:
    """The collected ids a reviewer's test name stands for (`test_x`,
    `TestA::test_x`, `path::test_x[1]`)."""
    bare = _PARAMS.sub("", name.split("::")[-1].strip())
    found = [c for c in collected if _PARAMS.sub("", c).split("::")[-1] == bare]
    return found or [f"{rel}::{bare}"]


def fence_of(rel: str) -> str:
    """The code block tag of a test file's language, for the prompts (`python`, `go`, `ts` ...)."""
    lang = language_of(rel)
    return fence_for(lang.name if lang else "python")


class ReviewGate(BaseGate):
    name = "review"
    needs = ("passing_tests",)
    opt_in: ClassVar[bool] = True  # not in the default gate list: it needs a configured model

    def __init__(
        self, settings: Settings, client: LLMClient | None = None, prompts: Prompts | None = None
    ):
        super().__init__(settings)
        if client is None:
            if not settings.review.reviewer:
                raise ConfigError(
                    "gate 'review' needs a reviewer: --review provider:model, or set "
                    "[tool.assay.review] reviewer"
                )
            client = make_client(settings.review.reviewer, settings.llm, role="reviewer")
        self.client = client
        self.prompts = prompts or Prompts()
        self._store_lock = threading.Lock()

    # --- the gate, inside `verify` ----------------------------------------------------------------
    def run(self, candidate: Candidate, ctx: GateContext) -> GateResult:
        with self._store_lock:
            if self.client.store is None and ctx.settings.cache:
                self.client.store = Store(ctx.root)
        mutation = ctx.results.get("mutation")
        brief = ReviewBrief(
            excerpt=review_excerpt(ctx.project, candidate.targets, candidate.source),
            existing_tests="\n\n".join(
                existing_tests(ctx.project, t, candidate.rel) for t in candidate.targets[:2]
            ),
            mutation=mutation.details if mutation is not None else None,
        )
        return self.review(candidate.rel, candidate.source, brief, ctx.facts.collected or [])

    # --- what `generate` calls --------------------------------------------------------------------
    def _ask(self, prompt: Prompt, model: type, brief: ReviewBrief) -> tuple[Any, str | None]:
        """The validated answer, asking once more when the first is not valid; (None,
        why) otherwise."""
        problem = None
        for round_ in range(2):
            completion = self.client.complete(prompt)
            brief.calls.append(self.client.record(prompt, completion))
            answer, problem = parse(completion.text, model)
            if answer is not None:
                return answer, None
            if round_ == 0:
                prompt = Prompt(
                    prompt.system,
                    prompt.user + f"\n\nYour previous answer was not usable ({problem}). "
                    "Answer with the JSON object only.",
                    prompt.purpose,
                )
        return None, f"the reviewer's answer was not usable twice: {problem}"

    def review(self, rel: str, source: str, brief: ReviewBrief, collected: list[str]) -> GateResult:
        start = time.monotonic()
        system = self.prompts.render("review_system")
        user = self.prompts.render(
            "review",
            task=brief.task,
            excerpt=brief.excerpt,
            rationale=brief.rationale,
            existing_tests=brief.existing_tests,
            mutation=_mutation_line(brief.mutation),
            test_path=rel,
            source=source,
            fence=fence_of(rel),
        )
        try:
            answer, problem = self._ask(Prompt(system, user, "review"), Review, brief)
        except LLMError as err:
            answer, problem = None, f"no review: {err}"
        details: dict[str, Any] = {"reviewer": self.client.spec}
        if answer is None:
            details["reason"] = problem
            return GateResult(
                self.name,
                GateStatus.SKIP,
                time.monotonic() - start,
                f"SKIP: Gate 6 — REVIEW NOT DONE\n{problem}",
                details=details,
            )
        return self._result(answer, rel, collected, details, time.monotonic() - start)

    def _result(
        self,
        review: Review,
        rel: str,
        collected: list[str],
        details: dict[str, Any],
        elapsed: float,
    ) -> GateResult:
        outcomes: list[TestOutcome] = []
        body: list[str] = []
        soft: list[str] = []
        for t in review.tests:
            line = f"{t.test}: {t.reason}" + (
                f"\n  → {t.recommendation}" if t.recommendation else ""
            )
            ids = node_ids(t.test, collected, rel)
            if t.verdict == "REVISE" and t.confidence == "HIGH":
                outcomes += [TestOutcome(i, Verdict.REJECTED, self.name, t.reason) for i in ids]
                body.append(line)
            elif t.verdict == "LOW_VALUE" and t.confidence == "HIGH":
                outcomes += [TestOutcome(i, Verdict.LOW_VALUE, self.name, t.reason) for i in ids]
                soft.append(f"{t.test}: low value: {t.reason}")
            elif t.verdict != "OK":
                soft.append(
                    f"{t.test}: {t.verdict.lower()} ({t.confidence.lower()} confidence): {t.reason}"
                )
        file = review.file
        missing = [f"Missing scenario: {s}" for s in file.missing_scenarios[:5]]
        details.update(
            {
                "file_verdict": file.verdict,
                "summary": file.summary,
                "missing_scenarios": file.missing_scenarios,
                "tests": [t.model_dump() for t in review.tests],
            }
        )
        if file.verdict == "REJECT":
            return GateResult(
                self.name,
                GateStatus.REJECT,
                elapsed,
                compose(
                    "REJECT: Gate 6 — REVIEW (REJECT)",
                    [file.summary, *body, *missing],
                    "Write the file again from scratch for the code and task above.",
                ),
                tests=outcomes,
                details=details,
            )
        if body:
            return GateResult(
                self.name,
                GateStatus.REJECT,
                elapsed,
                compose("REJECT: Gate 6 — REVIEW (REVISE)", [*body, *missing], HINT),
                tests=outcomes,
                details=details,
            )
        if soft or file.verdict == "REVISE":
            return GateResult(
                self.name,
                GateStatus.WARN,
                elapsed,
                compose(
                    "WARN: Gate 6 — REVIEW",
                    [*soft, *missing] or [file.summary],
                    "Not counted: only HIGH-confidence REVISE rejects.",
                ),
                tests=outcomes,
                details=details,
            )
        return GateResult(self.name, GateStatus.PASS, elapsed, tests=outcomes, details=details)

    def bugcheck(
        self, rel: str, source: str, failures: list[tuple[str, str]], brief: ReviewBrief
    ) -> tuple[list[BugVerdict], str | None]:
        """For tests failing at gate 2: is the test right and the code wrong?
        (verdicts, problem)."""
        system = self.prompts.render("bugcheck_system")
        text = "\n".join(f"{nodeid}:\n{message}" for nodeid, message in failures)
        user = self.prompts.render(
            "bugcheck",
            task=brief.task,
            excerpt=brief.excerpt,
            test_path=rel,
            source=source,
            failures=text,
            fence=fence_of(rel),
        )
        try:
            answer, problem = self._ask(Prompt(system, user, "bugcheck"), BugCheck, brief)
        except LLMError as err:
            return [], f"no bug check: {err}"
        return (list(answer.tests), None) if answer is not None else ([], problem)
