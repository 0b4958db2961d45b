"""From mutants to jobs: compile each one in memory, settle what needs no run, pick how the
rest runs.

Settled here, without a run: CompileError, Ignored (same bytecode as the original or an earlier
mutant), NoCoverage; the plan says so, and the pool reports them as it draws them. The rest become
jobs, with the tests to run:
- `patch` (swap `__code__`): a line inside a function that only tests run;
- `defaults` (set `__defaults__`): a literal default value of a function (see `defaults`);
- `rebind` (re-run the module body): a line run by the module's own import;
- `recollect` (patch, then import and collect again the test modules that called it while imported):
  a function line that ran during collection for test modules only, when what it computed can only
  sit in those modules (see `recollect`);
- `reimport` (a fresh import and collection in the child): other lines that ran during collection on
  behalf of another module, a module-level line of a target whose namespace collection changed after
  its import (re-running the body would drop those changes), or a function no live object can take.
Module state: when a test that runs the mutated line wrote module globals in the baseline (a cache,
a registry), every test that may read them runs too, with the earlier writers they read from; the
writers run first, in collection order: the cache holds what the mutant computed for all of them, as
in a fresh process (children fork from the state before the baseline).
"""

from __future__ import annotations
import __future__

import hashlib
import os
import types
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..protocol import MutantSpec, MutationJob
from .budget import Cut, within
from .bytecode import compile_units, fingerprint
from .defaults import defaults_patch
from .enough import Enough
from .entries import beyond_entries
from .patch import function_of, patches
from .protocol import (
    EARLY_STOP,
    NOT_SAMPLED,
    OVER_BUDGET,
    PROOF_LIMIT,
    SET_ASIDE,
    Mode,
    Status,
    Verdict,
)
from .shapes import Functions
from .state_reach import with_state

if TYPE_CHECKING:
    from .baseline_record import Baseline
    from .memo import Memos
    from .readers import Readers
    from .tracers import CollectTracer

FUTURE_FLAGS = 0
for _feature in __future__.all_feature_names:
    FUTURE_FLAGS |= getattr(__future__, _feature).compiler_flag


@dataclass(frozen=True)
class Job:
    """A mutant to run in a child, and how."""

    m: MutantSpec
    ordered: list[str]  # tests to run
    # the mutated module (or its top-level def alone, for a mutant that patches)
    code: types.CodeType
    patches: list | None
    mode: Mode
    # the first `first` tests of `ordered` write module state: they run first, in collection order
    first: int
    files: tuple = ()  # recollect: the test modules to import and collect again
    # why it does not count (not in the sample, or not needed, `enough`): it runs only to prove
    # the tests in `ordered` that have not killed yet; its verdict is Ignored with this reason,
    # whatever they find; empty: it counts
    proof: str = ""


@dataclass(frozen=True)
class Settled:
    """A mutant whose verdict needs no run."""

    m: MutantSpec
    verdict: Verdict


@dataclass(frozen=True)
class Plan:
    """Each mutant in scope, in the job's order, as a job or a settled verdict, and the original
    module code. `steps` are made one at a time: compiling a mutant costs about as much as a fast
    mutant's run, so the pool draws the next one while its children run."""

    steps: Iterator[Job | Settled]
    original_code: dict[str, types.CodeType]
    # the ids that count for the score, in the sample's order (None: every eligible mutant)
    sampled: list[str] | None = None
    cut: Cut | None = None  # the time budget shrank the sample (`budget`)


