"""The offline writer's probe of one module (`offline JOB`): inputs, oracle, mutants, within a
time budget.

1. Import the module once (the worker never calls its functions itself: every call runs in a
   forked child).
2. Per function - those with mutants of their own first, callers before callees - in a child:
   candidate inputs (`inputs.candidates`), with the arguments its callers passed it while their
   inputs ran (`callgraph`).
3. The oracle, in a child per function: every input in order under a line tracer, each call bounded
   by a timer and an address-space limit; then again in reverse order in another child. An input is
   kept when both runs agree and its outcome can be asserted. A child that dies or overruns is
   bisected down to the input that did it, which is recorded as hanging or crashing.
4. The mutants (`mutants.run`): for each, the kept inputs that execute its lines, in a child.
Output: JSON at `job.out`, read by `assay.writers.offline.probe`.
"""

from __future__ import annotations

import importlib
import importlib.util
import json
import os
import re
import time
import traceback
from typing import TYPE_CHECKING

from .. import boot
from ..protocol import OfflineJob

if TYPE_CHECKING:
    from types import ModuleType

    from ..protocol import MutantSpec, OfflineFunction
    from .oracle import Report
from . import mutants, patterns
from .callgraph import PER_CALLEE, Watched, callers_first
from .calls import (
    LineTrace,
)
from .inputs import candidates, drawn
from .keep import ASSERTABLE, _unique, _why_dropped
from .oracle import GIVE_UP, bisected, in_child, observe
from .pace import Clock, Pace
from .patterns import reached
from .suite import first_call_only, function_bodies, given, kept_cases

EXPLORE_SHARE = 0.55  # of the budget, for inputs and oracle; the rest for the mutants
OVERRUN_SHARE = 0.4  # of the mutants' share, what a late exploration may take
MAX_CASES = 250  # inputs run against one mutant
# a mutant's lines ran in this many cases or fewer, while many more ran its function: code that runs
# on the first call only (`suite.first_call_only`)
FIRST_CALLS = 2


def _warm_hypothesis() -> bool:
    """Import hypothesis once in the worker (every forked child shares it); False when it is
    not installed."""
    try:
        from hypothesis import given, settings, strategies  # noqa: F401
    except ImportError:
        return False
    return True


