"""PIT's removed conditionals in the source's own terms.

PIT mutates bytecode and names the change by the jump it rewrites: `REMOVE_CONDITIONALS_*_IF`
never takes the jump ("replaced equality check with true"), `*_ELSE` always does ("... with
false"). That reads right for `if (c)`, where javac jumps past the body when `c` is false. In
`if (a || b)` javac jumps *into* the body when `a` is true, so the "true" mutant of `a` makes it
false: ulid-creator's `if (random == null || random.length != RANDOM_BYTES) throw ...` showed a
survivor "replaced equality check with true", which reads as a constructor that always throws and
yet passed every test (it was `random == null` made false: no test passes a null array).

Here the condition of a one-line `if`/`while`/`for`, or the value of a one-line `return`, that is a
flat chain of `||` or of `&&` (or one comparison) is split into
its operands, each operand matched to PIT's mutants of its kind on that line by bytecode order (one
conditional jump per operand: a comparison or a plain boolean), and the mutant is the operand
replaced by the value it takes. Anything else (ternaries, nested logic, lambdas, conditions over
several lines, counts that do not match) keeps PIT's own words.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_HEAD = re.compile(r"^\s*(?:\}\s*)?(?:else\s+)?(if|while|for)\s*\(")
_RETURN = re.compile(r"^\s*return\s+")
_STRING = re.compile(r'"(?:\\.|[^"\\])*"|\'(?:\\.|[^\'\\])*\'')
# a comparison, not a shift, an arrow or a generic's bracket next to `?`
_COMPARISON = re.compile(r"==|!=|<=|>=|(?<![<>-])[<>](?![<>=])")
_LOGIC = re.compile(r"&&|\|\||\?")
_REMOVED = re.compile(r"RemoveConditionalMutator_(EQUAL|ORDER)_(IF|ELSE)$")
BOUNDARY = "ConditionalsBoundaryMutator"
NEGATE = "NegateConditionalsMutator"
_SHIFTED = {"<": "<=", "<=": "<", ">": ">=", ">=": ">"}
_NEGATED = {"==": "!=", "!=": "==", "<": ">=", ">=": "<", ">": "<=", "<=": ">"}
_PLAIN = re.compile(r"^[\w.$]+(?:\([^()]*\))?$")


@dataclass(frozen=True)
class Operand:
    """One operand of the condition: its columns on the line (0-based, end exclusive), its
    kind of jump (`EQUAL` or `ORDER`, PIT's names) and whether javac jumps when it is true."""

    start: int
    end: int
    kind: str
    jumps_when_true: bool
    op: tuple[int, int] | None = None  # the comparison operator's columns


def removed(mutator: str) -> tuple[str, str] | None:
    """(`EQUAL`|`ORDER`, `IF`|`ELSE`) of a removed-conditional mutator's name, else None."""
    m = _REMOVED.search(mutator)
    return (m.group(1), m.group(2)) if m else None


def conditional(mutator: str) -> bool:
    """Whether the mutator rewrites one conditional jump (removes, shifts or negates it)."""
    return removed(mutator) is not None or mutator.endswith((BOUNDARY, NEGATE))


def operands(line: str) -> list[Operand] | None:
    """The operands of the line's `if (...)`/`while (...)` condition, or None where the line is
    not that simple (see the module's docstring)."""
    masked = _STRING.sub(lambda m: '"' + "_" * (len(m.group()) - 2) + '"', line)
    value = _RETURN.match(masked)
    if value is not None and "->" not in masked and masked.rstrip().endswith(";"):
        # `return a && b;`: javac jumps as for `if (a && b)`, to the false value's or the true
        # one's `iconst` (jsemver's And.interpret: two survivors read alike in PIT's words)
        return _operands(masked, value.end(), len(masked.rstrip()) - 1)
    head = _HEAD.match(masked)
    if head is None or "->" in masked:
        return None
    if head.group(1) == "while" and masked.lstrip().startswith("}"):
        return None  # do { } while (c): javac jumps back when c is true
    open_at = head.end() - 1
    close_at = _closing(masked, open_at)
    if close_at is None:
        return None
    rest = masked[close_at + 1 :]
    if _LOGIC.search(rest) or _COMPARISON.search(rest) or _HEAD.search(rest):
        return None
    start, end = open_at + 1, close_at
    if head.group(1) == "for":  # for (init; condition; step): javac tests it as a while's
        parts = _semicolons(masked, start, end)
        if parts is None or ":" in masked[start:end]:
            return None
        start, end = parts
        if _LOGIC.search(masked, open_at, start) or _COMPARISON.search(masked, open_at, start):
            return None
        if _LOGIC.search(masked[end:close_at]) or _COMPARISON.search(masked[end:close_at]):
            return None
    return _operands(masked, start, end)


def _operands(masked: str, start: int, end: int) -> list[Operand] | None:
    """The operands of the condition masked[start:end], None where it is not a flat chain."""
    spans = _split(masked, start, end)
    if spans is None:
        return None
    spans_, joiner = spans
    found: list[Operand] = []
    for i, (a, b) in enumerate(spans_):
        while masked[a] == "(" and _closing(masked, a) == b - 1:  # `(time <= last)`
            inner = masked[a + 1 : b - 1]
            a = a + 1 + len(inner) - len(inner.lstrip())
            b = a + len(inner.strip())
        text = masked[a:b]
        if _nested_logic(text):
            return None
        comparisons = list(_COMPARISON.finditer(text))
        if len(comparisons) > 1:
            return None
        op = (a + comparisons[0].start(), a + comparisons[0].end()) if comparisons else None
        kind = "EQUAL" if op is None or comparisons[0].group() in ("==", "!=") else "ORDER"
        # `a || b`: javac jumps into the body when a is true, past it when the last is false
        last = i == len(spans_) - 1
        found.append(Operand(a, b, kind, joiner == "||" and not last, op))
    return found


def edits(line: str, mutants: dict[str, list[tuple[int, int]]]) -> dict[int, tuple[int, int, str]]:
    """For one line's removed-conditional mutants, by mutator name a list of (bytecode index,
    caller's key): by key, the operand's columns and the value the mutant gives it. Mutants of a
    mutator whose count differs from the operands of its kind get none."""
    found = operands(line)
    if not found:
        return {}
    out: dict[int, tuple[int, int, str]] = {}
    for mutator, jumps in mutants.items():
        parsed = removed(mutator)
        if parsed is not None:
            mine = [o for o in found if o.kind == parsed[0]]
        elif mutator.endswith(BOUNDARY):
            mine = [o for o in found if o.kind == "ORDER"]
        elif mutator.endswith(NEGATE):
            mine = found
        else:
            continue
        if len(mine) != len(jumps):
            continue
        for operand, (_, key) in zip(mine, sorted(jumps), strict=True):
            out[key] = (operand.start, operand.end, _replaced(line, operand, parsed, mutator))
    return out


def _replaced(line: str, operand: Operand, parsed: tuple[str, str] | None, mutator: str) -> str:
    """The operand's text under the mutant."""
    if parsed is not None:  # IF never takes the jump, ELSE always does
        return "true" if operand.jumps_when_true == (parsed[1] == "ELSE") else "false"
    text = line[operand.start : operand.end]
    if operand.op is not None:
        a, b = operand.op[0] - operand.start, operand.op[1] - operand.start
        table = _SHIFTED if mutator.endswith(BOUNDARY) else _NEGATED
        return text[:a] + table[text[a:b]] + text[b:]
    if text.startswith("!") and (_PLAIN.match(text[1:]) or _wrapped(text[1:])):
        return text[1:].strip()
    return "!" + text if _PLAIN.match(text) else f"!({text})"


def _wrapped(text: str) -> bool:
    return text.startswith("(") and _closing(text, 0) == len(text) - 1


def _closing(text: str, open_at: int) -> int | None:
    depth = 0
    for i in range(open_at, len(text)):
        if text[i] == "(":
            depth += 1
        elif text[i] == ")":
            depth -= 1
            if depth == 0:
                return i
    return None


def _semicolons(text: str, start: int, end: int) -> tuple[int, int] | None:
    """The span between a `for`'s two top-level semicolons."""
    depth, cuts = 0, []
    for i in range(start, end):
        if text[i] == "(":
            depth += 1
        elif text[i] == ")":
            depth -= 1
        elif text[i] == ";" and depth == 0:
            cuts.append(i)
    return (cuts[0] + 1, cuts[1]) if len(cuts) == 2 else None


def _split(text: str, start: int, end: int) -> tuple[list[tuple[int, int]], str] | None:
    """The top-level operands of text[start:end] joined by one kind of `||`/`&&`, trimmed."""
    cuts: list[tuple[int, int]] = []
    joiners: set[str] = set()
    depth, i, begin = 0, start, start
    while i < end:
        ch = text[i]
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        elif depth == 0 and text[i : i + 2] in ("||", "&&"):
            joiners.add(text[i : i + 2])
            cuts.append((begin, i))
            begin = i + 2
            i += 2
            continue
        elif depth == 0 and ch == "?":
            return None
        i += 1
    cuts.append((begin, end))
    if len(joiners) > 1:
        return None
    trimmed = []
    for a, b in cuts:
        piece = text[a:b]
        lead = len(piece) - len(piece.lstrip())
        a, b = a + lead, a + len(piece.rstrip())
        if a >= b:
            return None
        trimmed.append((a, b))
    return trimmed, (joiners.pop() if joiners else "")


def _nested_logic(text: str) -> bool:
    """Logic or a comparison inside the operand's own parentheses (a call's argument, a
    parenthesized sub-condition): more jumps than the operand's one."""
    depth = 0
    for i, ch in enumerate(text):
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        elif depth > 0 and (_LOGIC.match(text, i) or _COMPARISON.match(text, i)):
            return True
    return False
