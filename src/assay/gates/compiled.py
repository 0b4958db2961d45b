"""The project's compiled code: extension modules (`.so`, `.pyd`) in the packages a test file's
targets belong to.

Gate 4 mutates Python source. wrapt 2.5.2 implements `FunctionWrapper` and its binding in C
(`src/wrapt/_wrappers.c`, built beside its Python fallback): `test_double_binding` runs no Python
line with a mutant and read "low value: reaches no mutant", though what it checks is the compiled
code's behaviour, out of gate 4's sight. Such a test gets a note that gate 4 cannot judge it.
"""

from __future__ import annotations

from pathlib import Path

SUFFIXES = (".so", ".pyd")
NAMED = 2  # files a note names before "and N more"


def compiled_modules(root: Path, targets: list[str]) -> list[str]:
    """Extension modules (paths relative to `root`) in the top-level packages of `targets`."""
    packages: set[Path] = set()
    for rel in targets:
        path = (root / rel).parent
        if not (path / "__init__.py").is_file():
            continue
        while (path.parent / "__init__.py").is_file() and path.parent != root:
            path = path.parent
        packages.add(path)
    return sorted(
        f.relative_to(root).as_posix()
        for package in packages
        for f in package.rglob("*")
        if f.suffix in SUFFIXES and f.is_file()
    )


def compiled_note(found: list[str]) -> str:
    named = ", ".join(found[:NAMED]) + (
        f" and {len(found) - NAMED} more" if len(found) > NAMED else ""
    )
    return (
        "gate 4 cannot judge it: none of the Python code it runs has a mutant, and the project's "
        f"compiled code ({named}), which gate 4 does not mutate, may be what it checks"
    )