def explore(
    job: OfflineJob,
    module: ModuleType,
    fn: OfflineFunction,
    path: str,
    deadline: float,
    hypothesis: bool,
    hard: float | None = None,
    watched: Watched | None = None,
    slow: float = 1.0,
) -> dict:
    """One function: candidate inputs, then the oracle twice; what is kept and why the rest
    is not, and (`calls`) the inputs other targets got from its runs (`callgraph`). `deadline`:
    its share; `hard`: the probe's end, which no step overruns; `slow`: the machine's slowdown
    (`pace`), by which the fixed limits (a call's timeout, a step's least time) stretch."""
    spec = {"name": fn.name, "kind": fn.kind, "inputs": fn.inputs, "receivers": fn.receivers}
    timeout = job.call_timeout * slow
    share = deadline - time.monotonic()
    left = (hard if hard is not None else deadline + 60.0) - time.monotonic()
    if left < 0.5 * slow:
        return {"error": "not probed: the probe's time ran out before it (raise --budget)"}
    gen_limit = min(max(2.0 * slow, share * 0.3), left * 0.5)
    state, made, _ = in_child(
        lambda: candidates(module, spec, job.literals, job.max_inputs, job.seed), gen_limit
    )
    if state == "timeout":
        return {"error": f"building inputs took more than {gen_limit:.1f} s"}
    if "crash" in made:
        return {"error": "building inputs failed: " + made["crash"].strip().splitlines()[-1][:200]}
    inputs = made["inputs"]
    left = (hard if hard is not None else deadline + 60.0) - time.monotonic()
    if left > 2.0 * slow:  # strings matching the patterns the module holds once it ran (a child)
        known = set(job.literals.get("regex", []))
        state, found, _ = in_child(
            lambda: reached(module, spec, inputs, job.imports, timeout, known),
            min(max(1.0 * slow, share * 0.1), left * 0.2) + patterns.BASES * timeout,
        )
        if state == "exited" and isinstance(found, list) and found:
            # after the inputs a person wrote, before the generated ones
            at = sum(1 for i in inputs if i.get("origin") in ("tests", "doctest"))
            inputs = _unique([*inputs[:at], *found, *inputs[at:]])[: job.max_inputs]
        left = (hard if hard is not None else deadline + 60.0) - time.monotonic()
    if hypothesis and len(inputs) < job.max_inputs and left > 2.0 * slow:  # own child, bounded
        limit = min(share * 0.2, 4.0 * slow, left * 0.2)
        until = time.monotonic() + limit * 0.7
        # the draws stop at `until`; the kill comes later, so a slow start on a busy machine still
        # returns them
        state, more, _ = in_child(
            lambda: drawn(module, spec, job.literals, job.hypothesis_examples, until),
            limit + max(2.0 * slow, limit),
        )
        if state == "exited" and isinstance(more, list):
            inputs = _unique([*inputs, *more])[: job.max_inputs]

    def forward(batch: list[dict], stop: float, report: Report) -> list[dict]:
        return observe(
            module,
            spec,
            batch,
            job.imports,
            timeout,
            path,
            True,
            job.memory_mb,
            stop,
            watched,
            job.warnings_fail,
            report,
        )

    def backward(batch: list[dict], stop: float, report: Report) -> list[dict]:
        last = len(batch) - 1
        return list(
            reversed(
                observe(
                    module,
                    spec,
                    list(reversed(batch)),
                    job.imports,
                    timeout,
                    path,
                    False,
                    job.memory_mb,
                    stop,
                    None,
                    job.warnings_fail,
                    lambda msg: report({**msg, "i": last - msg["i"]}),
                )
            )
        )

    # the first run leaves the second (which drops the outcomes that do not repeat) a share
    # however short its share, a function gets the time to show that it hangs (`GIVE_UP` calls
    # to the call timeout), within the probe's end: on a busy machine too it is called a hang
    began = time.monotonic()
    floor = began + GIVE_UP * timeout + 1.5 * slow
    first = bisected(
        forward,
        inputs,
        timeout,
        max(
            time.monotonic() + (deadline - time.monotonic()) * 0.6,
            min(floor, hard if hard is not None else floor),
        ),
    )
    again = [i for i, a in enumerate(first) if a["k"] in ASSERTABLE]  # only those can be kept
    second = [{"k": "not_run"} for _ in inputs]
    # an outcome seen once is no test: when the first run overran the share, the second still
    # gets as long as the first took, within the probe's end (on a busy machine every input of a
    # function was dropped as "out of time" after a first run that went well)
    took = time.monotonic() - began
    confirm_by = deadline if hard is None else max(deadline, min(hard, time.monotonic() + took))
    for i, b in zip(  # noqa: B905
        again, bisected(backward, [inputs[i] for i in again], timeout, confirm_by)
    ):
        second[i] = b
    kept: list[dict] = []
    dropped: dict[str, int] = {}
    examples: dict[str, str] = {}  # drop reason -> the first exception message behind it
    for inp, a, b in zip(inputs, first, second):  # noqa: B905 - one outcome per input
        why = _why_dropped(inp, a, b)
        if why:
            dropped[why] = dropped.get(why, 0) + 1
            message = re.sub(r"\\(.)", r"\1", (a.get("match") or "").strip("^$"))
            # an input that does not evaluate: the error that stopped it (a receiver not built)
            stopped = a.get("why", "") if a["k"] == "bad_input" else ""
            examples.setdefault(why, message[:80] or stopped[:160])
            continue
        if "literal" in a:
            inp = {**inp, **a["literal"]}
        kept.append(
            {
                "input": inp,
                "outcome": {
                    k: v for k, v in a.items() if k not in ("lines", "s", "literal", "calls")
                },
                "lines": a.get("lines", []),
                "s": a.get("s", 0.0),
            }
        )
    tried: dict[str, int] = {}
    for inp in inputs:
        tried[inp.get("origin", "tests")] = tried.get(inp.get("origin", "tests"), 0) + 1
    hung = sum(1 for a in first if a["k"] == "timeout")
    memory = sum(1 for a in first if a["k"] == "memory")
    return {
        "params": made["params"],
        "defaults": made.get("defaults", {}),
        "tried": tried,
        "kept": kept,
        "dropped": dropped,
        "examples": {k: v for k, v in examples.items() if v},
        "hung": hung,
        "memory": memory,
        "inputs": len(inputs),
        "first": [a for a in first if "calls" in a],  # for `callgraph`, taken out by the caller
    }


