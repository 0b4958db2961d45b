"""Which kept inputs become tests: a greedy set cover of the mutants they kill, and gate 4 foreseen.

Greedy: take the input that kills the most mutants no chosen input kills yet (ties to the shortest
call), at most `per_function` per function, until no input adds a kill; then drop the inputs whose
kills the others all make (`prune`). Every test kills a mutant no other test kills.

The writer scopes gate 4 to the lines of the functions a file's tests target; the probe knows which
mutants each input kills, so the score can be foreseen (over the mutants it ran) and functions that
would pull it under the threshold left out before the file is verified.
"""

from __future__ import annotations

import ast
import contextlib
import io
import re
import tokenize
from collections import Counter
from collections.abc import Collection, Iterable

from assay.mutation.model import Mutant
from assay.writers.offline.probe import Kept
from assay.writers.offline.regex import SPECIAL
from assay.writers.offline.tables import called_at_import, readers

UNCOUNTED = {"equivalent", "duplicate", "compile_error"}
# mutants the probe did not judge: unknown to the foresight, which neither counts them killed nor
# survived (gate 4 runs them; under load most of a large module's mutants end here)
UNJUDGED = {"not_run", "timeout", "crash"}
# a function's cases for the rows of the tables it reads, per case it may have for its own code
ROWS_PER_TEST = 3


def cover(
    candidates: Iterable[Kept],
    per_function: int,
    covered: set[str] | None = None,
    taken: Counter | None = None,
    rows: Collection[str] = frozenset(),
) -> list[Kept]:
    """Greedy set cover of mutants by inputs, starting from `covered` (kills of tests already kept)
    and `taken` (tests already kept per function). `rows`: mutants of rule-table rows built at
    import (`table_rows`); a case whose new kills are all such rows counts against a second
    allowance, `ROWS_PER_TEST` times `per_function` (`slot`): one row per case is how a table is
    tested by behaviour, and a table has more rows than a function has branches."""
    before = set(covered or ())
    covered = set(before)
    taken = Counter(taken or {})
    pool = [k for k in candidates if k.kills - covered]
    chosen: list[Kept] = []
    while pool:
        best = max(pool, key=lambda k: (len(k.kills - covered), -k.size, -_origin_rank(k)))
        if not best.kills - covered:
            break
        taken[slot(best, best.kills - covered, rows)] += 1
        chosen.append(best)
        covered |= best.kills
        pool = [
            k
            for k in pool
            if k is not best
            and k.kills - covered
            and taken[s := slot(k, k.kills - covered, rows)] < allowance(s, per_function)
        ]
    return prune(chosen, before)


def slot(k: Kept, new: set[str], rows: Collection[str]) -> str:
    """Whose allowance a case counts against: its function's, or - when all it adds are table
    rows - its function's allowance for rows."""
    return f"{k.function} rows" if new and new <= set(rows) else k.function


def allowance(slot: str, per_function: int) -> int:
    """How many cases a `slot` may hold."""
    return per_function * ROWS_PER_TEST if slot.endswith(" rows") else per_function


def table_rows(mutants: list[Mutant], text: str) -> set[str]:
    """The mutants of module-level statements a function reads (`tables.readers`), and of the
    helpers that fill them at import (`tables.called_at_import`): rule tables."""
    read, fillers = readers(text), called_at_import(text)
    return {
        m.id
        for m in mutants
        if (m.chain[-1][0] in fillers if m.chain else (m.stmt_line or m.line) in read)
    }


def prune(chosen: list[Kept], covered: set[str] | None = None) -> list[Kept]:
    """Keep a case only when it kills a mutant no other kept case (nor `covered`) kills: greedy
    picks the largest kill set first, and later picks can cover all of it. The fewest kills are
    weighed first, so the broad cases stay; what the suite kills does not change."""
    kept = list(chosen)
    for k in sorted(chosen, key=lambda k: (len(k.kills), len(k.reaches), -k.size)):
        others = set(covered or ()).union(*(o.kills | o.reaches for o in kept if o is not k))
        if k.kills | k.reaches <= others:
            kept.remove(k)
    return kept


