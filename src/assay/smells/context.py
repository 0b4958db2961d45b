"""The parsed test module as the rules see it: tests, imports, assertions, one walk per test.

Everything a rule needs is computed here once per file, so a rule is a cheap scan of prepared lists
(1,000 files must take well under 10 s).
"""

from __future__ import annotations

import ast
import re
from collections import defaultdict
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any, TypeVar, overload

from assay.smells.names import dotted, last_name

if TYPE_CHECKING:
    from assay.smells.index import TargetIndex

# Calls that assert by name: unittest's assert*, mock's assert_called*, numpy.testing, assertpy,
# pytest.fail/self.fail, and the common names of project helpers we cannot see (check_*,
# verify_* ...).
ASSERT_NAME = re.compile(
    r"^_*(assert|check|verify|expect|ensure|validate|compare|fail)([_A-Z0-9]|$)"
)
RAISES_CALLS = {"pytest.raises", "pytest.warns", "pytest.deprecated_call", "raises", "warns"}
UNARY_ASSERTS = {
    "assertTrue",
    "assertFalse",
    "assertIsNone",
    "assertIsNotNone",
    "assert_",
    "failUnless",
    "failIf",
}
TEST_CLASS_BASES = re.compile(r"(TestCase|Test|Tests)$")

_N = TypeVar("_N", bound=ast.AST)
_M = TypeVar("_M", bound=ast.AST)


def is_empty(body: list[ast.stmt]) -> bool:
    """Only `pass`, `...` or strings: a body that does nothing."""
    return all(
        isinstance(s, ast.Pass) or (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))
        for s in body
    )


def same(a: ast.AST, b: ast.AST) -> bool:
    return type(a) is type(b) and ast.dump(a) == ast.dump(b)


@dataclass
class Assertion:
    """One check in a test. `subjects` are the compared expressions (both sides of an equality,
    the single operand of assertTrue ...), empty for raises/mock/helper checks."""

    node: ast.AST
    kind: str  # "assert" | "method" | "raises" | "helper" | "raise"
    name: str = ""
    has_msg: bool = False
    expr: ast.AST | None = None  # the checked expression, as an `assert` would state it


@dataclass
class TestFunc:
    node: ast.FunctionDef | ast.AsyncFunctionDef
    cls: ast.ClassDef | None
    module: Module
    nodes: list[ast.AST] = field(default_factory=list)
    by_type: dict[type, list[ast.AST]] = field(default_factory=lambda: defaultdict(list))
    parents: dict[int, ast.AST] = field(default_factory=dict)
    calls: list[tuple[ast.Call, str | None]] = field(default_factory=list)

    @property
    def name(self) -> str:
        return f"{self.cls.name}::{self.node.name}" if self.cls else self.node.name

    @property
    def body(self) -> list[ast.stmt]:
        body = self.node.body
        if (
            body
            and isinstance(body[0], ast.Expr)
            and isinstance(body[0].value, ast.Constant)
            and isinstance(body[0].value.value, str)
        ):
            body = body[1:]
        return body

    @cached_property
    def generated(self) -> bool:
        """Marked `@pytest.mark.assay_generated` (the test, its class, or the
        module's `pytestmark`)."""
        m = self.module
        if m.generated:
            return True
        owners = [self.node, *([self.cls] if self.cls else [])]
        marks = [d for o in owners for d in o.decorator_list]
        if self.cls:
            marks += [
                s.value
                for s in self.cls.body
                if isinstance(s, ast.Assign) and _names(s) == ["pytestmark"]
            ]
        return any(m.marks_generated(e) for e in marks)

    @property
    def params(self) -> list[str]:
        a = self.node.args
        return [x.arg for x in (*a.posonlyargs, *a.args, *a.kwonlyargs)]

    @overload
    def of(self, t: type[_N], /) -> list[_N]: ...

    @overload
    def of(self, t1: type[_N], t2: type[_M], /) -> list[_N | _M]: ...

    @overload
    def of(self, *types: type[ast.AST]) -> list[ast.AST]: ...

    def of(self, *types: type[ast.AST]) -> list[Any]:
        """The test's nodes of the given types (each list in source order for a single type)."""
        if len(types) == 1:
            return self.by_type.get(types[0], [])
        return [n for t in types for n in self.by_type.get(t, [])]

    def ancestors(self, node: ast.AST) -> Iterator[ast.AST]:
        p = self.parents.get(id(node))
        while p is not None and p is not self.node:
            yield p
            p = self.parents.get(id(p))

    @cached_property
    def assertions(self) -> list[Assertion]:
        return (
            [a for a in (self.module.classify(self, c, n) for c, n in self.calls) if a]
            + [
                Assertion(n, "assert", has_msg=n.msg is not None, expr=n.test)
                for n in self.of(ast.Assert)
            ]
            + [Assertion(n, "raise") for n in self.of(ast.Raise)]
        )

    @cached_property
    def assigned(self) -> dict[str, list[ast.AST | None]]:
        """Local name -> the values assigned to it in the test (for following `expected = f(x)`);
        None for a bare annotation (`x: int`)."""
        out: dict[str, list[ast.AST | None]] = defaultdict(list)
        for node in self.of(
            ast.Assign, ast.AnnAssign, ast.AugAssign, ast.For, ast.With, ast.NamedExpr
        ):
            targets: Sequence[ast.expr]
            value: ast.AST | None
            if isinstance(node, ast.Assign):
                targets, value = node.targets, node.value
            elif isinstance(node, (ast.AnnAssign, ast.AugAssign, ast.NamedExpr)):
                targets, value = [node.target], node.value
                if isinstance(node, ast.AugAssign):
                    value = node  # a changed value: never a plain copy
            elif isinstance(node, ast.For):
                targets, value = [node.target], node  # loop variables are not plain copies
            elif isinstance(node, ast.With):
                targets = [i.optional_vars for i in node.items if i.optional_vars is not None]
                value = node
            else:  # not reached: `of` returns only the types asked for
                continue
            for t in targets:
                for n in ast.walk(t):
                    if isinstance(n, ast.Name):
                        out[n.id].append(value if isinstance(t, ast.Name) else t)
        return out


