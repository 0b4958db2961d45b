"""The kept inputs under each mutant of the module: which input's outcome the mutant changes
(kills it).

Each mutant is compiled in memory (never written); equivalent and duplicate mutants (same bytecode
as the original or an earlier mutant) are settled without a run. A mutant inside a function runs in
a forked child that swaps `__code__` of the live function objects of its enclosing defs, as the
mutation worker does; a mutant of module-level code re-runs the mutated module body in the live
module. The child then runs every kept input that executes the mutant's lines (every input, for
module-level code), evaluated afresh after the mutant is in place.
"""

from __future__ import annotations

import ast
import os
import re
import time
import types
from typing import TYPE_CHECKING

from ..fork import RETRY_FACTOR, fork, watch
from ..mutation.bytecode import (
    code_lines,
    code_tree,
    find_code,
    fingerprint,
    is_function_code,
    names_read,
)
from ..mutation.patch import function_index
from .calls import Namespaces, child_setup, differs, prepare, run_call, setup

if TYPE_CHECKING:
    from collections.abc import Callable

    from ..protocol import MutantSpec

MAX_KILLERS = 12  # killing inputs sought per mutant: enough for the set cover to choose among


class Planner:
    """Compiles a mutant when it is about to run, and settles the ones no run is needed for
    (compile_error, equivalent, duplicate). Compiling every mutant first took seconds of a busy
    machine's budget before any of them ran."""

    def __init__(self, text: str, path: str):
        self.text, self.path = text, path
        original = compile(text, path, "exec", dont_inherit=True)
        # fingerprint -> first mutant (None: original)
        self.seen: dict[str, str | None] = {fingerprint(original): None}

    def __call__(self, m: MutantSpec) -> tuple[types.CodeType | None, str | None]:
        """(code to run, None) or (None, settled status)."""
        try:
            code = compile(
                self.text[: m.start] + m.replacement + self.text[m.end :],
                self.path,
                "exec",
                dont_inherit=True,
            )
        except (SyntaxError, ValueError):
            return None, "compile_error"
        fp = fingerprint(code)
        if fp in self.seen:
            return None, "equivalent" if self.seen[fp] is None else "duplicate"
        self.seen[fp] = m.id
        return code, None


class Observers:
    """Which lines a call must run to observe a change of code that runs at import time: the
    statement itself (a def's defaults, a class body) and every function that reads a module-level
    name the statement binds or
    - through a function of the module it calls, such as a registry filled at import - changes."""

    def __init__(self, text: str, path: str):
        self.statements: list[ast.stmt] = []
        self.functions: list[tuple[set[str], set[int]]] = []
        # top-level def -> module-level names it reads (and may change)
        self.changes: dict[str, set[str]] = {}
        try:
            tree = ast.parse(text)
        except SyntaxError:
            return
        for node in tree.body:
            self.statements.append(node)
            if isinstance(node, ast.ClassDef):
                self.statements += node.body
        module_names = set().union(*(_bound(s) for s in tree.body)) if tree.body else set()
        code = compile(text, path, "exec", dont_inherit=True)
        tops = {c.co_name: c for c in code.co_consts if isinstance(c, types.CodeType)}
        self.changes = {name: names_read(c) & module_names for name, c in tops.items()}
        self.functions = [
            (names_read(c, nested=False), code_lines(c))
            for c in code_tree(code)
            if is_function_code(c)
        ]

    def lines(self, line: int) -> set[int] | None:
        """None when the statement cannot be found (then every input may observe it)."""
        around = [s for s in self.statements if s.lineno <= line <= (s.end_lineno or s.lineno)]
        if not around:
            return None
        node = max(around, key=lambda s: s.lineno)
        names = set(_bound(node))
        for name in list(names) + [
            c.func.id
            for c in ast.walk(node)
            if isinstance(c, ast.Call) and isinstance(c.func, ast.Name)
        ]:
            names |= self.changes.get(name, set())
        out = set(range(node.lineno, (node.end_lineno or node.lineno) + 1))
        for read, lines in self.functions:
            if names & read:
                out |= lines
        return out


