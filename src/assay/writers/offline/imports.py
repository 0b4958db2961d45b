"""The import block of a rendered test file: the names its tests use, grouped stdlib, third
party, first party, with no name bound twice to different things."""

from __future__ import annotations

import ast
import sys


def bound_names(line: str) -> dict[str, str]:
    """Names an import line (or a helper's def) binds -> what they stand for."""
    node = ast.parse(line).body[0]
    if isinstance(node, ast.FunctionDef):
        return {node.name: "def:" + line}
    if isinstance(node, ast.Import):
        return {
            (a.asname or a.name.split(".")[0]): (a.name if a.asname else a.name.split(".")[0])
            for a in node.names
        }
    assert isinstance(node, ast.ImportFrom)
    return {(a.asname or a.name): f"{node.module}.{a.name}" for a in node.names}


class FileImports:
    def __init__(self) -> None:
        self.names: dict[str, str] = {}
        self.lines: list[str] = []

    def fits(self, lines: list[str]) -> bool:
        return all(
            self.names.get(n, what) == what
            for line in lines
            for n, what in bound_names(line).items()
        )

    def add(self, lines: list[str]) -> None:
        for line in lines:
            self.names.update(bound_names(line))
            if line not in self.lines:
                self.lines.append(line)

    def helpers(self, used: set[str]) -> list[str]:
        """The test files' helper functions the tests use, as they were written."""
        return [
            line for line in self.lines if line.startswith("def ") and set(bound_names(line)) & used
        ]

    def header(self, first_party: set[str], used: set[str]) -> str:
        """The import block (stdlib, third party, first party), without names the tests do
        not use."""
        froms: dict[str, list[str]] = {}
        plain: list[str] = []
        for line in self.lines:
            if not set(bound_names(line)) & used or line.startswith("def "):
                continue
            node = ast.parse(line).body[0]
            if isinstance(node, ast.ImportFrom):
                froms.setdefault(node.module or "", []).extend(
                    a.name + (f" as {a.asname}" if a.asname else "") for a in node.names
                )
            else:
                plain.append(line)
        entries = [(line.split()[1].split(".")[0], line) for line in plain]
        entries += [
            (mod.split(".")[0], f"from {mod} import {', '.join(sorted(set(names)))}")
            for mod, names in froms.items()
        ]

        def group(top: str) -> int:
            return 2 if top in first_party else 0 if top in sys.stdlib_module_names else 1

        blocks = []
        for g in (0, 1, 2):
            lines = sorted(
                (line for top, line in entries if group(top) == g),
                key=lambda s: (s.startswith("from "), s),
            )
            if lines:
                blocks.append("\n".join(lines))
        return "\n\n".join(blocks)
