"""Where a name a test imports is defined: re-exports followed to the defining module.

Tests import the public face of a package (`from semver import Version`, `import toolz;
toolz.take(...)`), while the writer characterizes the module that defines the name
(`semver.version`). Read from the project's own modules (`ast` only): `from .mod import Name`
and `from .mod import *` in a package make `pkg.Name` stand for `pkg.mod.Name`.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from pathlib import Path

MAX_MODULES = 400  # modules read for re-exports
MAX_HOPS = 6


@dataclass
class Exports:
    """`pkg.Name` -> `pkg.mod.Name` for the names a module imports from another, star imports
    apart, and the names each module defines."""

    names: dict[str, str] = field(default_factory=dict)
    stars: dict[str, list[str]] = field(default_factory=dict)
    defines: dict[str, set[str]] = field(default_factory=dict)

    def canon(self, full: str, hops: int = 0) -> str:
        """The dotted name where `full` is defined, as far as the project's imports tell."""
        if hops > MAX_HOPS:
            return full
        parts = full.split(".")
        for i in range(len(parts), 0, -1):
            head = ".".join(parts[:i])
            if head in self.names and self.names[head] != head:
                return self.canon(".".join([self.names[head], *parts[i:]]), hops + 1)
        for i in range(len(parts) - 1, 0, -1):
            module, name = ".".join(parts[:i]), parts[i]
            if name in self.defines.get(module, ()):
                return full
            for source in self.stars.get(module, []):
                moved = ".".join([source, *parts[i:]])
                found = self.canon(moved, hops + 1)
                if found != moved or name in self.defines.get(source, ()):
                    return found
        return full


def read_exports(root: Path, modules: dict[str, str]) -> Exports:
    """The re-exports of the project's modules (dotted name -> project-relative path)."""
    out = Exports()
    for dotted, rel in list(modules.items())[:MAX_MODULES]:
        try:
            tree = ast.parse((root / rel).read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, SyntaxError, ValueError):
            continue
        package = dotted.split(".") if rel.endswith("__init__.py") else dotted.split(".")[:-1]
        defined = out.defines.setdefault(dotted, set())
        for node in tree.body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                defined.add(node.name)
            elif isinstance(node, ast.Assign):
                defined |= {t.id for t in node.targets if isinstance(t, ast.Name)}
            elif isinstance(node, ast.ImportFrom):
                source = node.module or ""
                if node.level:
                    base = package[: len(package) - node.level + 1]
                    source = ".".join([*base, source] if source else base)
                for a in node.names:
                    if a.name == "*":
                        out.stars.setdefault(dotted, []).append(source)
                    else:
                        out.names[f"{dotted}.{a.asname or a.name}"] = f"{source}.{a.name}"
    return out
