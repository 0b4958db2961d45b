"""From mutants to jobs: compile each one in memory, settle what needs no run, pick how the rest runs.

Settled here: CompileError, Ignored (same bytecode as the original or an earlier mutant), NoCoverage.
The rest become jobs: `patch` (swap `__code__`), `rebind` (its line runs at import time) or `reimport`
(neither is possible), with the covering tests fastest first and a timeout from their baseline time.
"""

from __future__ import annotations

import os
import types
from typing import NamedTuple

from .code import fingerprint
from .patch import function_index, patches


class Job(NamedTuple):
    m: dict
    ordered: list[str]  # covering tests, fastest first
    code: types.CodeType  # the mutated module
    patches: list | None
    timeout: float
    mode: str  # patch | rebind | reimport


def plan(cfg: dict, baseline, import_lines: set, collection_s: float, events) -> tuple[list[Job], dict]:
    """Jobs for the mutants that need a run (others get their verdict now), and the original module code."""
    covering, duration = baseline.covering, baseline.duration
    scope = baseline.scope
    all_ids = [t["id"] for t in baseline.tests]

    sources, original_code, originals = {}, {}, {}
    for rel, path in cfg.targets.items():
        with open(path, encoding="utf-8") as fh:
            sources[rel] = fh.read()
        original_code[rel] = compile(sources[rel], os.path.realpath(path), "exec", dont_inherit=True)
        originals[fingerprint(original_code[rel])] = None
    functions = function_index(cfg)

    jobs = []
    for m in cfg.mutants:
        rel = m.file
        if scope is not None and m.function not in scope.get(rel, ()):
            continue
        span = {*range(m.line, m.end_line + 1), m.stmt_line}
        ids = {i for line in span for i in covering.get((rel, line), ())}
        at_import = any((rel, line) in import_lines for line in span)
        if at_import:  # its effect is made at import time (module code, decorators): every test
            ids = set(all_ids)
        ordered = sorted(ids, key=lambda i: duration[i])
        text = sources[rel]
        mutated = text[: m.start] + m.replacement + text[m.end:]
        try:
            code = compile(mutated, os.path.realpath(cfg.targets[rel]), "exec", dont_inherit=True)
        except (SyntaxError, ValueError) as err:
            events.mutant(m, "CompileError", ordered, reason=str(err))
            continue
        fp = fingerprint(code)
        if fp in originals:
            twin = originals[fp]
            events.mutant(m, "Ignored", ordered,
                          reason=f"duplicate of {twin}" if twin else "equivalent: same bytecode as the original")
            continue
        originals[fp] = m.id
        if not ordered:
            events.mutant(m, "NoCoverage", [])
            continue
        found = None if at_import else patches(cfg, m, code, functions)
        timeout = cfg.timeout_factor * sum(duration[i] for i in ordered) + cfg.timeout_base
        mode = "rebind" if at_import else "patch" if found is not None else "reimport"
        if mode == "reimport":
            timeout += 2 * collection_s
        jobs.append(Job(m, ordered, code, found, timeout, mode))
    return jobs, original_code
