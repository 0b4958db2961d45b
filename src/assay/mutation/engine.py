"""Run mutants of target files against tests: generation and caching here, execution in the
sandboxed worker.

The worker (`_assay_sandbox/mutation/`) never writes a mutant to disk: it compiles each one in
memory inside the scratch workspace, so neither the user's tree nor the scratch sources change.
Verdicts are cached by (enclosing function's source, tests, mutant, interpreter and what is
installed for it, assay version): after an edit to one function only its mutants run again.
"""

from __future__ import annotations

import os
import threading
import time
import uuid
from collections.abc import Callable, Collection
from pathlib import Path

from assay._assay_sandbox.mutation.protocol import (
    Done,
    Event,
    Plan,
    Stopped,
    WorkerError,
    parse_event,
)
from assay._assay_sandbox.protocol import HASH_SEED, MutantSpec, MutationJob
from assay.config.mutation import MutationConfig
from assay.dependencies.installed import Installed
from assay.errors import ConfigError, RunFailed
from assay.execution.workspace import Workspace
from assay.languages.python import USAGE_ERROR, usage_problem
from assay.mutation.fold import NAMESPACE, apply_baseline, fold
from assay.mutation.keys import cache_key, sha, tests_fingerprint
from assay.mutation.model import (
    COUNTED,
    DETECTED,
    Mutant,
    MutantResult,
    MutationResult,
)
from assay.mutation.mutants import function_spans, generate
from assay.mutation.progress import Tally
from assay.mutation.standby import StandbyWorkers, cold
from assay.sandbox import Cancelled, Sandbox
from assay.sandbox.environment import venv_path
from assay.store import Store
from assay.version import build

# between looks at the worker's events; once `Done` came, at its exit (each file waited
# 25 ms for it on average, twice for a file measured twice)
POLL_S = 0.05
EXIT_POLL_S = 0.005


class MutationError(RunFailed):
    """The mutation run could not produce verdicts (collection failed, tests fail without
    mutants, ...)."""


