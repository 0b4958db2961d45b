"""The kept cases as the mutants run them: built from what exploring found, or - in the
confirming run (`OfflineJob.cases`) - given by the writer, each with its own id."""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..protocol import OfflineJob


def given(cases: list[dict]) -> dict[str, dict]:
    """The writer's cases as exploring would have found them: function name -> {"kept": [...]}."""
    out: dict[str, dict] = {}
    for c in cases:
        out.setdefault(c["function"], {"kept": []})["kept"].append(
            {k: c[k] for k in ("id", "input", "outcome", "lines", "s") if k in c}
        )
    return out


def kept_cases(job: OfflineJob, functions: dict) -> list[tuple]:
    """(input id, function spec, input, expected outcome, call timeout, lines) of every
    kept input; an input found by exploring gets its id here."""
    out = []
    for fn in job.functions:
        found = functions.get(fn.name, {})
        spec = {"name": fn.name, "kind": fn.kind}
        for i, k in enumerate(found.get("kept", [])):
            k["id"] = k.get("id") or f"{fn.name}#{i}"
            timeout = min(job.call_timeout, max(0.1, 10 * k.get("s", 0.0) + 0.05))
            out.append((k["id"], spec, k["input"], k["outcome"], timeout, set(k["lines"])))
    return out


def function_bodies(text: str) -> dict[int, set[int]]:
    """First line of each function (its decorators' included, as a mutant's `chain` gives it) ->
    its lines."""
    out = {}
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
            out[first] = set(range(first, (node.end_lineno or node.lineno) + 1))
    return out


def first_call_only(chosen: list[tuple], cases: list[tuple], body: set[int]) -> list[tuple]:
    """Code a function runs on its first call only (a table it builds and caches) was traced in
    the first case that called it, in the oracle's child; in a mutant's fresh child every case
    that calls the function runs it: those cases, when many more call it than the traced few."""
    ids = {c[0] for c in chosen}
    callers = [c for c in cases if c[0] not in ids and body & c[5]]
    return callers if len(callers) > 2 * len(chosen) else []
