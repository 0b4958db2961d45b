"""Strings that match a regular expression, read from its parsed structure (`sre_parse`), and the
compiled patterns a module holds once its functions ran.

A parser driven by a table of patterns (isodate's `parse_date` builds its table on the first call,
from `%`-formatted pieces no string constant shows whole) is exercised branch by branch only by
inputs that match each pattern. Each pattern gives a few matching strings: the shortest (first
alternative, optional parts left out, character classes at their first character), then
variants with the next character of each range (`[0-9]` -> `1`: `1111-11-11` is a date, `0000-00-00`
is not), other alternatives and the optional parts taken once. Every sample is checked against the
pattern. `reached` runs a few calls first (in the probe's child), then reads the module's patterns.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import re
import sys
import textwrap
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from .calls import Namespaces, prepare, run_call, setup

if TYPE_CHECKING:
    from types import ModuleType

sre = importlib.import_module("re._parser" if sys.version_info >= (3, 11) else "sre_parse")
Op = tuple[Any, Any]  # an item of a parsed pattern: (opcode, argument)

VARIANTS = 3  # samples tried per pattern
MAX_PATTERNS = 60  # compiled patterns read from a module
BASES = 3  # string inputs run before the module's patterns are read
MAX_INPUTS = 120  # inputs from the patterns, per function
_DIGIT = {"CATEGORY_DIGIT": "01", "CATEGORY_SPACE": "  ", "CATEGORY_WORD": "ab"}
_OTHER = {"CATEGORY_NOT_DIGIT": "a", "CATEGORY_NOT_SPACE": "a", "CATEGORY_NOT_WORD": "-"}


class _Unsupported(Exception):
    pass


def _in(items: Sequence[Op], variant: int) -> str:
    if any(str(op) == "NEGATE" for op, _ in items):
        banned = {chr(v) for op, v in items if str(op) == "LITERAL"}
        return next(c for c in "bcdfghjklmnpqrstvwxz0a" if c not in banned)
    op, value = items[min(variant, len(items) - 1)] if variant > 1 else items[0]
    name = str(op)
    if name == "LITERAL":
        return chr(value)
    if name == "RANGE":  # the next character of the range from the second variant on
        return chr(min(value[0] + (variant > 0), value[1]))
    if name == "CATEGORY":
        key = str(value)
        return _DIGIT[key][min(variant, 1)] if key in _DIGIT else _OTHER.get(key, "a")
    raise _Unsupported(name)


def _emit(parsed: Sequence[Op], groups: dict[int, str], variant: int) -> str:
    out = []
    for op, value in parsed:
        name = str(op)
        if name == "LITERAL":
            out.append(chr(value))
        elif name == "NOT_LITERAL":
            out.append("a" if chr(value) != "a" else "b")
        elif name == "ANY":
            out.append("a")
        elif name == "IN":
            out.append(_in(value, variant))
        elif name == "BRANCH":
            branches = value[1]
            out.append(_emit(branches[min(variant, len(branches) - 1)], groups, variant))
        elif name == "SUBPATTERN":
            text = _emit(value[-1], groups, variant)
            if value[0]:
                groups[value[0]] = text
            out.append(text)
        elif name in ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT"):
            low, high, inner = value
            times = low if variant < 2 else min(max(low, 1), high)
            out.append(_emit(inner, groups, variant) * times)
        elif name == "GROUPREF":
            out.append(groups.get(value, ""))
        elif name in ("AT", "ASSERT", "ASSERT_NOT"):
            continue
        else:
            raise _Unsupported(name)
    return "".join(out)


def matching(pattern: str | re.Pattern, variants: int = 1) -> list[str]:
    """Up to `variants` distinct strings `pattern` matches (each checked), shortest first."""
    try:
        compiled = pattern if isinstance(pattern, re.Pattern) else re.compile(pattern)
        parsed = sre.parse(compiled.pattern, compiled.flags)
    except (re.error, TypeError, ValueError, RecursionError, OverflowError):
        return []
    out: list[str] = []
    for variant in range(variants):
        try:
            text = _emit(parsed, {}, variant)
        except (_Unsupported, RecursionError, StopIteration, IndexError, TypeError, ValueError):
            continue
        if text and text not in out and compiled.search(text):
            out.append(text)
    return out


def held(module: object, reads: set[str] | None = None) -> list[re.Pattern]:
    """The compiled string patterns among a module's globals, and in its lists, tuples, sets and
    dicts (two levels: a cache of pattern lists by key) - tables built at import or by a call;
    then, up to `MAX_PATTERNS` in all, the strings in those tables that read as patterns
    (`_pattern`): a table of `(pattern, replacement)` pairs that `re.sub` compiles only when
    called, its rows formatted at import (inflection's `_irregular('cow', 'kine')` adds
    `C[oO][wW]$`: no string constant shows it, and only `Cow` reaches it). Strings are read only
    from the globals named in `reads` (the tables the function reads itself: a table of patterns
    is no input for every function of its module)."""
    found: dict[tuple[str, int], re.Pattern] = {}
    texts: dict[str, None] = {}

    def visit(value: object, depth: int, strings: bool) -> None:
        if len(found) >= MAX_PATTERNS:
            return
        if isinstance(value, re.Pattern):
            if isinstance(value.pattern, str):
                found.setdefault((value.pattern, value.flags), value)
        elif strings and depth > 0 and isinstance(value, str):
            if len(texts) < MAX_PATTERNS and _PATTERN_MARKS.search(value):
                texts[value] = None
        elif depth < 2 and isinstance(value, (list, tuple, set, frozenset)):
            for item in list(value)[:200]:
                visit(item, depth + 1, strings)
        elif depth < 2 and isinstance(value, dict):
            for item in list(value.values())[:200]:
                visit(item, depth + 1, strings)

    for name, value in list(vars(module).items()):
        visit(value, 0, name in (reads or ()))
    for text in texts:
        if len(found) >= MAX_PATTERNS:
            break
        compiled = _pattern(text)
        if compiled is not None:
            found.setdefault((compiled.pattern, compiled.flags), compiled)
    return list(found.values())


# what a string in a table must hold to be read as a pattern: an anchor, a class, a group, an escape
_PATTERN_MARKS = re.compile(r"[$^\\[\](]")


def _pattern(text: str) -> re.Pattern | None:
    """`text` compiled, when it reads as a pattern (`_PATTERN_MARKS`) and compiles (a replacement
    such as `\\1es` refers to a group it lacks, and does not)."""
    if len(text) > 200:
        return None
    try:
        return re.compile(text)
    except (re.error, RecursionError, OverflowError, ValueError):
        return None


def _string_at(inp: dict) -> int | None:
    """The position of an input's first argument written as a string literal."""
    for n, src in enumerate(inp.get("args", [])):
        try:
            if isinstance(ast.literal_eval(src), str):
                return n
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            continue
    return None