class Engine:
    """Mutation testing of targets inside one workspace, through one sandbox."""

    def __init__(
        self,
        workspace: Workspace,
        sandbox: Sandbox,
        python: str,
        source_roots: list[str],
        config: MutationConfig,
        pytest_args: list[str] | None = None,
        store: Store | None = None,
        standby: StandbyWorkers | None = None,
        stop: threading.Event | None = None,
    ):
        self.ws = workspace
        self.sandbox = sandbox
        self.python = python
        self._tally = Tally()
        self.source_roots = source_roots
        self.config = config
        self.pytest_args = list(pytest_args or [])
        self.store = store
        # the workspace's worker on standby forks this run's worker (`verify`), else a cold one;
        # never one of another sandbox, which its cancel would not reach (the offline writer)
        self.standby = standby if standby is not None and standby.sandbox is sandbox else None
        self.worker_starts = 0  # sandboxed interpreters this engine started
        # set when the run is no longer wanted (gate 4 started ahead, `gates.ahead`): its worker is
        # ended and the run raises Cancelled
        self.stop = stop

    def run(
        self,
        targets: list[str],
        tests: list[str],
        scoped: bool = False,
        progress: Callable[[Event], None] | None = None,
        durations: dict[str, float] | None = None,
        deselect: list[str] | None = None,
        killers: int = 1,
        only: Collection[str] | None = None,
        observe: bool = False,
        sample: int = 0,
        enough: dict[str, float] | None = None,
        entering: bool = False,
        budget: float = 0.0,
    ) -> MutationResult:
        """Mutate `targets` (project-relative files) and run `tests` against them.

        `tests`: files (collected whole), or node ids / `file::function` prefixes, picked after
        collection (an id that is not found again is an error naming why). `scoped`: keep only
        mutants inside functions that the tests execute in their call phase. `durations`: untraced
        seconds per node id when the caller has them (the green gate), which spares the untraced
        baseline run. `deselect`: node ids, prefixes or globs left out (added to the config's).
        `killers`: failing test functions to find per mutant (1: stop at the first;
        `EVERY_TEST_FUNCTION`: each covering function runs until one of its cases fails, so each
        test's kill set is exact; part of the cache key). `progress` receives every worker event
        (typed, see `assay._assay_sandbox.mutation.protocol`) and, after each change, a `Progress`
        event: the numbers a display shows. `only`: run just these mutant ids (one batch of a
        distributed run; the baseline runs all the same). `observe`: survivors whose tests receive
        nothing different from the project's code are Unexercised (gate 4, see
        `_assay_sandbox.mutation.exercised`). `sample`: run at most this many mutants in scope for
        the score, one per line first; the others only for tests that have not killed yet, Ignored
        (gate 4, see `_assay_sandbox.mutation.plan.sample`). `enough`: each target's threshold
        (percent): once the score is sure to reach them all, the sampled mutants left run only
        for tests that have not killed yet, Ignored (gate 4, `_assay_sandbox.mutation.enough`).
        `entering`: the tests get no object of the project; the mutants of reached modules that
        hold no entry point are Ignored unrun (gate 4, `_assay_sandbox.mutation.entries`).
        `budget`: the sample's test time as survivors stays within this many times the file's own
        run, else a prefix of it counts (gate 4, `_assay_sandbox.mutation.budget`).
        """
        deselect = [*self.config.deselect, *(deselect or [])]
        start = time.monotonic()
        sources = {rel: self.ws.path(rel).read_text(encoding="utf-8") for rel in targets}
        mutants = [
            m
            for rel in targets
            for m in generate(rel, sources[rel])
            if m.operator not in self.config.skip_operators
        ]
        spans = {rel: function_spans(sources[rel]) for rel in targets}
        options = [
            build(),
            # the interpreter and what is installed for it: a verdict may depend on either
            self.python,
            Installed(self.python).fingerprint,
            str(self.config.timeout_factor),
            str(self.config.timeout_s),
            *self.pytest_args,
            "deselect",
            *deselect,
            "killers",
            str(killers),
            *(["observe"] if observe else []),
            f"sample {sample}",
            f"prove {self.config.prove}",
            f"budget {budget}",
            *(["entering"] if entering else []),
        ]
        tests_hash = tests_fingerprint(self.ws.project, tests, options)
        keys = {m.id: cache_key(m, sources[m.file], spans[m.file], tests_hash) for m in mutants}
        base_key = sha("baseline", tests_hash, str(scoped), *(sources[rel] for rel in targets))

        run = MutationResult(mutants=mutants, results={}, sources=sources)
        baseline = self.store.get(NAMESPACE, base_key) if self.store else None
        if baseline:
            apply_baseline(run, baseline)
        in_scope = (
            [m for m in mutants if self._in_scope(run, m)] if baseline and scoped else mutants
        )
        if only is not None:
            in_scope = [m for m in in_scope if m.id in only]
        todo = []
        known: dict[str, list[int]] = {}  # what the cache answered: [detected, counted]
        for m in in_scope:
            hit = self.store.get(NAMESPACE, keys[m.id]) if self.store else None
            if hit:
                result = run.results[m.id] = MutantResult.from_json(hit, cached=True)
                tally = known.setdefault(m.file, [0, 0])
                tally[0] += result.status in DETECTED
                tally[1] += result.status in COUNTED
            else:
                todo.append(m)
        self._tally = Tally(todo if scoped and not baseline else None)
        if progress:
            plan = Plan(total=len(in_scope), cached=len(in_scope) - len(todo))
            progress(plan)
            progress(self._tally.feed(plan) or self._tally.event())

        if todo or not baseline:
            stops = [None] if enough is None else [(enough, known), None]
            for stop in stops:  # the second: the stop leaned to a pass (`enough.unsure`)
                events = self._worker(
                    todo,
                    targets,
                    tests,
                    spans if scoped else None,
                    progress,
                    durations,
                    deselect,
                    killers,
                    observe,
                    sample,
                    stop,
                    entering,
                    budget,
                )
                if not any(isinstance(ev, Stopped) and ev.unsure for ev in events):
                    break
            fold(run, events, self.store, keys, base_key)
        else:
            run.worker_ran = False
        if scoped:
            by_id = {m.id: m for m in run.mutants}
            run.results = {k: v for k, v in run.results.items() if self._in_scope(run, by_id[k])}
        run.duration_s = time.monotonic() - start
        return run

    @staticmethod
    def _in_scope(run: MutationResult, m: Mutant) -> bool:
        return run.scope is None or m.function in run.scope.get(m.file, [])

    def _worker(
        self,
        mutants: list[Mutant],
        targets: list[str],
        tests: list[str],
        spans: dict[str, dict[str, tuple[int, int]]] | None,
        progress: Callable[[Event], None] | None,
        durations: dict[str, float] | None,
        deselect: list[str],
        killers: int = 1,
        observe: bool = False,
        sample: int = 0,
        enough: tuple[dict[str, float], dict[str, list[int]]] | None = None,
        entering: bool = False,
        budget: float = 0.0,
    ) -> list[Event]:
        self._stopped()
        tag = uuid.uuid4().hex[:8]
        run_dir = self.ws.run_dir
        events_path = run_dir / f"mutation-{tag}.events"
        events_path.touch()
        workers = self.config.workers or os.cpu_count() or 1
        timeout = self.sandbox.config.timeout_s
        cfg = MutationJob(
            user_root=str(self.ws.root),
            scratch_root=str(self.ws.project),
            source_roots=self.source_roots,
            tests=tests,
            pytest_args=self.pytest_args,
            targets={rel: str(self.ws.path(rel)) for rel in targets},
            mutants=[
                MutantSpec(
                    id=m.id,
                    file=m.file,
                    start=m.start,
                    end=m.end,
                    replacement=m.replacement,
                    line=m.line,
                    end_line=m.end_line,
                    stmt_line=m.stmt_line,
                    chain=[list(c) for c in m.chain],
                    function=m.function,
                    operator=m.operator,
                )
                for m in mutants
            ],
            functions=None
            if spans is None
            else {
                rel: [[name, first, last] for name, (first, last) in s.items()]
                for rel, s in spans.items()
            },
            workers=workers,
            timeout_factor=self.config.timeout_factor,
            timeout_s=self.config.timeout_s,
            baseline_timeout=timeout * 3,
            events=str(events_path),
            deselect=deselect,
            durations=durations,
            killers=killers,
            observe=observe,
            sample=sample,
            prove=self.config.prove,
            enough=None if enough is None else enough[0],
            known={} if enough is None else enough[1],
            entered=entering,
            budget=budget,
        )
        cfg_path = run_dir / f"mutation-{tag}.json"
        cfg_path.write_text(cfg.to_json(), encoding="utf-8")
        idle_limit = timeout * 4
        events: list[Event] = []
        tally = self._tally
        env = worker_env(self.sandbox, run_dir, self.python)
        log_path = run_dir / f"mutation-{tag}.log"
        with open(log_path, "wb") as log, open(events_path, encoding="utf-8") as feed:
            proc = (
                self.standby.run(self.python, cfg_path, self.ws, env, log_path)
                if self.standby is not None
                else cold(self.sandbox, self.python, cfg_path, self.ws, env, log)
            )
            self.worker_starts += proc.started
            clean = False
            done = False  # its last event came: the exit follows at once
            try:
                last = time.monotonic()
                buffer = ""
                while True:
                    exited = proc.poll() is not None
                    buffer += feed.read()
                    *lines, buffer = buffer.split("\n")
                    for line in lines:
                        ev = parse_event(line)
                        events.append(ev)
                        done = done or isinstance(ev, Done)
                        last = time.monotonic()
                        if progress:
                            progress(ev)
                            shown = tally.feed(ev)
                            if shown:
                                progress(shown)
                    if exited:
                        break
                    self._stopped()
                    if time.monotonic() - last > idle_limit:
                        raise MutationError(
                            f"mutation worker made no progress for {idle_limit:.0f}s"
                        )
                    time.sleep(EXIT_POLL_S if done else POLL_S)
                clean = True
            finally:
                proc.end(clean)
        errors = [ev.message for ev in events if isinstance(ev, WorkerError)]
        if errors:
            message = errors[0]
            # pytest's own words on why: the last lines of its output
            if message.startswith("pytest stopped"):
                said = (run_dir / f"mutation-{tag}.log").read_text(errors="replace")
                if message.startswith(f"pytest stopped before running (exit code {USAGE_ERROR})"):
                    raise ConfigError(usage_problem(said))  # the config, not the tests
                output = said.strip().splitlines()
                message += "".join(f"\n  {line}" for line in output[-4:])
            raise MutationError(message)
        if not any(isinstance(ev, Done) for ev in events):
            tail = (run_dir / f"mutation-{tag}.log").read_text(errors="replace")[-2000:]
            raise MutationError(f"mutation worker ended early (exit code {proc.poll()}):\n{tail}")
        return events

    def _stopped(self) -> None:
        if self.stop is not None and self.stop.is_set():
            raise Cancelled("the mutation run was stopped: its result is not wanted")


def worker_env(sandbox: Sandbox, run_dir: Path, python: str) -> dict[str, str]:
    """A gate-4 worker's environment: the one a worker on standby is started under and matched
    by (`StandbyWorkers`). One hash seed for the worker and all its children: tests parametrized
    over a set keep their ids."""
    return {**venv_path(sandbox.env_for(run_dir / "home"), python), "PYTHONHASHSEED": HASH_SEED}
