"""`assay prism build TASK --faulty-from-mutants N`: faulty members made from mutants of the
reference's change.

Mutants come from gate 4's engine for Python (`mutation.mutants`) and from a minimal text operator
set otherwise, on the lines the reference adds (or, when it only deletes, inside the functions it
changes). A spread sample of them (different lines and operators first) runs against the
validator; only mutants it kills are kept, and the N written are chosen diverse first: one per
distinct set of failing validator tests (sets that fewer tests fail come first), then a second one
per set, and so on. Each is written as `faulty/mutant-<k>.patch` against original/ (a full tree
when the reference changes binary files) and the task is loaded again afterwards, so the new
members are known to apply.
"""

from __future__ import annotations

import shutil
from collections.abc import Sequence
from concurrent.futures import Executor
from dataclasses import dataclass

from assay.config import Settings
from assay.errors import InputError, RunFailed
from assay.mutation.model import Mutant
from assay.mutation.mutants import apply, generate
from assay.prism import pycov, textmut
from assay.prism.evaluate import usable
from assay.prism.matrix import EventSink, make_unit, run_units
from assay.prism.model import BuildReport, BuiltMember
from assay.prism.patch import changed_lines, unified
from assay.prism.task import Member, Task, load_suite, load_task
from assay.store import Store

MIN_CANDIDATES = 12


@dataclass
class Candidate:
    mutant: Mutant
    member: Member


def _mutants(task: Task) -> list[Mutant]:
    assert task.reference is not None
    found: list[Mutant] = []
    for rel in sorted(task.reference.overlays):
        new = task.text_of(task.reference, rel)
        if new is None:
            continue
        added, removed = changed_lines(task.original_text(rel) or "", new)
        if rel.endswith(".py"):
            every = generate(rel, new)
            chosen = [m for m in every if added & set(range(m.line, m.end_line + 1))]
            if not chosen and removed:
                spans = {
                    q: (n.lineno, n.end_lineno or n.lineno) for q, n in pycov.defs(new).items()
                }
                names = pycov.innermost(pycov.defs(task.original_text(rel) or ""), removed) & set(
                    spans
                )
                chosen = [
                    m for m in every if any(spans[q][0] <= m.line <= spans[q][1] for q in names)
                ]
            found += chosen
        else:
            found += textmut.mutants(rel, new, added)
    return found


def _spread(mutants: Sequence[Mutant], limit: int) -> list[Mutant]:
    """Up to `limit` mutants, taking one per (file, line) before a second one, operators varied."""
    groups: dict[tuple[str, int], list[Mutant]] = {}
    for m in mutants:
        groups.setdefault((m.file, m.line), []).append(m)
    picked: list[Mutant] = []
    depth = 0
    while len(picked) < limit and any(len(g) > depth for g in groups.values()):
        picked += [g[depth] for g in groups.values() if len(g) > depth][: limit - len(picked)]
        depth += 1
    return picked


def candidates(task: Task, limit: int) -> list[Candidate]:
    assert task.reference is not None
    existing = {m.digest for m in [task.reference, *task.correct, *task.faulty]}
    out: list[Candidate] = []
    seen: set[str] = set()
    for m in _spread(_mutants(task), limit * 3):
        text = task.text_of(task.reference, m.file) or ""
        member = Member(
            "faulty",
            "candidate",
            task.reference.source,
            {**task.reference.overlays, m.file: apply(text, m).encode("utf-8")},
        )
        if member.digest in existing or member.digest in seen:
            continue
        seen.add(member.digest)
        out.append(Candidate(m, member))
        if len(out) >= limit:
            break
    return out


def diverse(
    killed: Sequence[tuple[Candidate, frozenset[str]]], n: int
) -> list[tuple[Candidate, frozenset[str]]]:
    """N of the killed, one per distinct failing-test set first; sets failed by fewer tests
    first (the subtle mutants, which tell a thorough suite from a thin one), then in order
    of appearance."""
    groups: dict[frozenset[str], list[tuple[Candidate, frozenset[str]]]] = {}
    for item in killed:
        groups.setdefault(item[1], []).append(item)
    ordered = sorted(groups.values(), key=lambda g: len(g[0][1]))
    picked: list[tuple[Candidate, frozenset[str]]] = []
    depth = 0
    while len(picked) < n and any(len(g) > depth for g in ordered):
        picked += [g[depth] for g in ordered if len(g) > depth][: n - len(picked)]
        depth += 1
    return picked


