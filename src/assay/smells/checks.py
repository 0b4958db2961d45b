"""Which calls of a test are checks (asserts, raises contexts, mock verifications, helpers that
assert): the half of a parsed test module that classifies calls, kept apart from parsing."""

from __future__ import annotations

import ast
import builtins
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from assay.smells.names import dotted, last_name

if TYPE_CHECKING:
    from assay.smells.testfunc import TestFunc

# Calls that assert by name: unittest's assert*, mock's assert_called*, numpy.testing, assertpy,
# pytest.fail/self.fail, the common names of project helpers we cannot see (check_*,
# verify_* ...), and a test routine of another file run with other inputs (idna's codec tests
# call `test_idna.IDNATests().test_decode(decode=...)`).
ASSERT_NAME = re.compile(
    r"^_*(assert|check|verify|expect|ensure|validate|compare|fail|test)([_A-Z0-9]|$)"
)
BUILTINS = frozenset(dir(builtins))


def raises_call(name: str | None) -> bool:
    """pytest's raises/warns/deprecated_call, or a `raises`/`warns` of any other module
    (voluptuous exports one that asserts the message: its tests' `with raises(Invalid, "..."):`
    were "no assertion")."""
    return name == "pytest.deprecated_call" or last_name(name) in ("raises", "warns")


UNARY_ASSERTS = {
    "assertTrue",
    "assertFalse",
    "assertIsNone",
    "assertIsNotNone",
    "assert_",
    "failUnless",
    "failIf",
}

# codecs that cannot encode every character: `text.encode("ascii")` raises on any other
NARROW_CODECS = {"ascii", "us-ascii", "latin-1", "latin1", "iso-8859-1", "iso8859-1"}


def _strict_narrow_encode(call: ast.Call) -> bool:
    """`s.encode("ascii")`: a check that the text is ASCII (it raises UnicodeEncodeError
    otherwise), as Unidecode's `test_all_to_ascii` states it; not with `errors=` other than
    "strict", nor to a codec that encodes everything (utf-8)."""
    keywords = {k.arg: k.value for k in call.keywords}
    codec = call.args[0] if call.args else keywords.get("encoding")
    errors = call.args[1] if len(call.args) > 1 else keywords.get("errors")
    return (
        isinstance(codec, ast.Constant)
        and isinstance(codec.value, str)
        and codec.value.lower().replace("_", "-") in NARROW_CODECS
        and (errors is None or isinstance(errors, ast.Constant) and errors.value == "strict")
    )


@dataclass
class Assertion:
    """One check in a test. `subjects` are the compared expressions (both sides of an equality,
    the single operand of assertTrue ...), empty for raises/mock/helper checks."""

    node: ast.AST
    kind: str  # "assert" | "method" | "raises" | "helper" | "raise" | "encode"
    name: str = ""
    has_msg: bool = False
    expr: ast.AST | None = None  # the checked expression, as an `assert` would state it


class CheckFinder:
    """The methods of a `Module` that tell checks from other calls, following the file's helpers."""

    aliases: dict[str, str]
    functions: dict[str, ast.FunctionDef | ast.AsyncFunctionDef]
    classes: dict[str, ast.ClassDef]
    _asserting: dict[int, bool]
    # (a base class as the file imports it, a method name) -> that method where the class is
    # written in another project file (`mixins.external_method`), when the project is known
    outside: Callable[[str, str], ast.FunctionDef | ast.AsyncFunctionDef | None] | None = None

    def method(
        self, cls: ast.ClassDef | None, name: str, seen: frozenset[str] = frozenset()
    ) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
        """A method of a test class or of its bases, defined in this file or, for a base imported
        from another project file (nameparser's `tests.base.HumanNameTestBase`, whose `m` asserts:
        40 tests of a file were "no assertion"), there."""
        if cls is None:
            return None
        for item in cls.body:
            if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) and item.name == name:
                return item
        for b in cls.bases:
            full = dotted(b, self.aliases) or ""
            base = last_name(full)
            if base in self.classes and base not in seen:
                found = self.method(self.classes[base], name, seen | {base})
            elif base not in self.classes and self.outside is not None and "." in full:
                found = self.outside(full, name)
            else:
                found = None
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
                if ASSERT_NAME.match(last_name(name)) or raises_call(name):
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
        if raises_call(name) or short in (
            "assertRaises",
            "assertRaisesRegex",
            "assertWarns",
            "assertLogs",
        ):
            return Assertion(call, "raises", short)
        if short == "encode" and _strict_narrow_encode(call):
            return Assertion(call, "encode", short, has_msg=True)
        helper = self._helper(call, name, test.cls)
        if ASSERT_NAME.match(short) and not (
            helper is not None
            and self.visible(helper)
            and not self.asserts_inside(helper, test.cls)
        ):
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
        if helper is not None and self.asserts_inside(helper, test.cls):
            return Assertion(call, "helper", short, has_msg=True)
        return None

    def visible(self, fn: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
        """All of a helper's code is in this file: it calls only builtins and functions defined
        here. Whether it checks anything is then read from its code; a name like `check_total`
        counts only for a helper that hands its work to code we cannot see."""
        for node in ast.walk(fn):
            if isinstance(node, ast.Call):
                if not isinstance(node.func, ast.Name):
                    return False
                if node.func.id not in self.functions and node.func.id not in BUILTINS:
                    return False
        return True

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