def _names(assign: ast.Assign) -> list[str]:
    return [t.id for t in assign.targets if isinstance(t, ast.Name)]


def _statements(body: list[ast.stmt]) -> Iterator[ast.stmt]:
    """Every statement, nested ones included, without descending into expressions (cheap)."""
    stack = list(body)
    while stack:
        node = stack.pop()
        yield node
        for name in ("body", "orelse", "finalbody", "handlers", "cases"):
            stack.extend(getattr(node, name, ()))


class Module:
    """One test file: its tree, imports, helpers and tests."""

    def __init__(self, tree: ast.Module, path: str, lines: list[str]):
        self.tree, self.path, self.lines = tree, path, lines
        self.aliases: dict[str, str] = {}
        self.functions: dict[str, ast.FunctionDef | ast.AsyncFunctionDef] = {}
        self.classes: dict[str, ast.ClassDef] = {}
        self._asserting: dict[int, bool] = {}
        self.targets: TargetIndex | None = None  # set by analyze() when target sources are known
        self.memo: dict[tuple[str, int], object] = {}  # results shared by several rules, per test
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

    def _find_tests(
        self,
    ) -> Iterator[tuple[ast.FunctionDef | ast.AsyncFunctionDef, ast.ClassDef | None]]:
        for node in self.tree.body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name.startswith(
                "test"
            ):
                yield node, None
            elif isinstance(node, ast.ClassDef) and self._is_test_class(node):
                for item in node.body:
                    if isinstance(
                        item, (ast.FunctionDef, ast.AsyncFunctionDef)
                    ) and item.name.startswith("test"):
                        yield item, node

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
        text = "\n".join(self.lines)
        return any(
            s in text for s in (".seed(", "seed=", "freeze_time", "freezegun", "time_machine")
        )

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

    def method(
        self, cls: ast.ClassDef | None, name: str, seen: frozenset[str] = frozenset()
    ) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
        """A method of a test class or of its bases defined in this file."""
        if cls is None:
            return None
        for item in cls.body:
            if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) and item.name == name:
                return item
        for b in cls.bases:
            base = last_name(dotted(b, self.aliases))
            if base in self.classes and base not in seen:
                found = self.method(self.classes[base], name, seen | {base})
                if found:
                    return found
        return None

    def _helper(
        self, call: ast.Call, name: str | None, cls: ast.ClassDef | None
    ) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
        func = call.func
        if isinstance(func, ast.Name):
            return self.functions.get(func.id)
        if (
            isinstance(func, ast.Attribute)
            and isinstance(func.value, ast.Name)
            and func.value.id in ("self", "cls")
        ):
            return self.method(cls, func.attr)
        return None

    def asserts_inside(self, fn: ast.AST, cls: ast.ClassDef | None, depth: int = 0) -> bool:
        """Whether a helper of this file asserts, directly or through helpers it calls
        (3 levels)."""
        key = id(fn)
        if key in self._asserting:
            return self._asserting[key]
        self._asserting[key] = False  # recursion guard
        found = False
        for node in ast.walk(fn):
            if isinstance(node, (ast.Assert, ast.Raise)):
                found = True
            elif isinstance(node, ast.Call):
                name = dotted(node.func, self.aliases)
                if ASSERT_NAME.match(last_name(name)) or name in RAISES_CALLS:
                    found = True
                elif depth < 3:
                    helper = self._helper(node, name, cls)
                    found = (
                        helper is not None
                        and helper is not fn
                        and self.asserts_inside(helper, cls, depth + 1)
                    )
            if found:
                break
        self._asserting[key] = found
        return found

    def classify(self, test: TestFunc, call: ast.Call, name: str | None) -> Assertion | None:
        """The assertion a call makes, or None when the call is not a check."""
        short = call.func.attr if isinstance(call.func, ast.Attribute) else last_name(name)
        if name in RAISES_CALLS or short in (
            "assertRaises",
            "assertRaisesRegex",
            "assertWarns",
            "assertLogs",
        ):
            return Assertion(call, "raises", short)
        if ASSERT_NAME.match(short):
            if short.startswith(
                (
                    "assert_called",
                    "assert_not_called",
                    "assert_any_call",
                    "assert_has_calls",
                    "assert_awaited",
                )
            ):
                return Assertion(call, "method", short, has_msg=True)
            return Assertion(
                call,
                "method",
                short,
                has_msg=self._has_msg(call, short),
                expr=self._expr(call, short),
            )
        helper = self._helper(call, name, test.cls)
        if helper is not None and self.asserts_inside(helper, test.cls):
            return Assertion(call, "helper", short, has_msg=True)
        return None

    @staticmethod
    def _has_msg(call: ast.Call, short: str) -> bool:
        if any(k.arg == "msg" for k in call.keywords):
            return True
        if not short.startswith("assert") or short.startswith("assert_"):
            return True  # helpers and library asserts (numpy ...) report their own context
        return len(call.args) > (1 if short in UNARY_ASSERTS else 2)

    @staticmethod
    def _expr(call: ast.Call, short: str) -> ast.AST | None:
        """unittest asserts as the `assert` expression they stand for (for the
        tautology/weak rules)."""
        a = call.args
        ops = {
            "assertEqual": ast.Eq,
            "assertEquals": ast.Eq,
            "assertNotEqual": ast.NotEq,
            "assertIs": ast.Is,
            "assertIsNot": ast.IsNot,
            "assertIn": ast.In,
            "assertNotIn": ast.NotIn,
            "assertGreater": ast.Gt,
            "assertLess": ast.Lt,
            "assertGreaterEqual": ast.GtE,
            "assertLessEqual": ast.LtE,
            "assertAlmostEqual": ast.Eq,
            "assertCountEqual": ast.Eq,
            "assertListEqual": ast.Eq,
            "assertDictEqual": ast.Eq,
            "assertSequenceEqual": ast.Eq,
            "assertTupleEqual": ast.Eq,
            "assertSetEqual": ast.Eq,
            "assert_equal": ast.Eq,
        }
        if short in ops and len(a) >= 2:
            return ast.Compare(left=a[0], ops=[ops[short]()], comparators=[a[1]])
        if short in ("assertTrue", "assert_") and a:
            return a[0]
        if short == "assertIsNotNone" and a:
            return ast.Compare(left=a[0], ops=[ast.IsNot()], comparators=[ast.Constant(None)])
        if short == "assertIsInstance" and len(a) >= 2:
            return ast.Call(func=ast.Name("isinstance"), args=a[:2], keywords=[])
        return None

    def suppressed(self, line: int, rule_id: str) -> bool:
        if not 0 < line <= len(self.lines):
            return False
        m = SUPPRESS.search(self.lines[line - 1])
        if not m:
            return False
        ids = m.group(1)
        return ids is None or rule_id in {s.strip() for s in ids.split(",")}


SUPPRESS = re.compile(r"#\s*assay:\s*ignore(?:\[([A-Z0-9,\s]+)\])?")
