"""Gate 4: the candidate's tests must kill enough mutants of the code they exercise.

Scope: mutants inside the functions and methods the candidate's tests execute in their call phase,
so a focused test of one function is not charged for the rest of a large module, nor for the code it
only computes its expected values with (`assay.mutation.oracle`); within them, only
the mutants that change something the tests receive from the project count (`observe=True`: the
others are Unexercised, listed apart, see `_assay_sandbox.mutation.exercised`). Each target module
is held to the threshold of its own code class (pure / service / io, see
`assay.mutation.codeclass`). Each test gets its own outcome: one that catches no mutant another test
that kills no mutant is `low_value`, one whose kills other tests of the file all make too carries a
`redundant` note (`assay.mutation.attribution`); when the score fails, the feedback names the
surviving mutants and the tests closest to each.
"""

from __future__ import annotations

import time

from assay._assay_sandbox.mutation.protocol import BaselineProgress, Event, Progress
from assay._assay_sandbox.protocol import EVERY_TEST_FUNCTION, PROVE_EACH_TEST
from assay.errors import RunFailed
from assay.events import GateProgress
from assay.feedback import compose
from assay.gates import newer_syntax
from assay.gates.base import BaseGate, GateContext
from assay.gates.beyond import proved_beyond
from assay.gates.constants import constant_readers, module_values
from assay.gates.mutation_scope import (
    changed_mutants,
    defines_functions,
    fed,
    set_up_feeds,
    unrun,
    via_package,
)
from assay.gates.mutation_tool import judge, run_tool
from assay.gates.raises_only import raises_only
from assay.gates.reach import (
    fed_tests,
    fixture_fed,
    project_modules,
    reached,
    starts_process,
    vendored_note,
)
from assay.gates.set_up import set_up_fed
from assay.gates.spawning import spawning_tests
from assay.gates.stability import HINT as STABILITY_HINT
from assay.languages.python import PYTHON, pytest_args
from assay.model import Candidate, GateResult, GateStatus, TestOutcome, Verdict
from assay.mutation.attribution import module_limits
from assay.mutation.codeclass import threshold_for
from assay.mutation.engine import Engine, worker_env
from assay.mutation.entered import narrow
from assay.mutation.model import MutationResult
from assay.mutation.oracle import note as oracle_note
from assay.mutation.oracle import oracle_functions, set_aside
from assay.mutation.summary import details, unapplied_note, unobserved_note
from assay.mutation.tools import REGISTRY
from assay.store import Store

FLAKY_HEADER = "REJECT: Gate 4 — FLAKY TESTS"
UNREACHED_HEADER = "REJECT: Gate 4 — THE TESTS RUN NO CODE OF THE PROJECT"
UNREACHED_HINT = (
    "Test the project's own code: import it, or take it from a fixture. A copy of a function "
    "pasted into the test file proves nothing about the project."
)


