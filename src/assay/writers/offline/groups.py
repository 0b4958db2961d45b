"""Which cases share a test: those of one function whose calls and outcomes have one shape
(`shape`), and - the defaults filling the arguments some leave out - those that differ only in
the arguments they pass (`merged`). Fewer test functions, each a table of cases - except where a
call that leaves an argument out kills a mutant of its default: written with the default filled
in, it would not."""

from __future__ import annotations

import ast
from dataclasses import replace

from assay.writers.offline.probe import Kept


def shape(k: Kept) -> tuple:
    o, i = k.outcome, k.input
    kind = (
        o["k"]
        if o["k"] != "raise"
        else f"raise:{o['type']}:{bool(o['match'])}:{bool(o.get('iterating'))}"
    )
    return (
        k.function,
        kind,
        i.get("receiver") is not None,
        len(i.get("args", [])),
        tuple(sorted(i.get("kwargs", {}))),
        "state" in o,
        o.get("expr") == "None",
        # an argument changed in place is built inside its own test: a parametrize row's object
        # would be shared by every run of the test
        k.id if "after" in o else "",
    )


def _padded(cases: list[Kept], params: list[str], defaults: dict[str, str]) -> list[Kept] | None:
    """The cases with every argument any of them passes, a missing one at its default (a literal):
    calls of one function that differ in the arguments they leave out share one test. An argument
    one case passes by name where another passes it by position goes by position (`ordinal(5,
    gender="female")` beside `ordinal("2", "")`: a parameter some call fills by position takes
    either). None when a default is missing."""
    width = max(len(k.input.get("args", [])) for k in cases)
    positional = set(params[:width])
    names = sorted({n for k in cases for n in k.input.get("kwargs", {})} - positional)
    out = []
    for k in cases:
        args, kwargs = list(k.input.get("args", [])), dict(k.input.get("kwargs", {}))
        for n in range(len(args), width):
            if n < len(params) and params[n] in kwargs:
                args.append(kwargs.pop(params[n]))
                continue
            if n >= len(params) or params[n] not in defaults:
                return None
            args.append(defaults[params[n]])
        for name in names:
            if name not in kwargs:
                if name not in defaults:
                    return None
                kwargs[name] = defaults[name]
        out.append(replace(k, input={**k.input, "args": args, "kwargs": kwargs}))
    return out


def merged(
    groups: list[list[Kept]],
    params: dict[str, list[str]],
    defaults: dict[str, dict[str, str]],
    defaulted: set[str] = frozenset(),  # type: ignore[assignment]
) -> list[list[Kept]]:
    """Groups of one function and outcome shape that differ only in the arguments they pass,
    merged into one where the defaults can fill the gaps (`_padded`). `defaulted`: the mutants of
    default values; a group of calls that leaves out an argument the others pass and kills one
    stays as it is (filled in, the default would no longer run)."""
    families: dict[tuple, list[list[Kept]]] = {}
    for group in groups:
        key = shape(group[0])
        families.setdefault((*key[:3], *key[5:]), []).append(group)
    out = []
    for family in families.values():
        if len(family) > 1 and defaulted:
            width = max(len(g[0].input.get("args", [])) for g in family)
            names = {n for g in family for n in g[0].input.get("kwargs", {})}
            apart = [
                g
                for g in family
                if (
                    len(g[0].input.get("args", [])) < width
                    or names - set(g[0].input.get("kwargs", {}))
                )
                and any(k.kills & defaulted for k in g)
            ]
            out += apart
            family = [g for g in family if not any(g is a for a in apart)]
            if not family:
                continue
        cases = [k for g in family for k in g]
        fn = cases[0].function
        literal = {n: v for n, v in defaults.get(fn, {}).items() if _is_literal(v)}
        padded = _padded(cases, params.get(fn, []), literal) if len(family) > 1 else None
        out += [padded] if padded is not None else family
    return out


def _is_literal(source: str) -> bool:
    try:
        ast.literal_eval(source)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return False
    return True
