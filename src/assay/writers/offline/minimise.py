"""The chosen cases minimised against their own kill sets: no kept case is redundant.

The probe stops at a few killing cases per mutant (`MAX_KILLERS`) and runs at most `MAX_CASES` of
them, so the set cover chose among partial kill sets: a case picked for a mutant another chosen
case also kills - unrecorded - was kept beside it. The confirming run (`confirm`) runs only the
chosen cases against the mutants whose killers were cut short, and those the probe had no time
for, recording every case that kills each; `minimal` then takes a greedy set cover of those kill
sets and drops any case whose kills the rest make (`cover.prune`).
"""

from __future__ import annotations

import time
from collections.abc import Iterable

from assay._assay_sandbox.offline.mutants import MAX_KILLERS
from assay._assay_sandbox.offline.worker import MAX_CASES
from assay._assay_sandbox.protocol import OfflineFunction, OfflineJob
from assay.execution.workspace import Workspace
from assay.mutation.model import Mutant
from assay.sandbox import Sandbox
from assay.writers.offline.cover import UNCOUNTED, UNJUDGED, cover, prune
from assay.writers.offline.probe import Kept, launch_job, mutant_spec

MIN_CONFIRM_S = 2.0  # under this, the confirming run is not started: the probe's kill sets stand


def to_confirm(
    chosen: list[Kept], every: list[Kept], mutants: list[Mutant], status: dict[str, str]
) -> list[Mutant]:
    """The mutants whose killers among the chosen cases may be more than the probe recorded: those
    it stopped at `MAX_KILLERS` killers of (or ran a sample of `MAX_CASES` cases against) that a
    chosen case kills, first; then those it had no time for that a chosen case runs, those of the
    cases kept for such mutants alone first."""
    killers: dict[str, int] = {}
    for k in every:
        for m_id in k.kills:
            killers[m_id] = killers.get(m_id, 0) + 1
    killed = set().union(*(k.kills for k in chosen)) if chosen else set()
    reached = set().union(*(k.reaches for k in chosen)) if chosen else set()
    ran = set().union(*(k.lines for k in chosen)) if chosen else set()
    cut: list[Mutant] = []
    unjudged: list[Mutant] = []
    for m in mutants:
        state = status.get(m.id, "not_run")
        if state in UNCOUNTED:
            continue
        if m.id in killed:
            span = {*range(m.line, m.end_line + 1), m.stmt_line}
            running = sum(1 for k in every if k.lines & span) if m.chain else len(every)
            if killers.get(m.id, 0) >= MAX_KILLERS or running > MAX_CASES:
                cut.append(m)
        elif state in UNJUDGED and (
            m.id in reached or ran & {*range(m.line, m.end_line + 1), m.stmt_line}
        ):
            unjudged.append(m)
    # a case kept only for mutants nobody judged stays or goes on them: theirs first, the cases
    # with the fewest of them first
    first: dict[str, tuple[bool, int]] = {}
    for k in chosen:
        for m_id in k.reaches:
            first[m_id] = min(
                first.get(m_id, (True, len(mutants))), (bool(k.kills), len(k.reaches))
            )
    unjudged.sort(key=lambda m: first.get(m.id, (True, len(mutants))))
    return [*cut, *unjudged]


def confirm(
    ws: Workspace,
    sandbox: Sandbox,
    python: str,
    source_roots: list[str],
    *,
    dotted: str,
    path: str,
    imports: list[str],
    kinds: dict[str, str],
    chosen: list[Kept],
    mutants: list[Mutant],
    until: float,
    call_timeout: float,
    workers: int,
    warnings_fail: bool = False,
) -> set[str]:
    """Run the chosen cases against `mutants` (in that order) until `until` (monotonic), every
    killing case recorded: the cases' `kills` grow and a mutant judged now leaves their `reaches`.
    Returns the ids of the mutants judged. `status` (the probe's) is left as it is: gate 4's score
    is foreseen over the mutants the probe ran with every input (`cover.foresee`); the mutants
    judged here against the chosen cases alone are those the cover had no kill for, and counting
    them would drop a function for its survivors among mutants the probe never tried to kill."""
    budget = until - time.monotonic()
    if not chosen or not mutants or budget < MIN_CONFIRM_S:
        return set()
    job = OfflineJob(
        user_root=str(ws.root),
        scratch_root=str(ws.project),
        out="",
        module=dotted,
        path=path,
        imports=imports,
        functions=[OfflineFunction(fn, kinds.get(fn, "function")) for fn in _names(chosen)],
        mutants=[mutant_spec(m) for m in mutants],
        source_roots=source_roots,
        budget_s=budget,
        ends_at=time.time() + budget,
        call_timeout=call_timeout,
        workers=workers,
        hypothesis_examples=0,
        warnings_fail=warnings_fail,
        cases=[
            {
                "id": k.id,
                "function": k.function,
                "input": k.input,
                "outcome": k.outcome,
                "lines": sorted(k.lines),
                "s": k.seconds,
            }
            for k in chosen
        ],
    )
    data, _ = launch_job(ws, sandbox, python, job, min(5.0, max(2.0, budget * 0.2)))
    if data is None:
        return set()
    judged: set[str] = set()
    by_id = {k.id: k for k in chosen}
    for m, state in data.get("status", {}).items():
        if state != "run":
            continue
        judged.add(m)
        killers = set(data.get("mutants", {}).get(m, []))
        for k in chosen:
            k.reaches.discard(m)
        for case in killers:
            if case in by_id:
                by_id[case].kills.add(m)
    return judged


def minimal(chosen: list[Kept], per_function: int, rows: Iterable[str] = ()) -> list[Kept]:
    """A greedy set cover of the chosen cases' kills (the biggest new kill first), then of the
    mutants they run but nobody judged, each case kept only when it adds one; then no case whose
    kills (and reaches) the others all make (`prune`)."""
    table = set(rows)
    core = cover(chosen, per_function, rows=table)
    covered = set().union(*(k.kills | k.reaches for k in core)) if core else set()
    rest = [k for k in chosen if k not in core]
    extra: list[Kept] = []
    while True:
        rest = [k for k in rest if k.reaches - covered]
        if not rest:
            break
        best = max(rest, key=lambda k: (len(k.reaches - covered), -k.size))
        extra.append(best)
        covered |= best.reaches
        rest.remove(best)
    return prune([*core, *extra])


def _names(chosen: list[Kept]) -> list[str]:
    return list(dict.fromkeys(k.function for k in chosen))