class MutationGate(BaseGate):
    name = "mutation"
    needs = ("passing_tests",)
    # Python by assay's own engine, the others by their ecosystem's tool (`mutation.tools`)
    languages = frozenset({"python", *REGISTRY})
    uses_standby = True

    def run(self, candidate: Candidate, ctx: GateContext) -> GateResult:
        if candidate.language != "python":
            return run_tool(self.name, candidate, ctx)
        starts: list[int] = []  # per mutation run
        result = self._judge(candidate, ctx, starts)
        if starts:  # 0: each run was forked by the workspace's worker on standby
            result.details["worker_starts"] = sum(starts)
        return result

    def starts_ahead(self, candidate: Candidate) -> bool:
        """Python's gate 4 (assay's own engine: its worker forks from one on standby in the copy)
        runs in a scratch copy of its own and starts beside gate 3 (`gates.ahead`); the other
        languages' tools build in the file's copy, after gate 3."""
        return candidate.language == "python"

    def warm(self, candidate: Candidate, ctx: GateContext) -> None:
        """The workspace's gate-4 worker on standby starts while gates 1-3 run (a file alone
        left the second core idle for its ~0.2 s start); it is the one gate 4 forks from."""
        if candidate.language == "python" and ctx.standby is not None:
            python = PYTHON.python(ctx.settings)
            ws = ctx.workspace
            ctx.standby.prestart(python, ws, worker_env(ctx.sandbox, ws.run_dir, python))

    def _judge(self, candidate: Candidate, ctx: GateContext, starts: list[int]) -> GateResult:
        start = time.monotonic()
        conf = ctx.settings.mutation
        # no module imported: the run tells which ones the tests reach (`reach`)
        targets = list(candidate.targets) or project_modules(ctx.project)
        if not targets:
            return GateResult(
                self.name,
                GateStatus.SKIP,
                time.monotonic() - start,
                details={"reason": "no target: the project has no module of its own"},
            )
        # the file, not node ids: the worker finds its tests again itself (ids of tests parametrized
        # over a set differ between processes); the green run's untraced durations spare the worker
        # its own timing run
        # tests that get no project object themselves: accountable for where other code enters it
        # (`narrow`), the rest set aside before it runs
        entering = not candidate.targets and not fed(ctx, candidate)
        try:
            # the modules it imports hold no function its tests run (a package's __init__ that
            # re-exports, `import more_itertools as mi`): held to the modules they reach instead;
            # where they define none at all, no run against them can reach one, so the wider run
            # comes first (one collection and baseline of the file less, the same runs otherwise);
            # so too where it reads names of such a package it imports whole (`rfc3986.parse`),
            # or imports a helper module of the test directories that calls the project itself
            wider: list[str] = []
            again = None
            if candidate.targets and (
                not defines_functions(ctx, targets)
                or via_package(ctx, candidate)
                # a helper of the test directory runs the project for it (pyflakes' harness)
                or ctx.project.helper_of(candidate.source, candidate.rel) is not None
            ):
                wider = project_modules(ctx.project)
                again = self._measure(ctx, candidate.rel, wider, candidate.changed, starts)
            if again is not None and reached(again[0]):
                (run, sources), targets = again, wider
            else:
                run, sources = self._measure(
                    ctx, candidate.rel, targets, candidate.changed, starts, entering
                )
                if candidate.targets and not reached(run):
                    if again is None:
                        wider = project_modules(ctx.project)
                        again = self._measure(ctx, candidate.rel, wider, candidate.changed, starts)
                    # else it imports the project and runs none of its functions
                    if reached(again[0]):
                        (run, sources), targets = again, wider
        # no evidence either way: the file cannot be validated, never "passed"
        except RunFailed as err:
            reason = f"mutation run failed: {clipped(str(err))}"
            return self._unjudged(reason, time.monotonic() - start)
        dynamic = targets != list(candidate.targets)
        code_class, threshold = threshold_for(sources, conf, ctx.project.packages)
        limits = module_limits(sources, conf, ctx.project.packages)
        skipped = set(ctx.facts.collected or []) - set(ctx.facts.passing_tests or [])
        flakes = baseline_flakes(run, skipped, self.name)
        if flakes:
            return GateResult(
                self.name,
                GateStatus.REJECT,
                time.monotonic() - start,
                compose(FLAKY_HEADER, [f"{t.id}: {t.reason}" for t in flakes], STABILITY_HINT),
                verdict=Verdict.FLAKY,
                tests=flakes,
                details={"flaky": [t.id for t in flakes]},
            )
        if dynamic:
            found = reached(run)
            if not found:
                return self._unreached(candidate, ctx, len(targets), time.monotonic() - start)
            sources = {rel: sources[rel] for rel in found}
            code_class, threshold = threshold_for(sources, conf, ctx.project.packages)
            limits = module_limits(sources, conf, ctx.project.packages)
        notes: list[str] = []
        if dynamic and (said := vendored_note(ctx.project)):
            notes.append(said)
        reached_modules = sorted(sources)
        entered = None
        # tests that get no project object themselves: accountable for where other code enters it
        if dynamic and entering:
            entered = narrow(run, sources)
            if entered is None and unrun(run):  # the worker set aside what the gate does not
                run, _ = self._measure(ctx, candidate.rel, targets, candidate.changed, starts)
            if entered:
                sources = {rel: text for rel, text in sources.items() if rel not in entered.beyond}
                code_class, threshold = threshold_for(sources, conf, ctx.project.packages)
                limits = module_limits(sources, conf, ctx.project.packages)
                notes.append(entered.note())
        # a module assay's Python cannot parse has no mutant: said, never "measured nothing"
        if bad := newer_syntax.unparsed(sources):
            if len(bad) == len(sources):
                return newer_syntax.unmeasured(self.name, bad, time.monotonic() - start)
            notes.append(newer_syntax.reason(bad))
        # code the tests only compute expected values with is not what they test
        oracle = oracle_functions(candidate.source, run.scope or {}, sources)
        aside = set_aside(run, oracle) if oracle else []
        info = details(run, threshold, code_class, conf.max_survivors)
        if entered:
            info["entered"] = entered.to_json()
        if aside:
            info["oracle"] = {
                "functions": [f"{rel}::{n}" for rel, names in oracle.items() for n in names],
                "mutants": len(aside),
            }
            notes.append(oracle_note(oracle, len(aside)))
        if said := unobserved_note(run):
            notes.append(said)
        if run.scope_note:
            notes.append(run.scope_note)
        if (said := unapplied_note(run)) is not None:
            notes.append(said)
            if run.score is None:  # nothing judged: no evidence either way
                return self._unjudged(said, time.monotonic() - start)
        if notes:
            info["notes"] = notes
        if dynamic:
            info["reached"] = reached_modules
        # a test of code the change left alone (diff scope) is not of low value for changed lines
        exact, diff = conf.attribution == "exact", candidate.changed is not None
        spawning = spawning_tests(candidate.source)
        constants = None
        if not reached(run):  # no function of the project ran: tests that only read its values
            values = {rel: module_values(text) for rel, text in sources.items()}
            constants = constant_readers(candidate.source, ctx.project.modules, values)
        # a test that takes the project's objects from a conftest fixture or its class's setUp
        fed_by = {
            **set_up_fed(ctx.project, candidate.rel, candidate.source),
            **fed_tests(ctx.project, candidate.rel, candidate.source),
        }
        proved = (  # killing nothing of its imports: perhaps of what they hand work on to
            {}
            if dynamic or diff
            else proved_beyond(
                run,
                ctx,
                targets,
                set(spawning),
                lambda mods, tests: self._measure(
                    ctx, candidate.rel, mods, starts=starts, tests=tests
                )[0],
            )
        )
        return judge(
            self.name,
            run,
            threshold,
            limits,
            ctx,
            info,
            start,
            exact,
            diff,
            spawning,
            constants,
            fed_by,
            proved,
            raises_only(candidate.source),
        )

    def _measure(
        self,
        ctx: GateContext,
        rel: str,
        targets: list[str],
        changed: dict[str, list[int]] | None = None,
        starts: list[int] | None = None,
        entering: bool = False,
        tests: list[str] | None = None,
    ) -> tuple[MutationResult, dict[str, str]]:
        """One scoped run of the file's tests against `targets`, and the targets' sources;
        `changed` (diff scope): only the mutants on these lines; `starts` gets the number of
        sandboxed interpreters the run started, whether it ended well or not; `tests`: only these
        test functions, to prove them (no score: no early stop, nothing observed)."""
        sources = {
            t: ctx.workspace.path(t).read_text(encoding="utf-8", errors="replace") for t in targets
        }
        conf = ctx.settings.mutation
        # the verdict needs every module at its threshold: certain before the sample has all run
        # (not in diff scope, whose few mutants all count)
        enough = (
            {rel: t for rel, (_, t) in module_limits(sources, conf, ctx.project.packages).items()}
            if conf.early_stop and changed is None and tests is None
            else None
        )
        store = Store(ctx.root) if ctx.settings.cache else None
        engine = Engine(
            ctx.workspace,
            ctx.sandbox,
            PYTHON.python(ctx.settings),
            ctx.project.source_roots,
            conf,
            pytest_args(ctx.project, ctx.settings),
            store,
            ctx.standby,
            stop=ctx.stop,
        )
        try:
            run = engine.run(
                targets,
                tests or [rel],
                only=changed_mutants(sources, changed),
                scoped=True,
                durations=ctx.facts.test_durations,
                # each test's own kill set, or proof that it kills one, for `attribute`
                killers=(
                    EVERY_TEST_FUNCTION
                    if ctx.settings.mutation.attribution == "exact"
                    else PROVE_EACH_TEST
                ),
                progress=lambda ev: _progress(ctx, rel, self.name, ev),
                observe=tests is None,
                # proving: mutants out of the sample run only for the tests still unproven
                sample=ctx.settings.mutation.sample if tests is None else 1,
                enough=enough,
                entering=entering,
                # the sample within a time budget (not for a diff's few mutants, nor proving)
                budget=conf.budget if changed is None and tests is None else 0.0,
            )
        finally:
            if starts is not None:
                starts.append(engine.worker_starts)
            if store:
                store.close()
        return run, sources

    def _unjudged(self, reason: str, elapsed: float) -> GateResult:
        """No evidence either way (the run failed, or none of its mutants reached the code that
        runs): the file cannot be validated, never "passed"."""
        return GateResult(
            self.name,
            GateStatus.SKIP,
            elapsed,
            f"SKIP: Gate 4 — MUTATION NOT MEASURED\n{reason}",
            verdict=Verdict.UNVALIDATED,
            details={"reason": reason},
        )

    def _skipped(self, reason: str, elapsed: float) -> GateResult:
        """Gate 4 not measured, without a verdict: the reason in the feedback too, so that the
        terminal says it (ftfy's test_cli.py showed a bare `–`), not only the JSON."""
        return GateResult(
            self.name,
            GateStatus.SKIP,
            elapsed,
            f"SKIP: Gate 4 — MUTATION NOT MEASURED\n{reason}",
            details={"reason": reason},
        )

    def _unreached(
        self, candidate: Candidate, ctx: GateContext, modules: int, elapsed: float
    ) -> GateResult:
        """No test executed a function of the project: rejected, unless the file starts processes
        (they may run the project, where gate 4 does not see)."""
        spawn = starts_process(ctx.project, candidate.rel, candidate.source)
        if spawn:
            reason = (
                "no target: the tests run no function of the project in their own process; they "
                f"may run it in processes or interpreters they start ({spawn}), which gate 4 does "
                "not see"
            )
            return self._skipped(reason, elapsed)
        fed = fixture_fed(ctx.project, candidate.rel, candidate.source) or set_up_feeds(
            ctx, candidate
        )
        if fed:
            reason = (
                "no target: the tests run no function of the project, but they get its objects "
                f"from a fixture ({fed}): what they check (e.g. a read-only attribute) is "
                "declared, not run, and gate 4 has no mutant of it"
            )
            return self._skipped(reason, elapsed)
        reason = (
            f"the tests run no code of the project: none of its {modules} modules is imported by "
            "the file, and no test executed a function of one; nor does the file start a process"
        )
        return GateResult(
            self.name,
            GateStatus.REJECT,
            elapsed,
            compose(UNREACHED_HEADER, [f"{candidate.rel}: {reason}"], UNREACHED_HINT),
            details={"reason": reason},
        )


