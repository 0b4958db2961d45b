"""A gate started ahead of its turn: gate 4 from the moment gate 2's outcomes are in, beside gate 3.

Gate 3's plan (reruns, a random order, each test alone: ~0.5 s of a small file) runs in the pytest
process of gates 1-2 after their tests, on one core; gate 4 needs of gates 1-3 only gate 2's facts
(the tests that passed, their durations) until it judges. So the pipeline starts it on the other
core as soon as that process has written them (`languages.green_watch`), instead of after gate 3.

What keeps its verdict the one it gives at its turn:
- it runs in a scratch copy of its own (the pristine project and the candidate; its own HOME and
  TMPDIR, in the copy's run directory), at its turn too: nothing gate 3's runs write reaches it,
  nor what it runs theirs, and it gives the same whether it started early or late;
- it starts only from a run that leaves the file to gate 3 (every test passed, skipped or xfail,
  none wrote into the tree); at its turn its result is taken only when the gates before it let the
  file through with the facts it started from (collected tests, passing tests, their durations),
  else it is stopped (`GateContext.stop`: its processes end) and runs again at its turn;
- it reads the earlier gates' results (gate 2's environment gaps) only once they have all run
  (`GateContext.earlier`), and its progress events are held until its turn.
A file gate 3 finds flaky stops there: the gate's run is stopped and its result never seen.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import replace

from assay.events import ProgressEvent
from assay.execution.runner import Outcome, TestRun
from assay.gates.base import BaseGate, Facts, GateContext
from assay.model import Candidate, GateResult

# outcomes that leave a file to gate 3 (a failure or an error stops it at gate 2)
CLEAN = {Outcome.PASSED, Outcome.SKIPPED, Outcome.XFAILED, Outcome.XPASSED}


def leaves_to_gate_3(run: TestRun, facts: Facts) -> bool:
    """Whether gates 1-2 will pass the file on, as far as the run alone tells (what it did to the
    tree beyond the tests' own writes is seen only once its process ends)."""
    return (
        run.exit_status == 0
        and not run.errors
        and run.crash is None
        and run.environment is None
        and run.writes == frozenset()
        and bool(run.tests)
        and set(run.collected) == set(run.tests)
        and all(r.outcome in CLEAN for r in run.tests.values())
        and bool(facts.passing_tests)
    )


class Ahead:
    """One file's gate that may start ahead, with the context of its own scratch copy (`ctx`:
    its workspace, the file's emit); `green` starts it, `take` gives its result at its turn,
    `drop` stops it when the file never gets there."""

    def __init__(
        self,
        gate: BaseGate,
        candidate: Candidate,
        ctx: GateContext,
        facts_of: Callable[[TestRun], Facts],
    ) -> None:
        self.gate = gate
        self.candidate = candidate
        self.ctx = ctx
        self.facts_of = facts_of
        self._lock = threading.Lock()
        self._closed = False  # its turn came, or the file stopped before: no start now
        self._started: GateContext | None = None
        self._thread: threading.Thread | None = None
        self._result: GateResult | None = None
        self._error: BaseException | None = None
        # its progress events until its turn; then None: passed on as they come
        self._held: list[ProgressEvent] | None = []
        self._muted = False  # dropped: what it still says is not this file's

    def green(self, run: TestRun) -> None:
        """Gate 2's outcomes are in (the process of gates 1-2 runs on): start the gate from the
        facts they give, if they leave the file to gate 3."""
        with self._lock:
            if self._closed or self._thread is not None:
                return
        facts = self.facts_of(run)
        if not leaves_to_gate_3(run, facts):
            return
        started = replace(
            self.ctx,
            facts=facts,
            results={},
            emit=self._hold,
            stop=threading.Event(),
            turn=threading.Event(),
        )
        with self._lock:
            if self._closed or self._thread is not None:
                return
            self._started = started
            self._thread = threading.Thread(target=self._run, name="gate-ahead", daemon=True)
            self._thread.start()

    def _run(self) -> None:
        assert self._started is not None
        try:
            self._result = self.gate.run(self.candidate, self._started)
        except BaseException as err:  # re-raised at its turn, or dropped with the run
            self._error = err

    def _hold(self, event: ProgressEvent) -> None:
        with self._lock:
            if self._muted:
                return
            if self._held is not None:
                self._held.append(event)
                return
        self.ctx.emit(event)

    def take(self, ctx: GateContext) -> GateResult:
        """At the gate's turn (`ctx`: the file's context, gates before it all run): its result,
        from the run started ahead if that started from the same facts, else run now."""
        with self._lock:
            self._closed = True
            started, thread = self._started, self._thread
        if started is not None and thread is not None and started.facts == ctx.facts:
            started.results.update(ctx.results)
            assert started.turn is not None
            started.turn.set()
            with self._lock:  # what it said so far, then the rest as it comes
                held, self._held = self._held or [], None
                for event in held:
                    self.ctx.emit(event)
            thread.join()
            if self._error is not None:
                raise self._error
            assert self._result is not None
            return self._result
        self.drop()
        now = replace(self.ctx, facts=replace(ctx.facts), results=dict(ctx.results))
        return self.gate.run(self.candidate, now)

    def drop(self) -> None:
        """The gate's run started ahead is not wanted (the file stopped before its turn, or it
        started from other facts): stop it and wait until its processes are gone."""
        with self._lock:
            self._closed = self._muted = True
            started, thread = self._started, self._thread
        if started is None or thread is None:
            return
        assert started.stop is not None and started.turn is not None
        started.stop.set()
        started.turn.set()
        thread.join()