def plan(
    cfg: MutationJob,
    baseline: Baseline,
    collect: CollectTracer,
    dirty: dict[str, set[str]],
    readers: Readers,
    functions: Functions,
    memos: Memos | None = None,
    recollect: dict[str, list[tuple[str, types.CodeType | None]]] | None = None,
    proven: set[str] | None = None,
    enough: Enough | None = None,
    collection_s: float = 0.0,
) -> Plan:
    """The plan of the job's mutants: which ones run, how and against which tests; the
    others' verdicts. `collection_s`: the worker's collection, part of the file's own run that
    the time budget (`cfg.budget`, `budget`) is a multiple of."""
    covering, duration, scope = baseline.covering, baseline.duration, baseline.scope
    all_ids = baseline.tests
    recollect = recollect or {}
    sources: dict[str, str] = {}
    original_code: dict[str, types.CodeType] = {}
    # bytecode fingerprint -> the first mutant with it (None: original)
    originals: dict[str, str | None] = {}
    for rel, path in cfg.targets.items():
        with open(path, encoding="utf-8") as fh:
            sources[rel] = fh.read()
        original_code[rel] = compile(
            sources[rel], os.path.realpath(path), "exec", dont_inherit=True
        )
        originals[fingerprint(original_code[rel])] = None
    units = {rel: [] if "\r" in text else compile_units(text) for rel, text in sources.items()}
    spans_seen: set[str] = set()

    def compiled(m: MutantSpec, mutated: str, alone: bool) -> tuple[types.CodeType, str, bool]:
        """The mutant's code, a key for its fingerprint, and whether the code is the whole module.
        `alone`: the innermost def holding it that compiles by itself (`compile_units`), at its
        own lines (a 1000-line module takes 2-4 ms to compile, one def 0.05 ms; the pool compiles
        the next mutant while the children run, on their cores), else the module."""
        rel, path = m.file, os.path.realpath(cfg.targets[m.file])
        for start, end, first, header in units[rel] if alone else ():
            if start <= m.start and m.end <= end:
                flags, pad, key = (
                    original_code[rel].co_flags & FUTURE_FLAGS,
                    "\n" * (first - 1 - header.count("\n")) + header,
                    f"{rel}:{start}:",
                )
                if key not in spans_seen:  # the original statement's own fingerprint, once
                    spans_seen.add(key)
                    before = compile(
                        pad + sources[rel][start:end], path, "exec", flags=flags, dont_inherit=True
                    )
                    originals[key + fingerprint(before)] = None
                stop = end + len(m.replacement) - (m.end - m.start)
                code = compile(
                    pad + mutated[start:stop], path, "exec", flags=flags, dont_inherit=True
                )
                return code, key + fingerprint(code), False
        code = compile(mutated, path, "exec", dont_inherit=True)
        return code, fingerprint(code), True

    def in_scope(m: MutantSpec) -> bool:
        return scope is None or m.function in scope.get(m.file, ())

    def reached(m: MutantSpec) -> bool:
        span = {*range(m.line, m.end_line + 1), m.stmt_line}
        return any(covering.get((m.file, line)) or (m.file, line) in collect.lines for line in span)

    beyond = _beyond(cfg, scope, sources, [m for m in cfg.mutants if in_scope(m) and reached(m)])
    eligible = [m for m in cfg.mutants if in_scope(m) and reached(m) and m.file not in beyond]

    def direct_of(m: MutantSpec) -> set[str]:
        span = {*range(m.line, m.end_line + 1), m.stmt_line}
        return {i for line in span for i in covering.get((m.file, line), ())}

    chosen = sample(eligible, cfg.sample)
    cut, dropped = None, set()
    if cfg.budget:  # a prefix of the sample when its survivors would cost too much (`budget`)
        by_id = {m.id: m for m in eligible}

        def cost(i: str) -> float:
            """A sampled mutant's test seconds as a survivor: every test that may run it."""
            m = by_id[i]
            span = {*range(m.line, m.end_line + 1), m.stmt_line}
            anew = any((m.file, x) in collect.lines or (m.file, x) in collect.foreign for x in span)
            return sum(duration[t] for t in (all_ids if anew else direct_of(m)))

        plain_s = collection_s + sum(duration[t] for t in all_ids)
        planned = drawn(eligible) if chosen is None else chosen
        kept, cut = within(planned, cost, cfg.budget, plain_s)
        if cut is not None:  # the rest run only to prove tests, as those out of the sample
            chosen, dropped = kept, set(planned) - set(kept)
    proven = set() if proven is None else proven
    # mutants run only to prove tests (out of the sample, past the early stop): at most
    # `cfg.prove` for each test function; one still unproven then is not judged (`attribution`)
    tries: dict[str, int] = {}
    exhausted: set[str] = set()

    def proving(rest: list[MutantSpec]) -> Iterator[Job | Settled]:
        """The mutants out of the sample, those a test left to prove runs directly first (tests
        that may only read state it leaves come after): prettytable's `_str_block_width` test ran
        on 115 mutants it reached through module state, in file order, before the limit
        (`prove`) and before its own function's one. One pass: `proven` and `exhausted` only
        grow, so a mutant with no such test when its turn comes never has one later."""
        later = []
        for m in rest:
            if {function_of(t) for t in direct_of(m)} - proven - exhausted:
                yield from each([m], OVER_BUDGET if m.id in dropped else NOT_SAMPLED)
            else:
                later.append(m)
        for m in later:
            yield from each([m], OVER_BUDGET if m.id in dropped else NOT_SAMPLED)

    def steps() -> Iterator[Job | Settled]:
        if enough is not None:  # the sample in its own order: what runs is a random subsample
            by_id = {m.id: m for m in cfg.mutants}
            picked = [by_id[i] for i in (drawn(eligible) if chosen is None else chosen)]
            enough.plan(picked)
            for step in each(picked, stop=enough):
                if isinstance(step, Settled):
                    enough.count(step.m, step.verdict)
                yield step
            left = {m.id for m in picked}
            yield from proving([m for m in cfg.mutants if m.id not in left])
            return
        if chosen is None:
            yield from each(cfg.mutants)
            return
        taken = set(chosen)
        yield from each(m for m in cfg.mutants if m.id in taken)
        # the rest, once the sample has run: only for the tests that have not killed yet
        yield from proving([m for m in cfg.mutants if m.id not in taken])

    def each(
        mutants: Iterable[MutantSpec], proof: str = "", stop: Enough | None = None
    ) -> Iterator[Job | Settled]:
        for m in mutants:
            rel = m.file
            why = EARLY_STOP if stop is not None and stop.certain(rel) else proof
            if not in_scope(m):
                continue
            if rel in beyond:
                yield Settled(m, Verdict(Status.IGNORED, reason=SET_ASIDE))
                continue
            span = {*range(m.line, m.end_line + 1), m.stmt_line}
            direct = direct_of(m)
            at_import = any((rel, line) in collect.lines for line in span)
            foreign = any((rel, line) in collect.foreign for line in span)
            text = sources[rel]
            defaulted = None
            if m.operator == "default_argument" and not foreign and rel not in dirty:
                mutated = text[: m.start] + m.replacement + text[m.end :]
                defaulted = defaults_patch(cfg, m, text, mutated, functions, collect)
            # only calls of the function see it: the tests that ran its body
            if defaulted is not None:
                ids = {i for line in defaulted[1] for i in covering.get((rel, line), ())}
                direct = set(ids)
            else:
                ids = set(all_ids) if at_import or foreign else set(direct)
            path = os.path.realpath(cfg.targets[rel])
            inert = (
                None
                if memos is None
                else (lambda key, name, m=m, path=path: memos.inert(key, name, path, m))
            )
            # the lines whose change reaches the tests: the function body, for a default value
            changed = (
                {(rel, line) for line in defaulted[1]}
                if defaulted is not None
                else {(rel, line) for line in span}
            )
            ids, in_order = with_state(ids, direct, baseline, readers, inert, changed)
            writers = (
                sorted((i for i in ids if i in baseline.writes), key=baseline.position.__getitem__)
                if in_order
                else []
            )
            ordered = writers + sorted(
                (i for i in ids if i not in baseline.writes or not in_order),
                key=lambda i: duration[i],
            )
            # the tests to prove: those after the writers, and writers that run the mutated line
            # (a writer still to kill is one to prove like any other test)
            judged = ordered[len(writers) :] + [t for t in writers if t in direct]
            if why and ordered and not any(function_of(t) not in proven for t in judged):
                # out of the sample (or past the early stop) and no test left to prove: not even
                # compiled - idna's data tables put 22,000 such mutants in one file's scope
                yield Settled(m, Verdict(Status.IGNORED, ordered, reason=why))
                continue
            mutated = text[: m.start] + m.replacement + text[m.end :]
            # the statement alone serves a mutant that patches live functions; one that re-runs the
            # module body or re-imports it needs the module
            alone = defaulted is None and not at_import and (not foreign or rel in recollect)
            try:
                code, fp, whole = compiled(m, mutated, alone)
            except (SyntaxError, ValueError) as err:
                yield Settled(m, Verdict(Status.COMPILE_ERROR, ordered, reason=str(err)))
                continue
            if fp in originals:
                twin = originals[fp]
                yield Settled(
                    m,
                    Verdict(
                        Status.IGNORED,
                        ordered,
                        reason=f"duplicate of {twin}"
                        if twin
                        else "equivalent: same bytecode as the original",
                    ),
                )
                continue
            originals[fp] = m.id
            if not ordered:
                yield Settled(m, Verdict(Status.NO_COVERAGE))
                continue
            if why and not any(function_of(t) not in proven for t in judged):
                yield Settled(m, Verdict(Status.IGNORED, ordered, reason=why))
                continue
            if why:
                fresh = {function_of(t) for t in judged} - proven - exhausted
                if not fresh:  # each test left to prove has had its proving runs
                    yield Settled(m, Verdict(Status.IGNORED, ordered, reason=PROOF_LIMIT))
                    continue
                # a try counts whole for a test that runs the mutated line itself, a fifth for one
                # that may read state it leaves (it rides along on every mutant of the module)
                own = {function_of(t) for t in direct}
                for f in fresh:
                    tries[f] = tries.get(f, 0) + (5 if f in own else 1)
                    if cfg.prove and tries[f] >= 5 * cfg.prove:
                        exhausted.add(f)
            found: Any
            files: tuple = ()
            if defaulted is not None:
                found, mode = defaulted[0], Mode.DEFAULTS
            elif (
                foreign
                and not at_import
                and rel in recollect
                and (found := patches(cfg, m, code, functions)) is not None
            ):
                mode, files = Mode.RECOLLECT, tuple(recollect[rel])
            elif foreign or (at_import and rel in dirty):
                found, mode = None, Mode.REIMPORT
            elif at_import:
                found, mode = None, Mode.REBIND
            else:
                found = patches(cfg, m, code, functions)
                mode = Mode.PATCH if found is not None else Mode.REIMPORT
            if mode in (Mode.REBIND, Mode.REIMPORT) and not whole:
                code = compile(
                    mutated, os.path.realpath(cfg.targets[rel]), "exec", dont_inherit=True
                )
            yield Job(m, ordered, code, found, mode, len(writers), files, why)

    return Plan(steps(), original_code, chosen, cut)


