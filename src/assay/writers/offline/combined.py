"""One test per target: the cases of a function that share no table (their calls or outcomes have
different shapes: other keywords, a return beside a raise) become one test of consecutive
statements, `assert f(a) == x` lines then `with pytest.raises(E): f(b)` blocks. A reviewer reads
one test per function, as in a hand-written suite, and a table only where at least `MIN_TABLE`
cases share a shape. Each assertion says the line it guards (the code a mutant of which it kills):
a generated test with more unexplained assertions than the smells gate allows is rejected, and
the message is what tells the statements apart when one fails."""

from __future__ import annotations

import ast
import re
from typing import TYPE_CHECKING

from assay.writers.offline.model import PinnedTest
from assay.writers.offline.probe import Kept

if TYPE_CHECKING:
    from assay.mutation.model import Mutant
    from assay.writers.offline.function_text import Writer
    from assay.writers.offline.render import Rendered

MIN_TABLE = 3  # cases of one shape kept as a parametrized table
MAX_FOLDED = 8  # a function's table of at most this many rows joins its test of statements
MAX_STATEMENTS = 12  # cases in one test of statements after folding (the smells' test length)
MAX_GUARD = 60  # characters of the guarded line shown in a message
MAX_VALUE = 30  # characters of a pinned value shown in a message
ORDER = ("return", "iter", "raise")


def split(groups: list[list[Kept]]) -> list[tuple[list[Kept], bool]]:
    """The groups of one file as (cases, whether they are one test of statements): per function,
    the groups under `MIN_TABLE` cases merged into one (at the place of the first), returns before
    raises; a table of at most `MAX_FOLDED` rows of a function that has such a test of statements
    joins it, its rows as statements (one test of the function, not two: isodate's `parse_date`
    had a table of six returns and a test of two returns and two raises); larger tables stay."""
    loose: dict[str, list[Kept]] = {}
    size: dict[str, int] = {}  # fn -> cases in its test of statements, the tables folded in
    for group in groups:
        if len(group) < MIN_TABLE:
            loose.setdefault(group[0].function, [])
            size[group[0].function] = size.get(group[0].function, 0) + len(group)
    folded = {id(g) for g in groups if len(g) < MIN_TABLE}
    for group in sorted(groups, key=len):  # the smallest tables first
        fn, n = group[0].function, len(group)
        if id(group) in folded or fn not in size:
            continue
        if n <= MAX_FOLDED and size[fn] + n <= MAX_STATEMENTS:
            size[fn] += n
            folded.add(id(group))
    out: list[tuple[list[Kept], bool]] = []
    for group in groups:
        fn = group[0].function
        if id(group) not in folded:
            out.append((group, False))
            continue
        if not any(cases is loose[fn] for cases, _ in out):
            out.append((loose[fn], True))  # filled in place by the groups after it
        loose[fn].extend(group)
    for cases in loose.values():
        cases.sort(key=lambda k: ORDER.index(k.outcome["k"]))
    return [(cases, several and len(cases) > 1) for cases, several in out]


def guards(mutants: list[Mutant], text: str) -> dict[str, str]:
    """Mutant id -> `line N: <its source line>`, what an assertion that kills it guards."""
    lines = text.splitlines()
    out = {}
    for m in mutants:
        code = lines[m.line - 1].strip() if 0 < m.line <= len(lines) else ""
        if len(code) > MAX_GUARD:
            code = code[: MAX_GUARD - 3] + "..."
        out[m.id] = f"line {m.line}: {code}" if code else f"line {m.line}"
    return out


def guard(k: Kept, guarded: dict[str, str], used: set[str] = frozenset()) -> str:  # type: ignore[assignment]
    """The line of code case `k`'s assertion guards, `line N: <code>`: the first (in the source)
    of the lines of the mutants it kills that no earlier assertion of its test guards (`used`),
    else the first it kills; else, `runs line N: ...`, of those it runs whose mutants the probe
    had no time for; else the first line with a mutant that it runs. Empty when none is known."""
    lines = {_line(g): g for g in guarded.values()}
    for ids, verb in ((k.kills, ""), (k.reaches, "runs ")):
        known = sorted({(_line(guarded[i]), guarded[i]) for i in ids if i in guarded})
        if known:
            fresh = [g for _, g in known if verb + g not in used]
            return verb + (fresh[0] if fresh else known[0][1])
    ran = sorted(n for n in k.lines if n in lines)
    return f"runs {lines[ran[0]]}" if ran else ""


