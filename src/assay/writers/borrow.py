"""Tables of the project's own tests that an answer uses and never defines. A small model shown a
sample test `@pytest.mark.parametrize(("number", "ordinalized"), ORDINAL_NUMBERS)` writes tests fed
by `ORDINAL_NUMBERS` too, without its definition (the prompt cuts a long table); the whole test was
then lost at collection, and the model, told the name is unbound, resent the same file. The table
is the project's own data: its definition is copied into the file, as a person copying the sample
would. Only literal values are copied (`ast.literal_eval` reads them), so nothing runs that the
project's tests did not already hold as plain data."""

from __future__ import annotations

import ast
from pathlib import Path

from assay.writers.imports import import_end, unbound_reads


def literal_tables(paths: list[Path]) -> dict[str, str]:
    """name -> its definition's source, for each top-level `NAME = <literal>` of the test files
    (the first file that defines a name wins)."""
    out: dict[str, str] = {}
    for path in paths:
        try:
            source = path.read_text(encoding="utf-8")
            tree = ast.parse(source)
        except (OSError, UnicodeDecodeError, SyntaxError, ValueError):
            continue
        lines = source.splitlines()
        for node in tree.body:
            target = _single_name(node)
            if not isinstance(node, ast.Assign | ast.AnnAssign) or node.value is None:
                continue
            if target is None or target in out:
                continue
            try:
                ast.literal_eval(node.value)
            except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
                continue
            out[target] = "\n".join(lines[node.lineno - 1 : node.end_lineno or node.lineno])
    return out


def _single_name(node: ast.stmt) -> str | None:
    if isinstance(node, ast.Assign) and len(node.targets) == 1:
        target = node.targets[0]
    elif isinstance(node, ast.AnnAssign) and node.simple:
        target = node.target
    else:
        return None
    return target.id if isinstance(target, ast.Name) else None


def borrow_constants(code: str, constants: dict[str, str]) -> tuple[str, list[str]]:
    """`code` with the definition of each name of `constants` it reads and binds nowhere, placed
    after its imports; and those names. Unchanged when it does not parse or needs none."""
    tree, missing = unbound_reads(code, constants)
    if tree is None or not missing:
        return code, []
    lines = code.splitlines()
    at = import_end(tree)
    block = ["", "", *(constants[n] for n in missing), ""]
    lines[at:at] = block if at else block[2:] + ["", ""]
    return "\n".join(lines).rstrip("\n") + "\n", missing