def _write(task: Task, member: Member, name: str) -> str:
    """Write a member as `faulty/<name>.patch` (or a full tree); returns the path
    written, task-relative."""
    base = task.dir / "faulty"
    texts = {rel: task.text_of(member, rel) for rel in member.overlays}
    if all(t is not None or member.overlays[rel] is None for rel, t in texts.items()):
        diff = "".join(
            unified(rel, task.original_text(rel), texts[rel]) for rel in sorted(member.overlays)
        )
        (base / f"{name}.patch").write_text(diff, encoding="utf-8")
        return f"faulty/{name}.patch"
    tree = base / name
    shutil.copytree(task.original, tree)
    for rel, data in member.overlays.items():
        if data is None:
            (tree / rel).unlink(missing_ok=True)
        else:
            (tree / rel).parent.mkdir(parents=True, exist_ok=True)
            (tree / rel).write_bytes(data)
    return f"faulty/{name}"


def build_faulty(
    task: Task,
    n: int,
    settings: Settings,
    executor: Executor,
    store: Store | None,
    on_event: EventSink | None = None,
    reuse: bool = True,
    limit: int | None = None,
) -> BuildReport:
    if n < 1:
        raise InputError("--faulty-from-mutants must be at least 1")
    result, command = usable(task, settings, {})
    if command is None:
        raise (
            InputError(f"{task.dir}: {result.reason}")
            if result.status == "invalid"
            else RunFailed(result.reason)
        )
    if task.validator is None:
        raise InputError(
            f"{task.id}: building faulty members needs a validator (validator/ or 'validator' in "
            "task.toml) to tell which mutants are faulty"
        )
    assert task.reference is not None
    suite = load_suite(task.validator)
    baseline = make_unit(task, task.reference, suite, command, settings, reuse=reuse)
    records, stats = run_units([baseline], executor, store, on_event)
    base = records[baseline.key]
    if "error" in base or not base.get("accepted"):
        raise RunFailed(
            f"{task.id}: the validator does not pass on the reference "
            f"({base.get('error') or base.get('reason')}); fix the task first (assay prism check)"
        )
    found = candidates(task, limit or max(4 * n, MIN_CANDIDATES))
    timeout = min(task.timeout_s, max(10.0, 10 * float(base.get("duration_s", 1.0))))
    units = [
        make_unit(task, c.member, suite, command, settings, reuse=reuse, timeout_s=timeout)
        for c in found
    ]
    records, more = run_units(units, executor, store, on_event)
    killed = []
    for c, u in zip(found, units, strict=True):
        rec = records[u.key]
        if "error" in rec or rec.get("accepted"):
            continue
        failing = frozenset(
            t for t, o in rec.get("tests", {}).items() if o in ("failed", "error", "timeout")
        )
        killed.append((c, failing or frozenset({rec.get("reason", "rejected")})))
    taken = {p.stem if p.suffix == ".patch" else p.name for p in (task.dir / "faulty").iterdir()}
    added: list[BuiltMember] = []
    k = 1
    for c, failing in diverse(killed, n):
        while f"mutant-{k}" in taken:
            k += 1
        name = f"mutant-{k}"
        taken.add(name)
        path = _write(task, c.member, name)
        m = c.mutant
        added.append(
            BuiltMember(name, path, m.file, m.line, m.operator, m.before, m.after, sorted(failing))
        )
    reloaded = load_task(task.dir)
    if reloaded.problem:
        raise RunFailed(
            f"{task.id}: the task no longer loads after writing mutants: {reloaded.problem}"
        )
    runs = {key: stats[key] + more[key] for key in stats}
    return BuildReport(task.id, n, added, candidates=len(found), killed=len(killed), runs=runs)