def main(job_path: str) -> int:
    job = OfflineJob.read(job_path)
    start = time.monotonic()
    # the budget in idle seconds, the interpreter's start counted in it; the wall-clock end is
    # the limit whatever the load
    pace = Pace(job.max_slowdown)
    pace.spent = max(0.0, time.time() - job.started_at) / pace.slowdown if job.started_at else 0.0
    end = start + (job.ends_at - time.time() if job.ends_at else job.budget_s * pace.cap)
    clock = Clock(pace, end)
    result: dict = {"functions": {}, "mutants": {}, "status": {}}
    try:
        boot.isolate_imports(job.user_root, job.scratch_root, job.source_roots)
        os.chdir(job.scratch_root)
        try:
            spec = importlib.util.find_spec(job.module)
            at_import = LineTrace(str(getattr(spec, "origin", None) or job.path))
            # the lines that run at import time: a def called there is observed through its effects
            with at_import:
                module = importlib.import_module(job.module)
        except BaseException as err:  # noqa: BLE001 - the module itself cannot be imported
            result["error"] = f"importing {job.module} failed: {type(err).__name__}: {err}"[:500]
            return _write(job, result, start, pace)
        path = str(getattr(module.__spec__, "origin", None) or module.__file__)
        with open(path, encoding="utf-8") as fh:
            text = fh.read()
        hypothesis = bool(job.hypothesis_examples) and not job.cases and _warm_hypothesis()
        # marks in idle seconds (`pace`): the exploration's end, and how late it may run on
        # into the mutants' share (never all of it)
        now = pace.elapsed()
        explore_end = now + max(0.0, job.budget_s - now) * EXPLORE_SHARE
        hard = explore_end + max(0.0, job.budget_s - explore_end) * OVERRUN_SHARE
        if job.cases:  # the confirming run: the cases are given
            result["functions"] = given(job.cases)
        else:
            result["functions"] = _explore_all(
                job, module, path, text, hypothesis, explore_end, hard, clock
            )
        result["explore_s"] = time.monotonic() - start
        cases = kept_cases(job, result["functions"])
        planner = mutants.Planner(text, path)
        todo = [(m, None) for m in job.mutants]
        observers = mutants.Observers(text, path)
        source_lines = text.split("\n")
        bodies = function_bodies(text)

        def cases_for(m: MutantSpec) -> tuple[list[tuple], bool]:
            """(cases, whether the module body must run again): a def no call runs ran at
            import time."""
            if m.chain:
                span = {*range(m.line, m.end_line + 1), m.stmt_line}
                chosen = [c for c in cases if span & c[5]]
                if 0 < len(chosen) <= FIRST_CALLS:
                    chosen += first_call_only(chosen, cases, bodies.get(m.chain[-1][1], set()))
                if chosen or not span & at_import.lines:
                    return mutants.spread(chosen, MAX_CASES), False
                lines = observers.lines(m.chain[-1][1])
                chosen = [c for c in cases if lines is None or lines & c[5]]
                # its effects cannot be bounded
                return mutants.spread(chosen or cases, MAX_CASES), True
            lines = observers.lines(m.stmt_line)
            words = mutants.words_of("\n".join(source_lines[m.line - 1 : m.end_line]))
            return mutants.spread(
                [c for c in cases if lines is None or lines & c[5]], MAX_CASES, words
            ), True

        if not job.cases:  # confirming, the mutants come in the order they matter in
            todo = mutants.first_things_first(todo, [f.name for f in job.functions], cases_for)
        pace.measure()
        kills, status = mutants.run(
            todo,
            cases_for,
            module,
            path,
            job.imports,
            job.workers,
            job.memory_mb,
            # counted in the CPU the workers got, read again as each child ends
            lambda: clock.at(job.budget_s, lanes=job.workers) - 0.3 * pace.slowdown,
            planner,
            # confirming: every case that kills each mutant, for the minimal suite
            0 if job.cases else mutants.MAX_KILLERS,
            slack=pace.slowdown,
        )
        result["mutants"] = kills
        result["status"].update(status)
    except Exception:  # noqa: BLE001 - report, never hang the caller
        result["error"] = traceback.format_exc()[-1500:]
    return _write(job, result, start, pace)


def _explore_all(
    job: OfflineJob,
    module: ModuleType,
    path: str,
    text: str,
    hypothesis: bool,
    explore_end: float,
    hard: float,
    clock: Clock,
) -> dict:
    """Every function explored in turn (`explore`): name -> what it found. `explore_end`, `hard`:
    marks in idle seconds. Each function's share is the time left over the functions left,
    measured at the slowdown of the moment; it may run over by its share (or the time it takes to
    tell a hang), never into the shares of all the others."""
    found_by: dict[str, dict] = {}
    watched = Watched(module, job.functions)
    passed: dict[str, list[dict]] = {}  # callee -> the arguments its callers gave it
    # a function with no mutant of its own last (the time may not reach it), callers before
    # their callees, source order otherwise (ordered by mutant count, a function that hangs
    # came early and squeezed the shares of those after it)
    owners = {m.function.split(".<locals>.")[0] for m in job.mutants}
    # special methods (`v < w`) after the module's named functions: its public API first
    order = callers_first(
        text,
        sorted(
            job.functions,
            key=lambda f: (f.name not in owners, f.name.rsplit(".", 1)[-1].startswith("__")),
        ),
    )
    pace = clock.pace
    hang = GIVE_UP * job.call_timeout + 1.5  # idle seconds to tell that a function hangs
    for i, fn in enumerate(order):
        pace.measure()
        now = pace.elapsed()
        share = max((explore_end - now) / (len(order) - i), 0.5)
        fresh = [c for c in passed.get(fn.name, []) if c not in fn.inputs]
        fn.inputs = fn.inputs + fresh[:PER_CALLEE]
        found = explore(
            job,
            module,
            fn,
            path,
            clock.at(now + share),
            hypothesis,
            clock.at(min(hard, now + share + max(share, hang))),
            watched,
            slow=pace.slowdown,
        )
        for first in found.pop("first", []):
            for callee, inputs in first.get("calls", {}).items():
                passed.setdefault(callee, []).extend(inputs)
        found_by[fn.name] = found
    return found_by


def _write(job: OfflineJob, result: dict, start: float, pace: Pace) -> int:
    result["duration_s"] = time.monotonic() - start
    result["idle_s"] = pace.elapsed()  # the budget spent, in seconds of an idle machine
    result["slowdown"] = pace.slowdown
    tmp = job.out + ".tmp"
    with open(tmp, "w", encoding="utf-8") as fh:
        json.dump(result, fh)
    os.replace(tmp, job.out)
    return 0
