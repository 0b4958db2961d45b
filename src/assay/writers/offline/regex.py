"""Strings that reach the module's data: its own short strings, and strings that match its
regular expressions.

A table of `(pattern, replacement)` rules, a validator or a parser is exercised rule by rule only by
inputs that match each pattern; the tests rarely hold one for every rule. Every string constant of
the module that compiles as a pattern with at least one special character gives one shortest-ish
match (alternatives: the first; optional and starred parts: left out; `+`: once), read from the
parsed pattern - nothing is run.
"""

from __future__ import annotations

import ast
import importlib
import re
import sys
from collections.abc import Sequence
from typing import Any

sre = importlib.import_module("re._parser" if sys.version_info >= (3, 11) else "sre_parse")
# an item of a parsed pattern: (opcode, argument); the argument's shape depends on the opcode
Op = tuple[Any, Any]

SPECIAL = re.compile(r"[\\^$*+?{}\[\]|()]")
MAX_SAMPLES = 120
_CATEGORY = {
    "CATEGORY_DIGIT": "0",
    "CATEGORY_SPACE": " ",
    "CATEGORY_WORD": "a",
    "CATEGORY_NOT_DIGIT": "a",
    "CATEGORY_NOT_SPACE": "a",
    "CATEGORY_NOT_WORD": "-",
}


class _Unsupported(Exception):
    pass


def _in(items: Sequence[Op]) -> str:
    negate = any(str(op) == "NEGATE" for op, _ in items)
    if negate:
        banned = {chr(v) for op, v in items if str(op) == "LITERAL"}
        return next(c for c in "bcdfghjklmnpqrstvwxz0a" if c not in banned)
    op, value = items[0]
    name = str(op)
    if name == "LITERAL":
        return chr(value)
    if name == "RANGE":
        return chr(value[0])
    if name == "CATEGORY":
        return _CATEGORY.get(str(value), "a")
    raise _Unsupported(name)


def _emit(parsed: Sequence[Op], groups: dict[int, str]) -> str:
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
            out.append(_in(value))
        elif name == "BRANCH":
            out.append(_emit(value[1][0], groups))
        elif name == "SUBPATTERN":
            text = _emit(value[-1], groups)
            if value[0]:
                groups[value[0]] = text
            out.append(text)
        elif name in ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT"):
            low, _, inner = value
            out.append(_emit(inner, groups) * low)
        elif name == "GROUPREF":
            out.append(groups.get(value, ""))
        elif name in ("AT", "ASSERT", "ASSERT_NOT"):
            continue
        else:
            raise _Unsupported(name)
    return "".join(out)


def sample(pattern: str) -> str | None:
    """A string `pattern` matches (checked), or None."""
    try:
        compiled = re.compile(pattern)
        text = _emit(sre.parse(pattern), {})
    except (
        re.error,
        _Unsupported,
        RecursionError,
        StopIteration,
        IndexError,
        TypeError,
        ValueError,
    ):
        return None
    return text if text and compiled.search(text) else None


def samples(tree: ast.Module) -> list[str]:
    """The module's short string constants, and one matching string per pattern-like one
    (docstrings left out): strings that reach the module's data - a word in a table, a string a
    rule's pattern matches."""
    docs = {
        id(n.body[0].value)
        for n in ast.walk(tree)
        if isinstance(n, (ast.Module, ast.FunctionDef, ast.ClassDef, ast.AsyncFunctionDef))
        and n.body
        and isinstance(n.body[0], ast.Expr)
        and isinstance(n.body[0].value, ast.Constant)
    }
    out: list[str] = []
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Constant)
            and isinstance(node.value, str)
            and id(node) not in docs
            and len(node.value) <= 200
        ):
            found = (
                sample(node.value)
                if SPECIAL.search(node.value)
                else node.value
                if len(node.value) <= 30
                else None
            )
            if found and found not in out:
                out.append(found)
                if len(out) >= MAX_SAMPLES:
                    break
    return out
