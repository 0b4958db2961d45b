"""`verify`: each candidate file through the gates in order, stopping at the first reject.

Data flows one way: candidate -> workspace overlay -> runner -> gates -> verdict -> FileReport. A
candidate may be a file of the user's tree or text that exists only in memory (a writer's attempt);
either way it is written over a scratch copy, which is reset and reused for the next candidate.
Results are cached by a hash of everything that can change them; nothing here prints.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from assay.config import Settings
from assay.errors import InputError
from assay.events import FileDone, GateStarted, Preparing, ProgressEvent
from assay.execution.batches import Batches
from assay.execution.order import remember
from assay.execution.pool import WorkspacePool
from assay.execution.runner import Runner
from assay.feedback import survivors_run_by, with_causes
from assay.gates import REGISTRY
from assay.gates.ahead import Ahead
from assay.gates.base import BaseGate, Facts, GateContext, precondition, static_after
from assay.gates.green import facts_of
from assay.languages import LANGUAGES, Language
from assay.languages.prepare import prepare
from assay.model import (
    GATE_ORDER,
    NOT_JUDGED,
    Candidate,
    FileReport,
    GateResult,
    GateStatus,
    TestOutcome,
    Verdict,
)
from assay.project import Project
from assay.sandbox import Cancelled, Sandbox
from assay.store import Store
from assay.verdict_key import cache_key, cacheable

if TYPE_CHECKING:
    from assay.mutation.standby import StandbyWorkers

EventSink = Callable[[ProgressEvent], None]


def build_gates(settings: Settings) -> list[BaseGate]:
    """The configured gates, or every registered gate in the canonical order, constructed with
    the settings. Opt-in gates (`opt_in = True`: the review gate, which needs a model) run only
    when named."""
    names = settings.gates
    if names is None:
        names = [g for g in GATE_ORDER if g in REGISTRY] + [
            g for g in REGISTRY if g not in GATE_ORDER
        ]
        names = [g for g in names if not getattr(REGISTRY[g], "opt_in", False)]
    unknown = [n for n in names if n not in REGISTRY]
    if unknown:
        raise InputError(f"unknown gate '{unknown[0]}' (available: {', '.join(REGISTRY)})")
    return [REGISTRY[n](settings) for n in names]


def stops(result: GateResult) -> bool:
    """A reject ends a file's run; so does a skip that leaves the file unvalidated (later gates
    need it)."""
    return result.status is GateStatus.REJECT or (
        result.status is GateStatus.SKIP and result.verdict is not None
    )


def assemble(
    candidate: Candidate,
    results: list[GateResult],
    collected: list[str],
    duration: float,
    gates_run_all: bool,
) -> FileReport:
    """The file's verdict and per-test verdicts from the gates that ran.

    A test no gate singled out is `accepted` when no gate stopped the file, and also when every gate
    ran and the last one rejected other tests by name (the test passed all gates); otherwise it was
    not fully judged: `unvalidated`. A file some of whose tests the environment left unjudged (a
    missing module, in the test or in a subprocess it starts) is `unvalidated` even when every other
    test passed every gate; one rejected for a real reason stays `rejected`. A gate's notes on tests
    (gate 4: redundant) go on their outcomes.
    """
    decided: dict[str, TestOutcome] = {}
    for result in results:
        for outcome in result.tests:
            decided[outcome.id] = outcome
    stop = next((r for r in results if stops(r)), None)
    if stop is not None:
        verdict, rejected_at = stop.verdict or Verdict.REJECTED, stop.gate
    else:
        verdict = next((r.verdict for r in results if r.verdict), Verdict.ACCEPTED)
        rejected_at = None
    # no gate stopped the file (it may still be `unvalidated` for an environment gap, or
    # `low_value`): a test no gate singled out passed them all
    passed_all = stop is None or (gates_run_all and stop is results[-1] and bool(stop.tests))
    tests = []
    for nodeid in dict.fromkeys([*collected, *decided]):
        if nodeid in decided:
            tests.append(decided[nodeid])
        elif passed_all:
            tests.append(TestOutcome(nodeid, Verdict.ACCEPTED, None, ""))
        else:
            # the static gates run after a flaky stop (`gates.base.static_after`)
            static = (stop.details.get("static") or {}) if stop is not None else {}
            found_nothing = "".join(f"; {name} found nothing in it" for name in static)
            tests.append(
                TestOutcome(
                    nodeid, Verdict.UNVALIDATED, None, f"{NOT_JUDGED} {rejected_at}{found_nothing}"
                )
            )
    notes = {nodeid: note for result in results for nodeid, note in result.notes.items()}
    for t in tests:
        t.note = notes.get(t.id, t.note)
    return FileReport(
        candidate.rel,
        candidate.language,
        candidate.targets,
        verdict,
        rejected_at,
        results,
        tests,
        duration_s=duration,
    )


class Verifier:
    """What one `verify` run shares across files: project, settings, sandbox, gates,
    store, workspaces.

    `gates` may be given to inject gates of the caller's own (constructed with their settings)."""

    def __init__(
        self,
        project: Project,
        settings: Settings,
        use_cache: bool = True,
        on_event: EventSink | None = None,
        gates: Sequence[BaseGate] | None = None,
    ):
        self.project = project
        self.settings = settings
        self.sandbox = Sandbox(settings.sandbox, protect=project.root)
        self.gates = list(gates) if gates is not None else build_gates(settings)
        self.use_cache = use_cache and settings.cache
        # what the gates see: with the cache off for this run (--no-cache), their own caches
        # (gate 4's mutants, gate 6's answers) are neither read nor written either
        self.gate_settings = (
            settings if self.use_cache else settings.model_copy(update={"cache": False})
        )
        self.store = Store(project.root if settings.cache else None)
        self.pool = WorkspacePool(project.root)
        # gate 4: one worker on standby per workspace forks each file's worker
        self.standby: StandbyWorkers | None = None
        if any(g.uses_standby for g in self.gates):
            from assay.mutation.standby import StandbyWorkers

            self.standby = StandbyWorkers(self.sandbox)
        self.emit = on_event or (lambda *_: None)
        self._lock = threading.Lock()
        self._toolchains: dict[str, tuple[str, str | None]] = {}
        self._runners: dict[str, Runner] = {}
        self.batches = Batches(self._run_batch)
        self._todo: dict[str, Candidate] = {}

    def language(self, candidate: Candidate) -> Language:
        language = LANGUAGES.get(candidate.language)
        if language is None:
            raise InputError(
                f"{candidate.rel}: no language '{candidate.language}' "
                f"(known: {', '.join(LANGUAGES)})"
            )
        return language

    def toolchain(self, language: Language) -> tuple[str, str | None]:
        """(identity for the cache key, the missing-toolchain problem or None), checked once
        per language."""
        with self._lock:
            if language.name not in self._toolchains:
                name = language.name
                problem = language.toolchain_problem(self.settings)
                if problem is None:
                    problem = prepare(
                        self.project.root,
                        name,
                        offline=self.settings.offline,
                        say=lambda what: self.emit(Preparing(name, what)),
                    )
                    self.emit(Preparing(name))
                self._toolchains[language.name] = (language.toolchain_id(self.settings), problem)
                self._runners[language.name] = language.runner(
                    self.sandbox, self.project, self.settings
                )
            return self._toolchains[language.name]

    def verify_file(self, candidate: Candidate) -> FileReport | None:
        """The candidate's report; None when the run was cancelled before it finished."""
        try:
            return self._verify(candidate)
        except Cancelled:
            return None

    def cancel(self) -> None:
        """Stop every file in flight (their processes are killed) and start no new one."""
        self.sandbox.cancel()

    def _verify(self, candidate: Candidate) -> FileReport:
        start = time.monotonic()
        language = self.language(candidate)
        ident, problem = self.toolchain(language)
        key = cache_key(self.project, candidate, self.settings, ident, language)
        if self.use_cache and (hit := self.store.get("verify", key)):
            report = FileReport.from_json(hit)
            report.cached = True
            report.duration_s = time.monotonic() - start
            self.emit(FileDone.of(report))
            return report
        if problem:
            skip = GateResult(
                self.gates[0].name, GateStatus.SKIP, 0.0, problem, verdict=Verdict.UNVALIDATED
            )
            return FileReport(
                candidate.rel,
                candidate.language,
                candidate.targets,
                Verdict.UNVALIDATED,
                None,
                [skip],
                [],
                duration_s=time.monotonic() - start,
            )
        if self.batches.holds(candidate.rel):  # its batch may take a while: say where it is
            self.emit(GateStarted(candidate.rel, self.gates[0].name))
            self.batches.settle(candidate.rel)
        results: list[GateResult] = []
        with self.pool.lease(language.profile_for(self.project)) as ws:
            if candidate.read_error is None:
                ws.apply({candidate.rel: candidate.source})
            ctx = GateContext(
                self.project,
                self.gate_settings,
                ws,
                self.sandbox,
                language,
                self._runners[language.name],
                emit=self.emit,
                standby=self.standby,
            )
            with self._ahead(candidate, language, ctx) as ahead:
                if candidate.read_error is None:
                    for gate in self.gates:
                        gate.warm(candidate, ahead.ctx if ahead and gate is ahead.gate else ctx)
                for gate in self.gates:
                    if self.sandbox.cancelled:
                        raise Cancelled(candidate.rel)
                    self.emit(GateStarted(candidate.rel, gate.name))
                    early = ahead is not None and gate is ahead.gate
                    result = precondition(gate, candidate, ctx.facts) or (
                        ahead.take(ctx) if ahead and early else gate.run(candidate, ctx)
                    )
                    results.append(result)
                    ctx.results[gate.name] = result
                    if stops(result):
                        if result.status is GateStatus.REJECT:
                            self._causes_first(candidate, ctx, result)
                        static_after(self.gates, candidate, ctx, result, self.emit)
                        break
        if self.sandbox.cancelled:  # its last gate saw killed processes: no verdict
            raise Cancelled(candidate.rel)
        report = assemble(
            candidate,
            results,
            ctx.facts.collected or [],
            time.monotonic() - start,
            gates_run_all=len(results) == len(self.gates),
        )
        report.limits = self.sandbox.limits_for(language.profile_for(self.project))
        # nothing of the user's environment the tests printed reaches a report, cache or prompt
        redactor = self.sandbox.redactor()
        redacted = FileReport.from_json(redactor.tree(report.to_json()))
        # each gate's own per-test outcomes are not in the JSON (smells and generate read them)
        for done, was in zip(redacted.gates, report.gates, strict=True):
            done.tests = [
                replace(t, reason=redactor.text(t.reason), note=redactor.text(t.note))
                for t in was.tests
            ]
        report = redacted
        if cacheable(report):
            self.store.put("verify", key, report.to_json())
        remember(self.store, candidate.rel, sum(g.duration_s for g in results))
        self.emit(FileDone.of(report))
        return report

    @contextlib.contextmanager
    def _ahead(
        self, candidate: Candidate, language: Language, ctx: GateContext
    ) -> Iterator[Ahead | None]:
        """The gate that may start ahead of its turn (`gates.ahead`: gate 4 beside gate 3), with
        a scratch copy of its own, and the file's runner told to hand it gate 2's outcomes as
        soon as they are in; None when no gate does."""
        gate = next((g for g in self.gates if g.starts_ahead(candidate)), None)
        if gate is None or candidate.read_error is not None:
            yield None
            return
        profile = language.profile_for(self.project)
        with self.pool.lease(profile, role=gate.name) as own:
            own.apply({candidate.rel: candidate.source})
            ahead = Ahead(
                gate,
                candidate,
                replace(ctx, workspace=own, facts=Facts(), results={}),
                lambda run: facts_of(candidate, run, ctx),
            )
            listen = getattr(ctx.runner, "on_green", None)
            if listen is not None:
                listen(ctx.workspace, ahead.green)
            try:
                yield ahead
            finally:
                if listen is not None:
                    listen(ctx.workspace, None)
                ahead.drop()  # its processes end before its copy is reset

    def batch(self, candidates: Sequence[Candidate], jobs: int) -> list[list[str]]:
        """Plan gates 1-3 of files of one directory in a shared process each (`Batches`, the
        runner's `batch`): files as read from the tree, not cached, whose runner can. Their
        verdicts stay those of a process per file."""
        if {"compile", "green"} <= {g.name for g in self.gates}:
            self._todo = {c.rel: c for c in candidates if self._batchable(c)}
        return self.batches.plan(list(self._todo), jobs)

    def _batchable(self, c: Candidate) -> bool:
        language = LANGUAGES.get(c.language)
        if c.read_error is not None or language is None or self.toolchain(language)[1]:
            return False
        ident = self.toolchain(language)[0]
        try:  # the scratch copy must hold the candidate as is: a batch writes no file over
            same = (self.project.root / c.rel).read_bytes() == c.source.encode()
        except OSError:
            return False
        cached = self.use_cache and self.store.get(
            "verify", cache_key(self.project, c, self.settings, ident, language)
        )
        return same and not cached and hasattr(self._runners[language.name], "batch")

    def _run_batch(self, files: list[str]) -> None:
        language = self.language(self._todo[files[0]])
        with self.pool.lease(language.profile_for(self.project)) as ws:
            self._runners[language.name].batch(ws, files)  # type: ignore[attr-defined]

    def _causes_first(self, candidate: Candidate, ctx: GateContext, stop: GateResult) -> None:
        """Cheap static causes found by gates that did not get to run (reject-level smells) go
        before the feedback of the gate that stopped the file; its verdict and `rejected_at` stay as
        they are."""
        causes: list[str] = []
        for gate in self.gates:
            finder = getattr(gate, "causes", None)
            if gate.name != stop.gate and gate.name not in ctx.results and finder is not None:
                causes += finder(candidate, ctx)
        # the project's own code raised every failure: the smells come after, not as its cause
        after = bool(stop.details.get("raised_in_project")) and "Fix these first" in stop.feedback
        flaky = stop.verdict is Verdict.FLAKY
        # a test past the time limit: no smell of what it asserts made it run long
        timed_out = bool(stop.details.get("timed_out"))
        failed = stop.gate == "green" and stop.verdict in (None, Verdict.REJECTED)
        # by test function name: pytest's ids (other runners name tests otherwise)
        python4 = stop.gate == "mutation" and candidate.language == "python"
        running = survivors_run_by(stop.details) if python4 else None
        stop.feedback = with_causes(
            causes,
            stop.feedback,
            after=after,
            flaky=flaky,
            timed_out=timed_out,
            failed=failed,
            running=running,
        )

    def close(self) -> None:
        if self.standby is not None:
            self.standby.close()
        self.pool.close()
        self.store.close()
