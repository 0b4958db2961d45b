"""Tests whose one check is that an exception is raised, of a type and no more.

arrow 1.4.0's `test_one_arg_none` is `with pytest.raises(TypeError): get(None)`. Every mutant of
`if arg is None: raise TypeError(...)` still ends in a `TypeError` (the last `else` raises one too),
so the test kills none and is `low_value`, rightly; but "kills none of the 27 mutants of the code
it runs" did not say why a test that checks an error is worth nothing. Its feedback now says: the
mutants raise that type too, from other code; checking the message tells them apart.
"""

from __future__ import annotations

import ast

from assay.smells.checks import raises_call

Function = (ast.FunctionDef, ast.AsyncFunctionDef)
UNITTEST_RAISES = ("assertRaises", "failUnlessRaises")


def raises_only(source: str) -> dict[str, str]:
    """Test function (`test_x`, `Class::test_x`) -> the exception it expects, for a test whose
    only checks are `pytest.raises(E)` / `self.assertRaises(E)` contexts without a message."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return {}
    out: dict[str, str] = {}
    for node in tree.body:
        found: list[tuple[str, ast.AST]] = []
        if isinstance(node, Function):
            found = [(node.name, node)]
        elif isinstance(node, ast.ClassDef):
            found = [(f"{node.name}::{m.name}", m) for m in node.body if isinstance(m, Function)]
        for key, func in found:
            if key.rsplit("::", 1)[-1].startswith("test") and (expected := _expected(func)):
                out[key] = expected
    return out


def _expected(func: ast.AST) -> str | None:
    """The exception the test's raises contexts name, when they are its only checks."""
    names: set[str] = set()
    for node in ast.walk(func):
        if isinstance(node, ast.Assert):
            return None
        if not isinstance(node, ast.Call):
            continue
        called = ast.unparse(node.func)
        last = called.rsplit(".", 1)[-1]
        if raises_call(called) and last == "raises" or last in UNITTEST_RAISES:
            if len(node.args) != 1 or node.keywords:  # a `match=`, or the callable form
                return None
            names.add(ast.unparse(node.args[0]))
        elif last.startswith(("assert", "fail")) or raises_call(called):
            return None  # another check: a value, a message, a warning
    return " or ".join(sorted(names)) or None


def hint(expected: str) -> str:
    return (
        f": it checks only that {expected} is raised, and the code raises one under each mutant "
        "too, from elsewhere: check the message as well (`match=`, `assertRaisesRegex`)"
    )