def reach(
    chosen: list[Kept],
    candidates: Iterable[Kept],
    mutants: list[Mutant],
    status: dict[str, str],
    text: str,
    per_function: int,
) -> list[Kept]:
    """Inputs for the mutants the probe did not judge (on a busy machine, most of a large module's):
    greedily, the input that runs the code of the most of them no chosen input runs. Code that runs
    when the module is imported (a rule table) is reached by an input of a function that reads the
    table (`tables.readers`) and that the row's pattern matches (`(r"(quiz)$", r"\1zes")`:
    `'quiz'`), or - a row with no pattern - that holds one of its strings (`'person'` for
    `_irregular('person', 'people')`). What they kill is unknown: gate 4 judges them, or - when it
    runs out of time - they are kept as the probe's best guess."""
    unjudged = [m for m in mutants if status.get(m.id, "not_run") in UNJUDGED]
    if not unjudged:
        return []
    pool = [k for k in candidates if k not in chosen]
    everyone = [*chosen, *pool]
    source = text.split("\n")
    tables = readers(text)
    rows = table_rows(mutants, text)
    ran = set().union(*(k.lines for k in everyone))
    calls = {k.id: _call_text(k) for k in everyone}
    strings = {k.id: _call_strings(k) for k in everyone}
    fillers = called_at_import(text)
    for m in unjudged:
        span = {*range(m.line, m.end_line + 1), m.stmt_line}
        if span & ran:
            for k in everyone:
                if k.lines & span:
                    k.reaches.add(m.id)
            continue
        outer = m.chain[-1][0] if m.chain else ""
        # a helper that fills the tables at import: what reaches one of its calls reaches it
        lines = [(ln, ln) for ln in fillers.get(outer, [])] if outer else [(m.line, m.end_line)]
        for first, last in lines:
            row = "\n".join(source[first - 1 : last])
            patterns, words = _patterns(row), _strings(row)
            users = tables.get(first, set())
            for k in everyone:
                if k.function in users and (
                    any(p.search(s) for p in patterns for s in strings[k.id])
                    if patterns
                    else any(re.search(rf"\b{re.escape(w)}", calls[k.id]) for w in words)
                ):
                    k.reaches.add(m.id)
    covered = set().union(*(k.kills | k.reaches for k in chosen))
    taken = Counter(slot(k, k.kills, rows) for k in chosen)
    added: list[Kept] = []
    while True:
        pool = [
            k
            for k in pool
            if k.reaches - covered
            and taken[s := slot(k, k.reaches - covered, rows)] < allowance(s, per_function)
        ]
        if not pool:
            return added
        best = max(pool, key=lambda k: (len(k.reaches - covered), -k.size))
        taken[slot(best, best.reaches - covered, rows)] += 1
        added.append(best)
        covered |= best.reaches
        pool.remove(best)


def _strings(text: str) -> set[str]:
    """The words (three characters or more) of a piece of source's string literals, lowercased:
    a regular expression's `(octop|vir)i$` gives `octop`, found in an input `'octopi'`."""
    return {
        w.lower() for s in re.findall(r"(['\"])(.+?)\1", text) for w in re.findall(r"\w{3,}", s[1])
    }


def _patterns(text: str) -> list[re.Pattern[str]]:
    """The string literals of a piece of source (a table row: a fragment, tokenized as far as it
    goes) that compile as regular expressions with a special character: the row's pattern; its
    replacement `\\1zes` does not compile."""
    out = []
    tokens = tokenize.generate_tokens(io.StringIO(text).readline)
    with contextlib.suppress(tokenize.TokenError, SyntaxError):
        for tok in tokens:
            if tok.type != tokenize.STRING:
                continue
            try:
                value = ast.literal_eval(tok.string)
                if isinstance(value, str) and SPECIAL.search(value):
                    out.append(re.compile(value))
            except (ValueError, SyntaxError, re.error, OverflowError, RecursionError):
                continue
    return out


def _call_text(k: Kept) -> str:
    """The input's sources, lowercased: what a table row's words are looked for in."""
    i = k.input
    parts = [i.get("receiver") or "", *i.get("args", []), *i.get("kwargs", {}).values()]
    return " ".join(parts).lower()


def _call_strings(k: Kept) -> list[str]:
    """The input's string arguments as values: what a table row's pattern is matched against."""
    i = k.input
    out = []
    for src in [*i.get("args", []), *i.get("kwargs", {}).values()]:
        try:
            value = ast.literal_eval(src)
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            continue
        if isinstance(value, str):
            out.append(value)
    return out


def _origin_rank(k: Kept) -> int:
    """Among equals, an input a person wrote (a test, a doctest) reads best."""
    return {"tests": 3, "doctest": 2, "variant": 1, "regex": 1}.get(k.input.get("origin", ""), 0)


def foresee(
    chosen: list[Kept],
    mutants: list[Mutant],
    status: dict[str, str],
    spans: dict[str, tuple[int, int]],
) -> tuple[float | None, set[str]]:
    """(gate 4's score in percent as the probe sees it, the functions in its scope). The writer
    scopes gate 4 to the lines of the functions the tests target (`gates.scope`), so the mutants
    of the helpers they call are not counted here either."""
    scope = {k.function for k in chosen if k.function in spans}
    lines = {n for fn in scope for n in range(spans[fn][0], spans[fn][1] + 1)}
    counted = [
        m
        for m in mutants
        if any(n in lines for n in range(m.line, m.end_line + 1))
        and status.get(m.id, "not_run") not in UNCOUNTED | UNJUDGED
    ]
    if not counted:
        return None, scope
    killed = set().union(*(k.kills for k in chosen)) if chosen else set()
    return 100.0 * sum(m.id in killed for m in counted) / len(counted), scope


def fit_threshold(
    chosen: list[Kept],
    mutants: list[Mutant],
    status: dict[str, str],
    spans: dict[str, tuple[int, int]],
    threshold: float,
) -> tuple[list[Kept], list[str]]:
    """Leave out, one function at a time, the tests whose removal raises the foreseen score the
    most, until it reaches the threshold; returns (tests kept, functions left out)."""
    left_out: list[str] = []
    while chosen:
        score, _ = foresee(chosen, mutants, status, spans)
        if score is None or score >= threshold:
            break
        options = []
        for fn in dict.fromkeys(k.function for k in chosen):
            rest = [k for k in chosen if k.function != fn]
            options.append((foresee(rest, mutants, status, spans)[0] or 0.0, fn, rest))
        _, fn, chosen = max(options, key=lambda o: o[0])
        left_out.append(fn)
    return chosen, left_out