def _bound(node: ast.stmt) -> set[str]:
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return {node.name}
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        return {(a.asname or a.name).split(".")[0] for a in node.names}
    targets = node.targets if isinstance(node, ast.Assign) else [getattr(node, "target", None)]
    return {
        n.id if isinstance(n, ast.Name) else n.attr
        for t in targets
        if t is not None
        for n in ast.walk(t)
        if isinstance(n, (ast.Name, ast.Attribute))
    }


def spread(
    cases: list[tuple], limit: int, words: set[str] | frozenset[str] = frozenset()
) -> list[tuple]:
    """At most `limit` cases, taken in turn from each function; within a function, the inputs that
    mention a word of the mutated line first (a table row is reached by the input that names it),
    else in their own order."""
    by_fn: dict[str, list[tuple]] = {}
    if words:
        cases = sorted(cases, key=lambda c: not any(w in repr(c[2].get("args")) for w in words))
    for c in cases:
        by_fn.setdefault(c[1]["name"], []).append(c)
    out: list[tuple] = []
    queues = list(by_fn.values())
    while queues and len(out) < limit:
        for q in list(queues):
            if q and len(out) < limit:
                out.append(q.pop(0))
            if not q:
                queues.remove(q)
    return [c[:5] for c in out]


def first_things_first(
    todo: list[tuple], targets: list[str], cases_for: Callable[[MutantSpec], tuple[list, bool]]
) -> list[tuple]:
    """The order mutants run in: the targets' own mutants first, taken in turn from each target
    (within one, the cheapest first), then the other defs' (helpers), then module-level code. A
    test is kept for killing its target's mutants: run by fewest cases alone, a large module spent
    the probe's time on helpers and module code, and most targets had no mutant run."""
    own: dict[str, list[tuple]] = {}
    rest: list[tuple] = []
    wanted = set(targets)
    for mc in todo:
        fn = mc[0].function.split(".<locals>.")[0]
        if mc[0].chain and fn in wanted:
            own.setdefault(fn, []).append(mc)
        else:
            rest.append(mc)
    # counting the cases of module-level mutants costs seconds on a large module: they go last
    cost = {mc[0].id: len(cases_for(mc[0])[0]) if mc[0].chain else 0 for mc in todo}
    queues = [sorted(q, key=lambda mc: cost[mc[0].id]) for q in own.values()]
    out: list[tuple] = []
    while queues:
        for q in list(queues):
            out.append(q.pop(0))
            if not q:
                queues.remove(q)
    return out + sorted(rest, key=lambda mc: (not mc[0].chain, cost[mc[0].id]))


def words_of(text: str) -> set[str]:
    """The words (three letters or more) of a line of code: what an input that reaches it
    may contain."""
    return {w.lower() for w in re.findall(r"[A-Za-z]{3,}", text)} - {
        "lambda",
        "return",
        "self",
        "none",
        "true",
        "false",
        "not",
        "and",
    }


def apply(
    m: MutantSpec, code: types.CodeType, module: types.ModuleType, path: str, reexec: bool
) -> None:
    """Put the mutant in place in this (child) process: swap the code of its defs, or (`reexec`) run
    the mutated module body again in the live module."""
    if m.chain and not reexec:
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
    # module-level code (or no live def to patch): re-run the body
    exec(code, module.__dict__)  # noqa: S102


