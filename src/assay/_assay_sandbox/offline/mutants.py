"""The kept inputs under each mutant of the module: which input's outcome the mutant changes (kills it).

Each mutant is compiled in memory (never written); equivalent and duplicate mutants (same bytecode as the
original or an earlier mutant) are settled without a run. A mutant inside a function runs in a forked child that
swaps `__code__` of the live function objects of its enclosing defs, as the mutation worker does; a mutant of
module-level code re-runs the mutated module body in the live module. The child then runs every kept input that
executes the mutant's lines (every input, for module-level code), evaluated afresh after the mutant is in place.
"""

from __future__ import annotations

import os
import select
import signal
import time
import types

from ..fork import fork
from ..mutation.code import find_code, fingerprint
from ..mutation.patch import function_index
from .calls import Namespaces, child_setup, differs, prepare, run_call


def plan(job, text: str, path: str) -> tuple[list[tuple], dict[str, str]]:
    """([(mutant, code)] to run, {mutant id: status}) for the settled ones: compile_error, equivalent, duplicate."""
    original = compile(text, path, "exec", dont_inherit=True)
    seen = {fingerprint(original): None}
    todo, settled = [], {}
    for m in job.mutants:
        try:
            code = compile(text[: m.start] + m.replacement + text[m.end:], path, "exec", dont_inherit=True)
        except (SyntaxError, ValueError):
            settled[m.id] = "compile_error"
            continue
        fp = fingerprint(code)
        if fp in seen:
            settled[m.id] = "equivalent" if seen[fp] is None else "duplicate"
            continue
        seen[fp] = m.id
        todo.append((m, code))
    return todo, settled


def apply(m, code: types.CodeType, module, path: str) -> None:
    """Put the mutant in place in this (child) process."""
    if m.chain:
        index = function_index(types.SimpleNamespace(targets={m.file: path}))  # type: ignore[arg-type]
        real = os.path.realpath(path)
        pairs: list[tuple[list, types.CodeType]] = []
        for name, first in m.chain:
            new = find_code(code, name, first)
            funcs = index.get((real, name, first), [])
            if new is None or any(len(new.co_freevars) != len(f.__closure__ or ()) for f in funcs):
                pairs = []
                break
            if funcs:
                pairs.append((funcs, new))
        if pairs:
            for funcs, new in pairs:
                for f in funcs:
                    f.__code__ = new
            return
    exec(code, module.__dict__)  # noqa: S102 - module-level code (or no live def to patch): re-run the body


def _child(m, code, module, path: str, cases: list[tuple], imports: list[str], memory_mb: int) -> dict:
    """In the child: apply the mutant, then each case (input id, function, input, expected, seconds)."""
    child_setup(memory_mb)
    try:
        apply(m, code, module, path)
    except BaseException:  # noqa: BLE001 - the mutated module does not even load: every test of it fails
        return {"killed": [c[0] for c in cases]}
    spaces = Namespaces(imports)
    killed = []
    for case_id, fn, inp, expected, timeout in cases:
        ns = spaces.get(tuple(sorted(set(inp.get("imports", [])) | set(expected.get("imports", [])))))
        try:
            receiver, call = prepare(module, fn, inp, ns)
        except BaseException:  # noqa: BLE001 - the input no longer builds under this mutant: the test fails
            killed.append(case_id)
            continue
        value, exc, _ = run_call(call, timeout)
        if differs(expected, value, exc, receiver, ns):
            killed.append(case_id)
    return {"killed": killed}


def run(todo: list[tuple], cases_for, module, path: str, imports: list[str], workers: int, memory_mb: int,
        deadline: float) -> tuple[dict[str, list[str]], dict[str, str]]:
    """Run mutants in forked children, `workers` at a time, until done or the deadline.

    `cases_for(m)` gives the cases a mutant may change (with their call timeouts). Returns ({mutant id: killing
    input ids}, {mutant id: status}) where status is run | timeout | crash | not_run | no_coverage."""
    kills: dict[str, list[str]] = {}
    status: dict[str, str] = {}
    pending = list(reversed(todo))
    running: dict[int, tuple] = {}
    while pending or running:
        while pending and len(running) < max(1, workers) and time.monotonic() < deadline:
            m, code = pending.pop()
            cases = cases_for(m)
            if not cases:
                status[m.id] = "no_coverage"
                continue
            limit = min(sum(c[4] for c in cases) + 1.0, max(0.5, deadline - time.monotonic()))
            pid, r = fork(lambda m=m, c=code, cs=cases: _child(m, c, module, path, cs, imports, memory_mb))
            running[pid] = (m, r, time.monotonic() + limit, bytearray())
        if not running:
            break
        _step(running, kills, status)
    for m, _ in pending:
        status.setdefault(m.id, "not_run")
    return kills, status


def _step(running: dict[int, tuple], kills: dict, status: dict) -> None:
    """Read what the children wrote; reap those that finished or passed their deadline."""
    import json

    now = time.monotonic()
    nearest = min(d for _, _, d, _ in running.values())
    fds = {r: pid for pid, (_, r, _, _) in running.items()}
    ready, _, _ = select.select(list(fds), [], [], max(0.0, min(nearest - now, 0.5)))
    for r in ready:
        pid = fds[r]
        m, _, _, buf = running[pid]
        chunk = os.read(r, 1 << 16)
        if chunk:
            buf.extend(chunk)
            continue
        os.close(r)
        os.waitpid(pid, 0)
        del running[pid]
        try:
            result = json.loads(bytes(buf)) if buf else {"crash": "no result"}
        except ValueError:
            result = {"crash": "unreadable result"}
        if "crash" in result:
            status[m.id] = "crash"
        else:
            kills[m.id] = result["killed"]
            status[m.id] = "run"
    now = time.monotonic()
    for pid, (m, r, deadline, _) in list(running.items()):
        if now >= deadline:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            os.close(r)
            del running[pid]
            status[m.id] = "timeout"
