"""What each test of a file does at gate 4, and the threshold of each target module.

A test function (all cases of a parametrized one together: they are one test in the source) is
`low_value` when it kills no mutant at all: it passes on every mutant of the code it runs. That
needs proof, not the whole kill set: by default (`attribution = "proof"`) the engine runs a
function on every mutant it covers until it has killed one (`PROVE_EACH_TEST`), and a mutant whose
covering tests have all killed stops at its first killer - a fraction of the cost. One whose kills
are all also made by other tests of the file is *redundant*: a note, not a verdict, which needs
each function's exact kill set (`attribution = "exact"`: every failing test function of each
mutant, `EVERY_TEST_FUNCTION`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from assay.config.mutation import CodeClass, MutationConfig
from assay.mutation.codeclass import classify
from assay.mutation.model import (
    COUNTED,
    DETECTED,
    PROOF_LIMIT,
    SAMPLE_UNRUN,
    UNAPPLIED,
    MutantResult,
    MutationResult,
    Status,
)

# a test that reaches no mutant (it checks a module-level value, an alias of a builtin, code out
# of scope) is low value too, but saying "kills no mutant" of it would hide why
REACHES_NONE = "reaches no mutant: none of the project lines it runs has one"
# fewer counted mutants than this and a module's own score is noise (1 of 2 is 50%): beside other
# modules it is judged with them (`module_scores`)
ALONE = 5
NAMED = 3  # other tests a redundancy note names before "and N more"


def function_of(nodeid: str) -> str:
    return nodeid.split("[", 1)[0]


@dataclass
class Attribution:
    """Node id -> why, for the tests of a file that kill nothing, and those whose kills all other
    tests of the file make too."""

    low_value: dict[str, str] = field(default_factory=dict)
    redundant: dict[str, str] = field(default_factory=dict)
    # tests left unproven by the proving runs' limit (`PROOF_LIMIT`): a note, not a verdict
    unjudged: dict[str, str] = field(default_factory=dict)


def attribute(run: MutationResult, tests: list[str], exact: bool = True) -> Attribution:
    """Each test of `tests` (node ids) by its function's kill set (`exact`: whole, so that
    redundancy can be told; else known only to be empty or not)."""
    kills: dict[str, set[str]] = {}  # function -> ids of the mutants it kills
    reached: dict[str, int] = {}  # function -> how many mutants it covers
    unproven: set[str] = set()  # functions covering a mutant another test killed first
    limited: set[str] = set()  # functions covering a mutant past the proving limit
    unsampled: set[str] = set()  # functions covering a mutant the tool left out of the sample
    rebuilt: set[str] = set()  # functions covering a mutant the code that runs is not (`rebuilt`)
    ran: set[str] = set()  # functions covering a mutant that ran and counts
    for m, r in run.scored:
        covering = {function_of(t) for t in r.covered_by}
        if r.reason.startswith(UNAPPLIED):  # never ran: nothing to learn of its tests
            rebuilt |= covering
            continue
        for f in covering:
            reached[f] = reached.get(f, 0) + 1
            if r.status is not Status.IGNORED:
                ran.add(f)
            if not run.complete_kills and (r.status in DETECTED or r.killed_by):
                unproven.add(f)
        if r.status is Status.TIMEOUT and r.tests_completed + len(r.killed_by) < len(r.covered_by):
            # a hang ended the run before all of its tests ran (past `MAX_SPLITS`, or a tool that
            # does not say): those left are not proven to pass on it (decorator: 134 of 255
            # mutants timed out, and eight sound tests read "kills none")
            unproven |= covering - {function_of(t) for t in r.killed_by}
        if r.reason == PROOF_LIMIT:  # not run: its tests left to prove are not judged
            limited |= covering
        if r.reason == SAMPLE_UNRUN:  # not run at all: neither are the tests covering it
            unsampled |= covering
        # a mutant out of gate 4's sample (Ignored) may have run to prove a test: its kills count
        if r.status in DETECTED or r.killed_by:
            for f in {function_of(t) for t in r.killed_by}:
                kills.setdefault(f, set()).add(m.id)
    functions = list(dict.fromkeys(function_of(t) for t in tests))
    notes = {f: note for f in functions if exact and (note := _redundancy(f, kills, functions))}
    out = Attribution()
    for t in tests:
        f = function_of(t)
        if f not in kills and (f in unproven or f in limited or f in unsampled):
            # the tool stopped each killed mutant at its first failing test: whether this one
            # fails too is not known (destr: six sound tests were "low value")
            if f in limited:
                out.unjudged[t] = (
                    "gate 4 did not judge its value: it killed none of the mutants it ran on, and "
                    "a test runs on at most mutation.prove mutants out of the sample to prove it"
                )
            elif f in unsampled and f not in unproven:
                out.unjudged[t] = (
                    "gate 4 did not judge its value: it killed none of the mutants it ran on, and "
                    "other mutants of the code it runs were left out of the sample unrun"
                )
            continue
        if f not in kills and f in rebuilt and f not in ran:
            out.unjudged[t] = (
                "gate 4 did not judge its value: the code it runs is not the mutants' (rebuilt "
                "from the file on disk by a decorator that reads its own source?)"
            )
            continue
        if f not in kills:
            n = reached.get(f, 0)
            out.low_value[t] = (
                REACHES_NONE
                if not n
                else f"kills none of the {n} mutant{'' if n == 1 else 's'} of the code it runs"
                if run.per_test_coverage
                # every test is taken to run every mutant: how many this one runs is not known
                else f"kills none of the {n} mutant{'' if n == 1 else 's'} of the code the "
                "file's tests run"
            )
        elif f in notes:
            out.redundant[t] = notes[f]
    return out


def _redundancy(f: str, kills: dict[str, set[str]], functions: list[str]) -> str | None:
    """The note of a function whose every kill another test makes too, naming a few tests that
    cover its kills (the one killing most of what is left first), or None."""
    mine = kills.get(f)
    others = [g for g in functions if g != f and g in kills]
    if not mine or not mine <= set().union(*(kills[g] for g in others)):
        return None
    cover: list[str] = []
    left = set(mine)
    while left:
        best = max(others, key=lambda g: len(kills[g] & left))
        cover.append(best)
        left -= kills[best]
    names = [g.split("::", 1)[-1] for g in cover]
    if len(names) > NAMED:
        shown = f"{', '.join(names[:NAMED])} and {len(names) - NAMED} more"
    else:
        shown = " and ".join([", ".join(names[:-1]), names[-1]] if len(names) > 1 else names)
    return f"redundant: every mutant it kills, {shown} {'kills' if len(names) == 1 else 'kill'} too"


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
    threshold, verdict. A module with fewer than `ALONE` counted mutants, beside others, is held
    to its threshold over all of the file's counted mutants (`pooled`): alone, one equivalent
    mutant of an exception's `__init__` would be "0%" and sink a file whose tests score 80%."""
    counted = {
        rel: [r for m, r in run.scored if m.file == rel and r.status in COUNTED] for rel in limits
    }
    every = [r for results in counted.values() for r in results]
    whole = _percent(every)
    rows = []
    for rel, (code_class, threshold) in limits.items():
        score = _percent(counted[rel])
        row = {
            "file": rel,
            "code_class": code_class,
            "threshold": threshold,
            "score": None if score is None else round(score, 1),
            "mutants": len(counted[rel]),
        }
        judged = score
        if score is not None and len(counted[rel]) < ALONE and len(every) > len(counted[rel]):
            judged = whole
            row["pooled"] = None if whole is None else round(whole, 1)
        row["passed"] = judged is None or judged + 1e-9 >= threshold
        rows.append(row)
    return rows


def _percent(results: list[MutantResult]) -> float | None:
    return None if not results else 100 * sum(r.status in DETECTED for r in results) / len(results)
