"""Strings that reach the module's data: its own short strings, and strings that match its
regular expressions.

A table of `(pattern, replacement)` rules, a validator or a parser is exercised rule by rule only by
inputs that match each pattern; the tests rarely hold one for every rule. Every string constant of
the module that compiles as a pattern with at least one special character gives one shortest-ish
match (`_assay_sandbox.offline.patterns`: alternatives, the first; optional and starred parts left
out), read from the parsed pattern - nothing is run. The patterns a module builds at run time are
read in the probe (`patterns.reached`).
"""

from __future__ import annotations

import ast
import re

from assay._assay_sandbox.offline.patterns import matching

SPECIAL = re.compile(r"[\\^$*+?{}\[\]|()]")
MAX_SAMPLES = 120


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
                next(iter(matching(node.value)), None)
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
