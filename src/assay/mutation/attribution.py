"""Which tests of a file earn their place at gate 4, and the threshold of each target module.

A test function (all cases of a parametrized one together: they are one test in the source) earns
its place when it kills a mutant no other test of the file kills, or - taken in file order after
those - a mutant that no test kept so far kills. The others add nothing a mutant could tell apart:
`low_value`. This needs more than the first killing test of each mutant: the gate asks the engine
for two (`killers=2`), so a mutant killed by a single test is known as such (its other covering
tests all ran and passed).
"""

from __future__ import annotations

from assay.config.mutation import CodeClass, MutationConfig
from assay.mutation.codeclass import classify
from assay.mutation.model import COUNTED, DETECTED, MutationResult


def function_of(nodeid: str) -> str:
    return nodeid.split("[", 1)[0]


def redundant_tests(run: MutationResult, tests: list[str]) -> dict[str, str]:
    """Node id -> why it adds nothing, for the tests of `tests` whose function earns no place."""
    # function -> the known killer functions of each mutant it kills
    kills: dict[str, list[set[str]]] = {}
    for _, r in run.scored:
        if r.status not in DETECTED or not r.killed_by:
            continue
        killers = {function_of(t) for t in r.killed_by}
        for f in killers:
            kills.setdefault(f, []).append(killers)
    functions = list(dict.fromkeys(function_of(t) for t in tests))
    kept = {f for f in functions if any(k == {f} for k in kills.get(f, []))}  # a kill of its own
    for f in functions:  # then, in file order, whatever kills what nothing kept kills
        if f not in kept and any(not (k & kept) for k in kills.get(f, [])):
            kept.add(f)
    out = {}
    for t in tests:
        f = function_of(t)
        if f in kept:
            continue
        out[t] = (
            "kills no mutant of the code it runs"
            if f not in kills
            else "kills only mutants that other tests of the file kill too"
        )
    return out


def module_limits(
    sources: dict[str, str], config: MutationConfig, project_modules: set[str]
) -> dict[str, tuple[CodeClass, float]]:
    """Each target module's code class and threshold: a module is held to its own class, whatever it
    is tested with."""
    out: dict[str, tuple[CodeClass, float]] = {}
    for rel, text in sources.items():
        code_class = classify(rel, text, config, project_modules)
        out[rel] = (code_class, config.thresholds[code_class])
    return out


def module_scores(run: MutationResult, limits: dict[str, tuple[CodeClass, float]]) -> list[dict]:
    """Per target module: its score (percent, None when no mutant counts), code class,
    threshold, verdict."""
    rows = []
    for rel, (code_class, threshold) in limits.items():
        results = [r for m, r in run.scored if m.file == rel]
        counted = [r for r in results if r.status in COUNTED]
        score = (
            None if not counted else 100 * sum(r.status in DETECTED for r in counted) / len(counted)
        )
        rows.append(
            {
                "file": rel,
                "code_class": code_class,
                "threshold": threshold,
                "score": None if score is None else round(score, 1),
                "mutants": len(counted),
                "passed": score is None or score + 1e-9 >= threshold,
            }
        )
    return rows