def _beyond(
    cfg: MutationJob,
    scope: dict[str, set[str]] | None,
    sources: dict[str, str],
    eligible: list[MutantSpec],
) -> set[str]:
    """The modules whose mutants are set aside unrun (`cfg.entered`): those holding no entry
    point, when the entry modules have a mutant to run (a file is never accountable for
    nothing; the parent decides the same from the same facts)."""
    if not cfg.entered or not scope:
        return set()
    # the modules the tests reached, as the parent has them (`gates.reach.reached`)
    _, beyond = beyond_entries(
        {rel: sorted(names) for rel, names in scope.items()},
        {rel: text for rel, text in sources.items() if scope.get(rel)},
    )
    return set(beyond) if any(m.file not in beyond for m in eligible) else set()


def sample(pool: list[MutantSpec], size: int) -> list[str] | None:
    """The ids of at most `size` of `pool` (the eligible mutants: in scope, on a line the tests
    run), in the order drawn, or None for all when there are no more than that. One per line first,
    then a second per line, and so on (a line's mutants are alike: most die together); lines and
    mutants in an order fixed by their ids, so the same code gives the same sample in every run and
    on every machine, and each prefix of it is a sample too (`enough`)."""
    if not size or len(pool) <= size:
        return None
    return drawn(pool)[:size]


def drawn(pool: list[MutantSpec]) -> list[str]:
    """The ids of all of `pool` in the order `sample` draws them."""

    def key(m: MutantSpec) -> str:
        return hashlib.blake2b(m.id.encode(), digest_size=8).hexdigest()

    lines: dict[tuple[str, int], list[MutantSpec]] = {}
    for m in sorted(pool, key=key):
        lines.setdefault((m.file, m.stmt_line or m.line), []).append(m)
    rounds = sorted(lines.values(), key=lambda ms: key(ms[0]))
    chosen: list[str] = []
    depth = 0
    while len(chosen) < len(pool):
        chosen += [ms[depth].id for ms in rounds if depth < len(ms)]
        depth += 1
    return chosen