def _child(
    m: MutantSpec,
    code: types.CodeType,
    module: types.ModuleType,
    path: str,
    cases: list[tuple],
    reexec: bool,
    imports: list[str],
    memory_mb: int,
    killers: int = MAX_KILLERS,
) -> dict:
    """In the child: apply the mutant, then each case (input id, function, input,
    expected, seconds); it stops at `killers` killing cases (0: runs them all)."""
    child_setup(memory_mb)
    try:
        apply(m, code, module, path, reexec)
    # the mutated module does not even load: every test of it fails
    except BaseException:  # noqa: BLE001
        return {"killed": [c[0] for c in cases]}
    spaces = Namespaces(imports)
    killed = []
    for case_id, fn, inp, expected, timeout in cases:
        ns = spaces.get((*setup(inp), *expected.get("imports", [])))
        try:
            receiver, call, args = prepare(module, fn, inp, ns)
        # the input no longer builds under this mutant: the test fails
        except BaseException:  # noqa: BLE001
            killed.append(case_id)
            continue
        if differs(expected, run_call(call, timeout), receiver, ns, args):
            killed.append(case_id)
            if killers and len(killed) >= killers:
                break
    return {"killed": killed}


def run(
    todo: list[tuple],
    cases_for: Callable[[MutantSpec], tuple[list[tuple], bool]],
    module: types.ModuleType,
    path: str,
    imports: list[str],
    workers: int,
    memory_mb: int,
    deadline: float | Callable[[], float],
    planner: Planner | None = None,
    killers: int = MAX_KILLERS,
    slack: float = 1.0,
) -> tuple[dict[str, list[str]], dict[str, str]]:
    """Run mutants in forked children, `workers` at a time, until done or the deadline (a
    `time.monotonic()` moment, or a function that gives it anew as each child ends: a budget
    counted in the CPU the children got).

    `cases_for(m)` gives the cases a mutant may change (with their call timeouts) and whether the
    module body must run again. Returns ({mutant id: killing input ids}, {mutant id: status}) where
    status is run | timeout | crash | not_run | no_coverage; a mutant whose code is None is
    compiled by `planner` when its turn comes (and may settle then); `killers`: killing cases
    sought per mutant (0: all); `slack`: seconds a child gets beyond its cases' own time (the
    machine's slowdown, `pace`: starting a child takes longer on a busy machine)."""
    kills: dict[str, list[str]] = {}
    status: dict[str, str] = {}
    pending = list(reversed(todo))
    running: dict[int, tuple] = {}  # pid -> (mutant, child, deadline, mutated code)
    # timed out once: a busy machine, or a real hang (the second try has more time)
    retried: set[str] = set()
    due = deadline if callable(deadline) else (lambda: deadline)
    while pending or running:
        end = due()
        while pending and len(running) < max(1, workers) and time.monotonic() < end:
            m, code = pending.pop()
            if code is None and planner is not None:
                code, settled = planner(m)
                if settled:
                    status[m.id] = settled
                    continue
            cases, reexec = cases_for(m)
            if not cases:
                status[m.id] = "no_coverage"
                continue
            limit = (sum(c[4] for c in cases) + slack) * (RETRY_FACTOR if m.id in retried else 1.0)
            limit = min(limit, max(0.5 * slack, end - time.monotonic()))
            child = fork(
                lambda report, m=m, c=code, cs=cases, x=reexec: _child(
                    m, c, module, path, cs, x, imports, memory_mb, killers
                )
            )
            running[child.pid] = (m, child, time.monotonic() + limit, code)
        if not running:
            break
        ended = watch(
            [v[1] for v in running.values()],
            lambda c: running[c.pid][2],
            lambda c, msg: None,
            first_only=True,
        )
        for pid, (state, result) in ended.items():
            m, _, _, code = running.pop(pid)
            if state == "timeout" and m.id not in retried and time.monotonic() < end:
                retried.add(m.id)
                pending.append((m, code))
            elif state == "timeout":
                status[m.id] = "timeout"
            elif "crash" in result:
                status[m.id] = "crash"
            else:
                kills[m.id] = result["result"]["killed"]
                status[m.id] = "run"
    for m, _ in pending:
        status.setdefault(m.id, "not_run")
    return kills, status
