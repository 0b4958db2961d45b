"""Tests that time the code they test: a failed assertion of such a test at gate 2 is no evidence
against it, as a busy machine makes every measured duration longer. jsonpath-ng 1.17's
`test_definition_failure_time_is_linear_to_length` (`timeit.repeat` of a parse of a text and of
one 4x as long, `assert ratio < 8`) was "rejected at green: fix expected values" at load 29 on 2
cores, where it reads how fast the machine is, not what the code computes."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator

# the clocks a duration is measured with (module `time`); one call is a timestamp, two a duration
CLOCKS = frozenset(
    {
        "perf_counter",
        "perf_counter_ns",
        "monotonic",
        "monotonic_ns",
        "process_time",
        "process_time_ns",
        "thread_time",
        "thread_time_ns",
        "time",
        "time_ns",
    }
)
_ASSERTION = re.compile(r"^(E\s+)?(assert |AssertionError\b)", re.M)


def timing_tests(source: str) -> dict[str, str]:
    """Test function (`test_x`, `Class.test_x`) -> how it measures durations, for each test of
    the file that measures them itself or through a function of the file it calls."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return {}
    timeit_names, time_names, clock_names = _imports(tree)
    direct: dict[str, str] = {}
    calls: dict[str, set[str]] = {}
    for qual, owner, func in _functions(tree):
        clocks = 0
        calls[qual] = set()
        for node in ast.walk(func):
            if not isinstance(node, ast.Call):
                continue
            f = node.func
            if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name):
                if f.value.id in timeit_names:
                    direct.setdefault(qual, f"{f.value.id}.{f.attr}")
                elif f.value.id in time_names and f.attr in CLOCKS:
                    clocks += 1
                elif f.value.id == "self" and owner:
                    calls[qual].add(f"{owner}.{f.attr}")
            elif isinstance(f, ast.Name):
                if f.id in timeit_names:
                    direct.setdefault(qual, f"timeit.{f.id}")
                elif f.id in clock_names:
                    clocks += 1
                else:
                    calls[qual].add(f.id)
        if clocks >= 2 and qual not in direct:
            direct[qual] = "two readings of a clock"
    timed = dict(direct)
    changed = True
    while changed:  # through the file's functions it calls, to any depth
        changed = False
        for qual, callees in calls.items():
            if qual not in timed and (via := next((c for c in callees if c in timed), None)):
                timed[qual] = timed[via]
                changed = True
    return {q: how for q, how in timed.items() if q.rpartition(".")[2].startswith("test")}


def timed_failure(nodeid: str, message: str, timed: dict[str, str]) -> str | None:
    """How the failed test measures durations, when its failure is an assertion and it does."""
    if not timed or not _ASSERTION.search(message):
        return None
    qual = ".".join(nodeid.split("::")[1:]).split("[", 1)[0]
    return timed.get(qual)


def _imports(tree: ast.Module) -> tuple[set[str], set[str], set[str]]:
    """Names the `timeit` module or its functions go by, names of the `time` module, and its
    clocks imported by name."""
    timeit_names: set[str] = set()
    time_names: set[str] = set()
    clock_names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                if a.name == "timeit":
                    timeit_names.add(a.asname or a.name)
                elif a.name == "time":
                    time_names.add(a.asname or a.name)
        elif isinstance(node, ast.ImportFrom) and node.module in ("timeit", "time"):
            for a in node.names:
                if node.module == "timeit":
                    timeit_names.add(a.asname or a.name)
                elif a.name in CLOCKS:
                    clock_names.add(a.asname or a.name)
    return timeit_names, time_names, clock_names


def _functions(
    tree: ast.Module,
) -> Iterator[tuple[str, str, ast.FunctionDef | ast.AsyncFunctionDef]]:
    """(qualified name, class or "", def) of the module's functions and its classes' methods."""
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            yield node.name, "", node
        elif isinstance(node, ast.ClassDef):
            for item in node.body:
                if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef):
                    yield f"{node.name}.{item.name}", node.name, item
