"""Related targets of one call shape share a test: a function and its alias, its curried or
numbered variant, a function and the one it wraps (`ordinal` and `ordinalize`, `take` and
`take_nth`, `last` and `tail`). A target whose cases are few (under `MIN_TABLE`, one shape) joins
the test of a related target with the same parameters and outcome shape: one table with the
function as its first column, or - two cases in all - one test of statements. Each case keeps
its call and assertion, so the merged test kills what the tests it replaces did (it fails as soon
as one of its cases does); what it saves is test functions a reader has to go through.

Relatedness is read from the module (`relations`): one calls the other, one is assigned from the
other (`rest = partial(drop, 1)`), one's name begins with the other's, one's docstring names the
other (a "See Also" section, a `:func:` role: the author's own grouping), or both hand a
parameter of theirs to one public function of the module (toolz's `groupby` and `reduceby` read
their `key` through `getter`; `concatv` and `mapcat` are `concat` of their arguments) - a private
helper does not count (humanize's number formatters all pass `value` to `_format_not_finite`).
Two targets that are merely alike (`first(seq)` and `count(seq)`) stay apart, and two tables are
never merged: at most one member of a merged test had a table of its own.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Mapping

from assay.writers.offline.groups import shape
from assay.writers.offline.probe import Kept

MIN_TABLE = 3  # as `combined.MIN_TABLE`: cases of one shape that form a table on their own


def relations(text: str) -> dict[str, set[str]]:
    """Module-level function name -> the other module-level functions it is related to: it calls
    one (by name), is assigned from one (`rest = partial(drop, 1)`, `alias = f`), its name
    begins with another's (`take_nth`, `take`), its docstring names one (`See Also`, `:func:`),
    or both pass a parameter of theirs to one public function (`delegates`). Symmetric."""
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return {}
    defs = {n.name: n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
    out: dict[str, set[str]] = {name: set() for name in defs}

    def link(a: str, b: str) -> None:
        if a != b:
            out.setdefault(a, set()).add(b)
            out.setdefault(b, set()).add(a)

    for name, fn in defs.items():
        for sub in ast.walk(fn):
            if isinstance(sub, ast.Call) and isinstance(sub.func, ast.Name) and sub.func.id in defs:
                link(name, sub.func.id)
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target = node.targets[0]
            if isinstance(target, ast.Name):
                for sub in ast.walk(node.value):
                    if isinstance(sub, ast.Name) and sub.id in defs:
                        link(target.id, sub.id)
    names = sorted(out)
    for a in names:
        for b in names:
            if a != b and b.startswith(a) and len(a) >= 3:
                link(a, b)
    for name, fn in defs.items():
        for other in _named_in_docstring(fn, defs):
            link(name, other)
    callers: dict[str, set[str]] = {}
    for name, fn in defs.items():
        for callee in delegates(fn, defs):
            callers.setdefault(callee, set()).add(name)
    for group in callers.values():
        for a in group:
            for b in group:
                link(a, b)
    return out


def delegates(fn: ast.FunctionDef | ast.AsyncFunctionDef, defs: Mapping[str, ast.AST]) -> set[str]:
    """The public module-level functions `fn` hands one of its own parameters to (anywhere in the
    call's arguments: `concat(map(func, seqs))`)."""
    a = fn.args
    params = {p.arg for p in [*a.posonlyargs, *a.args, *a.kwonlyargs, a.vararg, a.kwarg] if p}
    out = set()
    for sub in ast.walk(fn):
        if not (isinstance(sub, ast.Call) and isinstance(sub.func, ast.Name)):
            continue
        callee = sub.func.id
        if callee not in defs or callee == fn.name or callee.startswith("_"):
            continue
        passed = {
            n.id
            for arg in [*sub.args, *(k.value for k in sub.keywords)]
            for n in ast.walk(arg)
            if isinstance(n, ast.Name)
        }
        if passed & params:
            out.add(callee)
    return out


def _named_in_docstring(
    fn: ast.FunctionDef | ast.AsyncFunctionDef, defs: Mapping[str, ast.AST]
) -> set[str]:
    """The module's functions that `fn`'s docstring points a reader to: the words of its "See
    Also" section (to the first blank line), and `:func:` roles anywhere."""
    doc = ast.get_docstring(fn) or ""
    words: set[str] = set(re.findall(r":func:`~?\.?([\w.]+)`", doc))
    found = re.search(r"See Also:?[ \t]*\n(?:[ \t]*-+[ \t]*\n)?(.*?)(?:\n[ \t]*\n|\Z)", doc, re.S)
    if found:
        words |= set(re.findall(r"[A-Za-z_]\w*", found.group(1)))
    return {w.rsplit(".", 1)[-1] for w in words} & set(defs) - {fn.name}


def family_key(k: Kept, kinds: dict[str, str], params: dict[str, list[str]]) -> tuple | None:
    """What two cases of different functions must share to be rows of one table: a plain function
    call (no receiver, nothing changed in place), the outcome's kind (the exception's type), the
    parameter names their positional arguments fill, the keywords they pass. None: the case
    joins no other function's test."""
    i, o = k.input, k.outcome
    if kinds.get(k.function) != "function" or i.get("receiver") is not None:
        return None
    if "state" in o or "after" in o:
        return None
    names = params.get(k.function, [])
    n = len(i.get("args", []))
    if n > len(names):
        return None
    return (shape(k)[1], tuple(names[:n]), tuple(sorted(i.get("kwargs", {}))))


def blend(
    items: list[tuple[list[Kept], bool]],
    kinds: dict[str, str],
    params: dict[str, list[str]],
    related: dict[str, set[str]],
) -> list[tuple[list[Kept], bool]]:
    """The tests of a file (`combined.split`'s (cases, whether statements)) with related targets
    of one call shape merged (see the module's docstring); a merged test's cases may belong to
    several functions. Order: a merged test takes the place of its first member."""
    by_fn: dict[str, list[int]] = {}
    for n, (cases, _) in enumerate(items):
        for fn in {k.function for k in cases}:
            by_fn.setdefault(fn, []).append(n)
    # a function that is one test, every case of one family key
    single: dict[str, tuple] = {}
    for fn, where in by_fn.items():
        if len(where) != 1 or len({k.function for k in items[where[0]][0]}) != 1:
            continue
        keys = {family_key(k, kinds, params) for k in items[where[0]][0]}
        if len(keys) == 1 and None not in keys:
            single[fn] = keys.pop()  # type: ignore[assignment]
    small = {fn for fn in single if len(items[by_fn[fn][0]][0]) < MIN_TABLE}
    parent = {fn: fn for fn in single}

    def root(fn: str) -> str:
        while parent[fn] != fn:
            fn = parent[fn]
        return fn

    def bigs(r: str) -> int:
        return sum(1 for fn in single if root(fn) == r and fn not in small)

    for fn in sorted(single, key=lambda f: by_fn[f][0]):
        for other in sorted(related.get(fn, ()), key=lambda f: by_fn.get(f, [0])[0]):
            if other not in single or single[other] != single[fn]:
                continue
            if fn not in small and other not in small:
                continue
            a, b = root(fn), root(other)
            if a != b and bigs(a) + bigs(b) <= 1:
                parent[max(a, b, key=lambda f: by_fn[f][0])] = min(a, b, key=lambda f: by_fn[f][0])
    members: dict[str, list[str]] = {}
    for fn in single:
        members.setdefault(root(fn), []).append(fn)
    merged_into: dict[int, int] = {}  # item index -> the index of its merged test's first item
    for group in members.values():
        if len(group) < 2:
            continue
        at = sorted(by_fn[fn][0] for fn in group)
        for n in at:
            merged_into[n] = at[0]
    out: list[tuple[list[Kept], bool]] = []
    gathered: dict[int, list[Kept]] = {}
    for n, (cases, statements) in enumerate(items):
        head = merged_into.get(n)
        if head is None:
            out.append((cases, statements))
        elif head == n:
            gathered[n] = list(cases)
            out.append((gathered[n], False))
        else:
            gathered[head].extend(cases)
    # two cases in all: one test of statements, as a function's two cases of one shape would be
    return [
        (cases, len(cases) < MIN_TABLE) if is_family(cases) else (cases, statements)
        for cases, statements in out
    ]


def family_name(group: list[Kept]) -> str:
    """The name of a table of several related functions, the one with the most cases first:
    `test_take_and_take_nth_return_values` (`test_tableize_and_3_related_...` beyond three)."""
    counts = {f: sum(k.function == f for k in group) for f in _functions(group)}
    # the function with the most cases leads: the table is mostly its
    fns = [_snake(f) for f in sorted(counts, key=lambda f: -counts[f])]
    who = "_and_".join(fns) if len(fns) <= 3 else f"{fns[0]}_and_{len(fns) - 1}_related"
    o = group[0].outcome
    if o["k"] == "raise":
        return f"test_{who}_raise_{_snake(o['type'].split('.')[-1])}"
    return f"test_{who}_{'yields' if o['k'] == 'iter' else 'return_values'}"


def _snake(name: str) -> str:
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name).lower()


def _functions(cases: list[Kept]) -> list[str]:
    return list(dict.fromkeys(k.function for k in cases))


def is_family(cases: list[Kept]) -> bool:
    """A test whose cases belong to several functions (`blend`)."""
    return len(_functions(cases)) > 1
