"""Tests a test file inherits from classes written in another module (a mixin in
`tests/__init__.py`, a base class in `tests/base.py`): found from the file's imports, judged where
they are written and reported under the name they run as in the inheriting file."""

from __future__ import annotations

import ast
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path, PurePosixPath

from assay.smells.context import Module, test_methods
from assay.smells.names import last_name
from assay.smells.testfunc import TestFunc


@dataclass(frozen=True)
class Inherited:
    """A test method of a base class in `module` that the test class `runs_in` of the analysed
    file inherits: its findings point into `module`, under the name `runs_in::method`."""

    test: TestFunc
    module: Module
    runs_in: str

    @property
    def name(self) -> str:
        return f"{self.runs_in}::{self.test.node.name}"


def _candidates(name: str, path: str) -> list[PurePosixPath]:
    """Project-relative files that may define the class `name` (`tests.Mixin`, `.base.Mixin`)
    imported by the test file at `path`: the package path from the project root, from `src/`, or
    from one of the test file's directories (pytest puts them on sys.path)."""
    module = name.rpartition(".")[0]
    here = PurePosixPath(path).parent
    if module.startswith("."):
        level = len(module) - len(module.lstrip("."))
        base = here
        for _ in range(level - 1):
            base = base.parent
        bases, rest = [base], module.lstrip(".")
    else:
        bases = [PurePosixPath("."), PurePosixPath("src"), here, *here.parents]
        rest = module
    if not rest and not module.startswith("."):
        return []
    parts = [p for p in rest.split(".") if p]
    out = []
    for b in dict.fromkeys(bases):
        stem = b.joinpath(*parts) if parts else b
        out += [stem.with_suffix(".py")] if parts else []
        out.append(stem / "__init__.py")
    return out


@lru_cache(maxsize=256)
def _module(file: Path, mtime_ns: int, size: int, rel: str) -> Module | None:
    try:
        source = file.read_bytes().decode("utf-8").removeprefix("\ufeff")
        return Module(ast.parse(source, filename=rel), rel, source.splitlines())
    except (OSError, UnicodeError, SyntaxError, ValueError, RecursionError, MemoryError):
        return None


def _load(root: Path, rel: PurePosixPath) -> Module | None:
    file = root / rel
    try:
        st = file.stat()
    except OSError:
        return None
    return _module(file, st.st_mtime_ns, st.st_size, rel.as_posix())


def _lineage(module: Module, name: str, seen: frozenset[str] = frozenset()) -> list[str]:
    """`name` and the classes of `module` it inherits from, nearest first."""
    cls = module.classes.get(name)
    if cls is None or name in seen:
        return []
    out = [name]
    for b in cls.bases:
        out += _lineage(module, last_name(ast.unparse(b)), seen | {name})
    return out


def written_in(module: Module, root: Path, dotted_name: str) -> Module | None:
    """The other project file that writes the class `dotted_name` (as `module` imports it)."""
    for rel in _candidates(dotted_name, module.path):
        other = _load(root, rel) if rel.as_posix() != module.path else None
        if other is not None and last_name(dotted_name) in other.classes:
            return other
    return None


def external_method(
    module: Module, root: Path, dotted_name: str, name: str
) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    """The method `name` of the class `dotted_name` (as `module` imports it) or of its bases,
    where that class is written in another project file; None when not found."""
    other = written_in(module, root, dotted_name)
    return other.method(other.classes[last_name(dotted_name)], name) if other else None


def holds_tests(module: Module, root: Path, dotted_name: str) -> bool | None:
    """Whether the class `dotted_name` (as the file imports it) or a base written beside it has
    `test*` methods or `runTest`: None when its source is not found in the project. A helper base
    such as Markdown's `markdown.test_tools.TestCase` holds none, so pytest collects nothing from it
    a second time."""
    name = last_name(dotted_name)
    for rel in _candidates(dotted_name, module.path):
        other = _load(root, rel)
        if other is None or name not in other.classes:
            continue
        return any(
            test_methods(other.classes[n])
            or any(
                isinstance(i, (ast.FunctionDef, ast.AsyncFunctionDef)) and i.name == "runTest"
                for i in other.classes[n].body
            )
            for n in _lineage(other, name)
        )
    return None


def inherited_tests(module: Module, root: Path) -> list[Inherited]:
    """The tests the test classes of `module` inherit from classes of other project files, less
    the ones they override."""
    out: list[Inherited] = []
    for cls, base in module.external_bases:
        own = {
            item.name
            for item in cls.body
            if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef))
        }
        for rel in _candidates(base, module.path):
            if rel.as_posix() == module.path:
                continue
            other = _load(root, rel)
            if other is None or last_name(base) not in other.classes:
                continue
            lineage = _lineage(other, last_name(base))
            for name in lineage:
                # a mixin's tests, whichever class of its module they were prepared under
                methods = {id(m) for m in test_methods(other.classes[name])}
                for test in other.tests:
                    if id(test.node) in methods and test.node.name not in own:
                        own.add(test.node.name)
                        out.append(Inherited(test, other, cls.name))
            break
    return out
