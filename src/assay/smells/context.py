"""The parsed test module as the rules see it: tests, imports, assertions, one walk per test.

Everything a rule needs is computed here once per file, so a rule is a cheap scan of prepared lists
(1,000 files must take well under 10 s).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from functools import cached_property
from typing import TYPE_CHECKING

from assay.smells.checks import CheckFinder
from assay.smells.names import dotted, last_name
from assay.smells.testfunc import TestFunc, _names

if TYPE_CHECKING:
    from pathlib import Path

    from assay.smells.index import TargetIndex

TEST_CLASS_BASES = re.compile(r"(TestCase|Test|Tests)$")


def seeds(text: str) -> bool:
    """Source text that seeds randomness or freezes time (`random.seed(`, `default_rng(seed=`,
    freezegun, time-machine)."""
    return any(s in text for s in (".seed(", "seed=", "freeze_time", "freezegun", "time_machine"))


def is_empty(body: list[ast.stmt]) -> bool:
    """Only `pass`, `...` or strings: a body that does nothing."""
    return all(
        isinstance(s, ast.Pass) or (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))
        for s in body
    )


def is_fixture(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """Decorated as a fixture (`pytest.fixture`, `fixture(scope=...)`, `pytest_asyncio.fixture`):
    pytest never runs it as a test, whatever its name (configobj's `testconfig1`)."""
    for deco in fn.decorator_list:
        target = deco.func if isinstance(deco, ast.Call) else deco
        name = (
            target.attr
            if isinstance(target, ast.Attribute)
            else target.id
            if isinstance(target, ast.Name)
            else ""
        )
        if name in ("fixture", "yield_fixture"):
            return True
    return False


def test_methods(cls: ast.ClassDef) -> list[ast.FunctionDef | ast.AsyncFunctionDef]:
    """A class's `test*` methods: whatever the class's name, a mixin or base class holds tests
    that run in the test classes inheriting it."""
    return [
        item
        for item in cls.body
        if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef))
        and item.name.startswith("test")
        and not is_fixture(item)
    ]


def same(a: ast.AST, b: ast.AST) -> bool:
    return type(a) is type(b) and ast.dump(a) == ast.dump(b)


def _statements(body: list[ast.stmt]) -> Iterator[ast.stmt]:
    """Every statement, nested ones included, without descending into expressions (cheap)."""
    stack = list(body)
    while stack:
        node = stack.pop()
        yield node
        for name in ("body", "orelse", "finalbody", "handlers", "cases"):
            stack.extend(getattr(node, name, ()))


