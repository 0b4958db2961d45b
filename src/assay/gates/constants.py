"""Tests that only read the project's module-level values: no function of the project runs, so no
mutant can make them fail (gate 4 mutates code that runs, not the values a module is loaded with).

`assert conf.TIMEOUT == 30` fails only when someone edits the constant on purpose, and then the test
is edited with it: it checks no behaviour. Such a file used to be `accepted` with no mutant in
scope ("no mutant, so no test of low value"). Now each test that reads a module-level name of a
target and calls nothing beyond passive builtins, in a run where no function of the project ran, is
`low_value` with that reason (one that checks the value against another function is a real check).
A table a test pins is still worth keeping where other code relies on its values - then test that
code, which reads the table, and the test reaches mutants. Tests that read no such name, or that
call something (`pytest.raises` on a read-only property), keep the old rule: nothing in scope, no
verdict.
"""

from __future__ import annotations

import ast

# calls that only reshape the value read: `len(conf.CODES) == 2` pins it as much as `== {...}`
PASSIVE = {"len", "list", "tuple", "set", "dict", "sorted", "str", "int", "float", "bool", "type"}
CONSTANTS_ONLY = (
    "runs no code of the project: it reads module-level values only ({names}); "
    "no mutant can fail it: test the code that uses them"
)


def module_values(source: str) -> set[str]:
    """Names a module assigns at its top level (constants, tables), not functions or classes."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return set()
    names: set[str] = set()
    for node in tree.body:
        targets = node.targets if isinstance(node, ast.Assign) else []
        if isinstance(node, ast.AnnAssign | ast.AugAssign):
            targets = [node.target]
        names.update(t.id for t in targets if isinstance(t, ast.Name))
    return names


def constant_readers(
    source: str, modules: dict[str, str], values: dict[str, set[str]]
) -> dict[str, str]:
    """Test function (`test_x`, `Class::test_x`) -> its reason to be `low_value`, for each test of
    `source` that reads a module-level value of a target. `modules`: dotted name -> path of the
    project's modules; `values`: path of a target -> its module-level names."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return {}
    bound: dict[str, str] = {}  # name in the test file -> "path" (a module) or "path:NAME"
    for node in tree.body:
        if isinstance(node, ast.Import):
            for a in node.names:
                rel = modules.get(a.name)
                if rel in values:
                    bound[a.asname or a.name] = rel
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            rel = modules.get(node.module)
            for a in node.names:
                if rel in values and a.name in values[rel]:
                    bound[a.asname or a.name] = f"{rel}:{a.name}"
    out: dict[str, str] = {}
    for key, func in _tests(tree):
        read: list[str] = []
        for seen in ast.walk(func):
            if isinstance(seen, ast.Attribute) and isinstance(seen.value, ast.Name):
                rel = bound.get(seen.value.id, "")
                if seen.attr in values.get(rel, ()):
                    read.append(f"{seen.value.id}.{seen.attr}")
            elif isinstance(seen, ast.Name) and ":" in bound.get(seen.id, ""):
                read.append(seen.id)
        if read and not _computes(func):
            out[key] = CONSTANTS_ONLY.format(names=", ".join(dict.fromkeys(read)))
    return out


def _computes(func: ast.AST) -> bool:
    """Whether the test calls anything beyond passive builtins: checking a table against an
    independent oracle (natsort's `unicodedata.numeric(c)` for each of its `numeric_chars`) or
    expecting an error (`pytest.raises`) is a real check, not a value pinned to a literal."""
    return any(
        isinstance(n, ast.Call) and not (isinstance(n.func, ast.Name) and n.func.id in PASSIVE)
        for n in ast.walk(func)
    )


def _tests(tree: ast.Module) -> list[tuple[str, ast.FunctionDef | ast.AsyncFunctionDef]]:
    found: list[tuple[str, ast.FunctionDef | ast.AsyncFunctionDef]] = []
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name.startswith(
            "test"
        ):
            found.append((node.name, node))
        elif isinstance(node, ast.ClassDef):
            found.extend(
                (f"{node.name}::{n.name}", n)
                for n in node.body
                if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)
                and n.name.startswith("test")
            )
    return found