def messages(k: Kept, guarded: dict[str, str], used: set[str]) -> list[str]:
    """The messages of case `k`'s assertions, in the order its statements assert (the call's
    outcome, the receiver's state, each argument changed in place): what each pins - the value
    or state, and the line it guards (`guard`) - as string literals. `used` gets the guarded
    line: the next case of the test guards another one where it can."""
    where = guard(k, guarded, used)
    used.add(where)
    around = f" ({where})" if where else " (as it behaves today)"
    o = k.outcome
    out = []
    if o["k"] != "raise" and not (o.get("expr") == "None" and ("state" in o or "after" in o)):
        verb = "yields" if o["k"] == "iter" else "returns"
        out.append(f"{k.function} {verb} {_short(o.get('expr', ''))}{around}")
    if "state" in o:
        out.append(f"{k.function} leaves the receiver at {_short(o['state'])}{around}")
    for n, v in o.get("after", {}).items():
        out.append(f"{k.function} leaves argument {int(n) + 1} at {_short(v)}{around}")
    return [repr(m) for m in out]


def _line(g: str) -> int:
    found = re.match(r"(?:runs )?line (\d+)", g)
    return int(found.group(1)) if found else 0


def _short(expr: str) -> str:
    return expr if len(expr) <= MAX_VALUE else expr[: MAX_VALUE - 3] + "..."


def name(w: Writer, cases: list[Kept], fn: str) -> str:
    """What the test pins: `test_f_return_values_and_raises_value_error`."""
    parts = []
    returns = sum(k.outcome["k"] != "raise" and not _update(k) for k in cases)
    if returns:
        parts.append("return_values" if returns > 1 else "returns")
    if any(_update(k) for k in cases):
        parts.append("updates")
    errors = list(
        dict.fromkeys(k.outcome["type"].split(".")[-1] for k in cases if k.outcome["k"] == "raise")
    )
    if errors:
        words = [_snake(e) for e in errors]
        parts.append("raises_" + ("_or_".join(words) if len(words) <= 2 else "errors"))
    base = f"test_{fn}_" + "_and_".join(parts)
    if base in w.names:  # a table of the function's returns has the plain name
        base = f"test_{fn}_other_" + "_and_".join(parts)
    return w.unique(base)


def _update(k: Kept) -> bool:
    """A call pinned by what it changes (its receiver, an argument), returning None."""
    o = k.outcome
    return o.get("expr") == "None" and ("state" in o or "after" in o)


def _snake(name: str) -> str:
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name).lower()


def combined(
    w: Writer, cases: list[Kept], fn: str, guarded: dict[str, str]
) -> tuple[str, list[str], list[PinnedTest], list[int]]:
    """One test holding `cases` (of one function, `fn` its name in snake case) as consecutive
    statements: (its name, its body, one pinned test per case named after the test, each case's
    number of statements: what maps a failing line back to its case)."""
    test = name(w, cases, fn)
    body: list[str] = []
    pinned, counts = [], []
    # the cases with the fewest lines to guard choose first: each assertion guards its own line
    used: set[str] = set()
    said: dict[int, list[str]] = {}
    for n in sorted(range(len(cases)), key=lambda n: len(cases[n].kills | cases[n].reaches)):
        said[n] = messages(cases[n], guarded, used)
    for n, k in enumerate(cases):
        call, lines = w.statements(k, said[n])
        body += lines
        counts.append(len([line for line in lines if not line.startswith(" ")]))
        pinned.append(w.pin(test, k, call))
    return test, body, pinned, counts


def case_at(rendered: Rendered, test: str, line: int | None) -> int | None:
    """The case (its index in `rendered.rows[test]`) whose statements hold `line` of the file, in
    a test holding several cases (`combined`); None elsewhere. Read from the file as formatted:
    the formatter moves lines, never statements."""
    counts = rendered.statements.get(test)
    if not counts or line is None:
        return None
    tree = ast.parse(rendered.text)
    func = next((n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == test), None)
    if func is None or len(func.body) != sum(counts):
        return None
    first = 0
    for case, n in enumerate(counts):
        stmts = func.body[first : first + n]
        if stmts[0].lineno <= line <= (stmts[-1].end_lineno or stmts[-1].lineno):
            return case
        first += n
    return None