class Module(CheckFinder):
    """One test file: its tree, imports, helpers and tests."""

    def __init__(self, tree: ast.Module, path: str, lines: list[str]):
        self.tree, self.path, self.lines = tree, path, lines
        self.aliases: dict[str, str] = {}
        self.functions: dict[str, ast.FunctionDef | ast.AsyncFunctionDef] = {}
        self.classes: dict[str, ast.ClassDef] = {}
        self._asserting: dict[int, bool] = {}
        self.targets: TargetIndex | None = None  # set by analyze() when target sources are known
        self.root: Path | None = None  # the project's root, set by analyze() when known
        self.memo: dict[
            tuple[object, ...], object
        ] = {}  # results shared by several rules, per test
        self._imports: list[ast.stmt] = []
        for node in _statements(tree.body):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                self._imports.append(node)
            if isinstance(node, ast.Import):
                for a in node.names:
                    if a.asname:
                        self.aliases[a.asname] = a.name
            elif isinstance(node, ast.ImportFrom):
                base = "." * node.level + (node.module or "")
                for a in node.names:
                    self.aliases[a.asname or a.name] = f"{base}.{a.name}" if base else a.name
        for node in tree.body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                self.functions[node.name] = node
            elif isinstance(node, ast.ClassDef):
                self.classes[node.name] = node
        self.constants: dict[str, ast.expr] = {}  # module-level NAME = value, assigned once
        assigned: set[str] = set()
        for node in tree.body:
            if isinstance(node, ast.Assign):
                for name in _names(node):
                    if name in assigned:
                        self.constants.pop(name, None)
                    elif len(node.targets) == 1:
                        self.constants[name] = node.value
                    assigned.add(name)
        mark = self.constants.get("pytestmark")
        self.generated = mark is not None and self.marks_generated(mark)
        self.tests = [self._prepare(fn, cls) for fn, cls in self._find_tests()]

    def marks_generated(self, expr: ast.AST) -> bool:
        """A decorator or `pytestmark` value that includes the `assay_generated` mark."""
        return any(
            isinstance(n, (ast.Attribute, ast.Name))
            and last_name(dotted(n, self.aliases)) == "assay_generated"
            for n in ast.walk(expr)
        )

    def _is_test_class(self, cls: ast.ClassDef, seen: frozenset[str] = frozenset()) -> bool:
        if cls.name.startswith("Test"):
            return True
        for b in cls.bases:
            name = last_name(dotted(b, self.aliases))
            if TEST_CLASS_BASES.search(name):
                return True
            if (
                name in self.classes
                and name not in seen
                and self._is_test_class(self.classes[name], seen | {name})
            ):
                return True
        return False

    @cached_property
    def external_bases(self) -> list[tuple[ast.ClassDef, str]]:
        """(test class, dotted name of a base imported from another module): the tests such a
        class inherits run in this file although they are written elsewhere (a mixin in
        `tests/__init__.py`). unittest's own TestCase classes hold no tests and are left out."""
        out = []
        for cls in self.classes.values():
            if not self._is_test_class(cls):
                continue
            for b in cls.bases:
                name = dotted(b, self.aliases)
                if (
                    name
                    and last_name(name) not in self.classes
                    and not name.startswith("unittest.")
                    and name not in ("object", "TestCase")
                ):
                    out.append((cls, name))
        return out

    def _mixins(self, cls: ast.ClassDef, seen: frozenset[str] = frozenset()) -> list[ast.ClassDef]:
        """The classes of this file that `cls` inherits from and that are no test classes
        themselves (pytest does not collect them): their tests run as tests of `cls`."""
        out = []
        for b in cls.bases:
            name = last_name(dotted(b, self.aliases))
            base = self.classes.get(name)
            if base is None or name in seen or self._is_test_class(base):
                continue
            out += [base, *self._mixins(base, seen | {name, cls.name})]
        return out

    def _find_tests(
        self,
    ) -> Iterator[tuple[ast.FunctionDef | ast.AsyncFunctionDef, ast.ClassDef | None]]:
        """Test functions, and test methods under the class they run as: a mixin's of this file
        under each test class that inherits it (unless overridden), a mixin that no class here
        inherits (one in `tests/__init__.py`) under its own name."""
        inherited: set[str] = set()
        for node in self.tree.body:
            if (
                isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
                and node.name.startswith("test")
                and not is_fixture(node)
            ):
                yield node, None
            elif isinstance(node, ast.ClassDef) and self._is_test_class(node):
                own = {
                    i.name
                    for i in node.body
                    if isinstance(i, ast.FunctionDef | ast.AsyncFunctionDef)
                }
                yield from ((m, node) for m in test_methods(node))
                for mixin in self._mixins(node):
                    inherited.add(mixin.name)
                    for m in test_methods(mixin):
                        if m.name not in own:
                            own.add(m.name)
                            yield m, node
        for node in self.tree.body:
            if (
                isinstance(node, ast.ClassDef)
                and node.name not in inherited
                and not self._is_test_class(node)
            ):
                yield from ((m, node) for m in test_methods(node))

    def _prepare(
        self, fn: ast.FunctionDef | ast.AsyncFunctionDef, cls: ast.ClassDef | None
    ) -> TestFunc:
        t = TestFunc(fn, cls, self)
        nodes, parents, by_type = t.nodes, t.parents, t.by_type
        stack: list[tuple[ast.AST, ast.AST]] = [(s, fn) for s in reversed(fn.body)]
        # pre-order, children in source order, so every list comes out sorted by position
        while stack:
            node, parent = stack.pop()
            nodes.append(node)
            parents[id(node)] = parent
            by_type[type(node)].append(node)
            children = []
            for name in node._fields:
                if name == "ctx":  # Load/Store markers: many nodes, no information for any rule
                    continue
                value = getattr(node, name, None)
                if isinstance(value, list):
                    children += [(c, node) for c in value if isinstance(c, ast.AST)]
                elif isinstance(value, ast.AST):
                    children.append((value, node))
            stack += reversed(children)
        t.calls = [(c, dotted(c.func, self.aliases)) for c in t.of(ast.Call)]
        return t

    def imports_source(self) -> str:
        """The file's import statements (nested ones too) as source, in order."""
        return "\n".join(ast.unparse(n) for n in sorted(self._imports, key=lambda n: n.lineno))

    @cached_property
    def seeded(self) -> bool:
        """The file seeds its randomness or freezes time somewhere (a fixture, setUp ...)."""
        return seeds("\n".join(self.lines))

    @cached_property
    def duplicates(self) -> dict[int, str]:
        """id(test node) -> name of an earlier test of the same class with the same decorators
        and body."""
        first: dict[tuple[str, str], str] = {}
        found: dict[int, str] = {}
        for t in self.tests:
            if is_empty(t.body):
                continue
            key = (
                t.cls.name if t.cls else "",
                self._code(
                    t.node.decorator_list[0] if t.node.decorator_list else t.node,
                    t.node.body[-1],
                    skip=t.node.lineno,
                ),
            )
            if key in first:
                found[id(t.node)] = first[key]
            else:
                first[key] = t.node.name
        return found

    def _code(self, first: ast.expr | ast.stmt, last: ast.stmt, skip: int) -> str:
        """The source lines from `first` to `last`, blank and comment lines dropped, indentation
        and the `def` line's name left out: equal for two tests that differ only in name, comments
        or layout."""
        out = []
        for n in range(first.lineno, (last.end_lineno or last.lineno) + 1):
            line = self.lines[n - 1]
            code, hashmark, _ = line.partition("#")
            line = (code if hashmark and "'" not in code and '"' not in code else line).strip()
            if n == skip:
                line = line.split("(", 1)[-1]
            if line and not line.startswith("#"):
                out.append(line)
        return "\n".join(out)

    def suppressed(self, line: int, rule_id: str) -> bool:
        if not 0 < line <= len(self.lines):
            return False
        m = SUPPRESS.search(self.lines[line - 1])
        if not m:
            return False
        ids = m.group(1)
        return ids is None or rule_id in {s.strip() for s in ids.split(",")}


SUPPRESS = re.compile(r"#\s*assay:\s*ignore(?:\[([A-Z0-9,\s]+)\])?")