def reached(
    module: ModuleType,
    fn: dict,
    inputs: list[dict],
    lines: list[str],
    timeout: float,
    known: set[str],
) -> list[dict]:
    """In a child: a few of the function's string inputs run (a table built on the first call
    fills), then one input per string matching a pattern the module holds, the string in place of
    the first string argument; `known`: strings the inputs already try."""
    bases = [(inp, at) for inp in inputs if (at := _string_at(inp)) is not None][:BASES]
    if not bases:
        return []
    spaces = Namespaces(lines)
    for inp, _ in bases:
        try:
            _, call, _ = prepare(module, fn, inp, spaces.get(setup(inp)))
        except Exception:  # noqa: BLE001 - an input that does not evaluate
            continue
        run_call(call, timeout)
    base, at = bases[0]
    out = []
    for pattern in held(module, _globals_read(module, fn)):
        for text in matching(pattern, VARIANTS):
            if text in known:
                continue
            known.add(text)
            args = list(base["args"])
            args[at] = repr(text)
            out.append({**base, "args": args, "origin": "regex"})
    return out[:MAX_INPUTS]


def _globals_read(module: ModuleType, fn: dict) -> set[str]:
    """The module-level names the function's own body reads (none when its source is unknown)."""
    obj: Any = module
    for part in fn["name"].split("."):
        obj = getattr(obj, part, None)
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(getattr(obj, "__func__", obj))))
    except (OSError, TypeError, SyntaxError, IndentationError):
        return set()
    return {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