def baseline_flakes(run: MutationResult, skipped: set[str], gate: str) -> list[TestOutcome]:
    """Tests that failed on the unmutated code in the worker's baseline after passing gates 2 and
    3 (`skipped`: those gate 2 skipped): flaky evidence. Before, such a test was left out of the
    run and the mutants only it reached counted as uncovered: a score that hung on a draw."""
    return [
        TestOutcome(
            t.id,
            Verdict.FLAKY,
            gate,
            f"{t.outcome} on the unmutated code in gate 4's baseline after passing gates 2 and 3",
        )
        for t in run.tests
        if "failed" in t.outcome and t.id not in skipped
    ]


def _progress(ctx: GateContext, rel: str, gate: str, ev: Event) -> None:
    """The engine's counts as the pipeline's `GateProgress`: baseline tests, then mutants."""
    if isinstance(ev, BaselineProgress):
        ctx.emit(GateProgress(rel, gate, ev.done, ev.total, "baseline tests"))
    elif isinstance(ev, Progress) and ev.phase == "mutants":
        ctx.emit(GateProgress(rel, gate, ev.done, ev.total))


def clipped(text: str, limit: int = 500) -> str:
    """`text` within about `limit` characters, its end kept: a traceback's last line names the
    error (its head alone hid `KeyError: 'killed_by'`)."""
    if len(text) <= limit:
        return text
    head = text[: limit // 4].rsplit("\n", 1)[0]
    return f"{head}\n  ...\n{text[-(limit - len(head)) :].split(chr(10), 1)[-1]}"
