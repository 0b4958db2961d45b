"""Test-diff integrity for Python test files: the old and the new text of each changed test file
compared by `ast`, test by test, for edits that weaken what the tests check (rules in
`assay.diff.rules`)."""

from __future__ import annotations

import ast
import contextlib
import difflib
from dataclasses import dataclass
from pathlib import Path

from assay.diff.changes import ChangeSet, Kind
from assay.diff.rules import IntegrityFinding
from assay.project import Project, is_test_file
from assay.project.discovery import is_test_path

SKIPS = {"skip", "skipif", "xfail", "skipIf", "skipUnless", "expectedFailure"}
SKIP_CALLS = {"skip", "xfail", "skipTest"}
APPROX = {"approx", "isclose", "assertAlmostEqual", "assertAlmostEquals"}
WIDE = {"Exception", "BaseException"}
EXACT_METHODS = {"assertEqual", "assertEquals", "assertIs", "assertListEqual", "assertDictEqual"}
LOOSE_METHODS = {
    "assertTrue",
    "assertIsNotNone",
    "assertIn",
    "assertAlmostEqual",
    "assertGreater",
    "assertGreaterEqual",
    "assertLess",
    "assertLessEqual",
}


@dataclass(frozen=True)
class Check:
    """One assertion of a test: an `assert`, a `pytest.raises` block, a `self.assert*` call."""

    node: ast.AST
    line: int
    text: str


def changed_code(project: Project, changes: ChangeSet) -> set[str]:
    """Changed Python files that are code, not tests."""
    return {p for p in changes.files if p.endswith(".py") and not is_test_path(Path(p))} | {
        c.old_path
        for c in changes.files.values()
        if c.old_path and c.old_path in project.modules.values()
    }


def covered(project: Project, source: str, rel: str) -> set[str]:
    """The project modules a test file imports, transitively (what its tests can reach)."""
    seen: set[str] = set()
    todo = project.targets_of(source, rel)
    while todo:
        mod = todo.pop()
        if mod in seen:
            continue
        seen.add(mod)
        with contextlib.suppress(OSError, UnicodeDecodeError):
            todo.extend(project.targets_of((project.root / mod).read_text(encoding="utf-8"), mod))
    return seen


def integrity(project: Project, changes: ChangeSet) -> list[IntegrityFinding]:
    """Every weakening edit of a Python test file in `changes`; `reject` where the code the test
    file imports changed in the same diff, else `warn`."""
    code = changed_code(project, changes)
    out: list[IntegrityFinding] = []
    for path, change in sorted(changes.files.items()):
        if not is_test_file(Path(path).name) or change.kind in (Kind.ADDED, Kind.UNTRACKED):
            continue
        old = changes.old_text(change)
        if old is None:
            continue
        new = changes.new_text(change) or ""
        reach = covered(project, old, change.old_path or path) | covered(project, new, path)
        out += compare(path, old, new, bool(reach & code))
    return out


def tests_of(tree: ast.Module) -> dict[str, tuple[ast.FunctionDef | ast.AsyncFunctionDef, list]]:
    """Test functions by id (`Class::test_x`), each with the decorators around it (its class's)."""
    out: dict[str, tuple[ast.FunctionDef | ast.AsyncFunctionDef, list]] = {}
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name.startswith(
            "test"
        ):
            out[node.name] = (node, list(node.decorator_list))
        elif isinstance(node, ast.ClassDef) and node.name.startswith("Test"):
            for item in node.body:
                if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) and (
                    item.name.startswith("test")
                ):
                    out[f"{node.name}::{item.name}"] = (
                        item,
                        [*node.decorator_list, *item.decorator_list],
                    )
    return out


def _name(node: ast.AST) -> str:
    """The last name of a callee or decorator (`pytest.mark.skip(...)` -> `skip`)."""
    if isinstance(node, ast.Call):
        node = node.func
    if isinstance(node, ast.Attribute):
        return node.attr
    return node.id if isinstance(node, ast.Name) else ""


def skipped(fn: ast.AST, decorators: list) -> str | None:
    """The text that skips or xfails the test, if any."""
    for d in decorators:
        if _name(d) in SKIPS:
            return "@" + ast.unparse(d)
    for stmt in getattr(fn, "body", []):
        if isinstance(stmt, ast.Expr) and _name(stmt.value) in SKIP_CALLS:
            return ast.unparse(stmt)
    return None


def checks(fn: ast.AST) -> list[Check]:
    out = []
    for node in ast.walk(fn):
        if isinstance(node, ast.Assert):
            out.append(Check(node, node.lineno, ast.unparse(node)))
        elif isinstance(node, (ast.With, ast.AsyncWith)):
            for item in node.items:
                if _name(item.context_expr) == "raises":
                    out.append(
                        Check(item.context_expr, node.lineno, ast.unparse(item.context_expr))
                    )
        elif (
            isinstance(node, ast.Expr)
            and _name(node.value).startswith("assert")
            and isinstance(node.value, ast.Call)
        ):
            out.append(Check(node.value, node.lineno, ast.unparse(node.value)))
    return sorted(out, key=lambda c: c.line)


def _mentions(node: ast.AST, names: set[str]) -> bool:
    return any(
        _name(n) in names for n in ast.walk(node) if isinstance(n, (ast.Call, ast.Attribute))
    )


def _compare(node: ast.AST) -> tuple[ast.expr, ast.cmpop, ast.expr] | None:
    if isinstance(node, ast.Compare) and len(node.ops) == 1:
        return node.left, node.ops[0], node.comparators[0]
    return None


def loosened(old: Check, new: Check, code_changed: bool) -> tuple[str, str] | None:
    """(rule, message) when `new` checks less than `old`, or pins a new expected value of
    changed code; None otherwise."""
    o, n = old.node, new.node
    if isinstance(o, ast.Assert) and isinstance(n, ast.Assert):
        oc, nc = _compare(o.test), _compare(n.test)
        if oc is None or not isinstance(oc[1], (ast.Eq, ast.Is)):
            return None
        if _mentions(n.test, APPROX) and not _mentions(o.test, APPROX):
            return "AI003", "exact comparison became approximate"
        if nc is None:
            return "AI003", "equality became a truthiness check"
        if isinstance(nc[1], (ast.In, ast.NotIn)):
            return "AI003", "equality became membership"
        if isinstance(nc[1], (ast.NotEq, ast.IsNot, ast.Gt, ast.GtE, ast.Lt, ast.LtE)):
            return "AI003", "equality became an inequality"
        return _expectation(oc[0], oc[2], nc[0], nc[2], code_changed)
    if isinstance(o, ast.Call) and isinstance(n, ast.Call):
        if _name(o) == "raises" and _name(n) == "raises":
            return _raises(o, n)
        on, nn = _name(o), _name(n)
        if on in EXACT_METHODS and nn in LOOSE_METHODS:
            return "AI003", f"{on} became {nn}"
        if on == nn and on in EXACT_METHODS and len(o.args) >= 2 and len(n.args) >= 2:
            return _expectation(o.args[0], o.args[1], n.args[0], n.args[1], code_changed)
    return None


def _expectation(
    ol: ast.expr, orr: ast.expr, nl: ast.expr, nr: ast.expr, code_changed: bool
) -> tuple[str, str] | None:
    """One side kept (the call under test), the other edited (the expected value)."""
    same_left = ast.dump(ol) == ast.dump(nl)
    same_right = ast.dump(orr) == ast.dump(nr)
    if code_changed and same_left != same_right:
        return "AI004", "expected value changed while the code under test changed"
    return None


def _raises(o: ast.Call, n: ast.Call) -> tuple[str, str] | None:
    if not o.args or not n.args:
        return None
    oe, ne = o.args[0], n.args[0]
    if _name(ne) in WIDE and _name(oe) not in WIDE:
        return "AI003", "pytest.raises widened to a base exception"
    if isinstance(ne, ast.Tuple) and not isinstance(oe, ast.Tuple):
        return "AI003", "pytest.raises widened to a tuple of exceptions"
    if any(k.arg == "match" for k in o.keywords) and not any(k.arg == "match" for k in n.keywords):
        return "AI003", "pytest.raises no longer checks the message (match= removed)"
    return None


def cases(decorators: list) -> dict[str, tuple[str, str, int]]:
    """The rows of `pytest.mark.parametrize` with two or more names, keyed by their inputs (every
    column but the last), each with its expected value (the last column), text and line."""
    out: dict[str, tuple[str, str, int]] = {}
    for d in decorators:
        if _name(d) != "parametrize" or not isinstance(d, ast.Call) or len(d.args) < 2:
            continue
        names, rows = d.args[0], d.args[1]
        width = (
            len(names.value.split(","))
            if isinstance(names, ast.Constant) and isinstance(names.value, str)
            else len(names.elts)
            if isinstance(names, (ast.Tuple, ast.List))
            else 0
        )
        if width < 2 or not isinstance(rows, (ast.List, ast.Tuple)):
            continue
        for row in rows.elts:
            if isinstance(row, ast.Call) and _name(row) == "param" and row.args:
                row = ast.Tuple(list(row.args), ast.Load(), lineno=row.lineno)
            if isinstance(row, (ast.Tuple, ast.List)) and len(row.elts) == width:
                key = ast.dump(ast.Tuple(row.elts[:-1], ast.Load()))
                out[key] = (ast.dump(row.elts[-1]), ast.unparse(row), row.lineno)
    return out


def _matches(found: list[Check]) -> int:
    return sum(
        isinstance(c.node, ast.Call) and any(k.arg == "match" for k in c.node.keywords)
        for c in found
    )


def _moved_to_match(removed: Check, olds: list[Check], news: list[Check]) -> bool:
    """`assert str(excinfo.value) == msg` replaced by `pytest.raises(..., match=msg)`: the check
    moved, it was not dropped."""
    return ".value" in removed.text and _matches(news) > _matches(olds)


def compare(path: str, old: str, new: str, code_changed: bool) -> list[IntegrityFinding]:
    """Findings of one test file: `old` at the base revision, `new` after the change ("" when
    deleted). A file that does not parse on either side is left to the compile gate."""
    level = "reject" if code_changed else "warn"
    try:
        before = tests_of(ast.parse(old))
        after = tests_of(ast.parse(new)) if new else {}
    except SyntaxError:
        return []
    out: list[IntegrityFinding] = []

    def add(rule: str, line: int, message: str, test: str, o: str = "", n: str = "") -> None:
        out.append(IntegrityFinding(rule, level, path, line, message, test, o, n))

    bodies = {ast.dump(ast.Module(fn.body, [])) for fn, _ in after.values()}
    for test, (fn, decorators) in before.items():
        if test not in after:
            if ast.dump(ast.Module(fn.body, [])) not in bodies:  # not merely renamed
                where = "file deleted" if not new else "removed"
                add(
                    "AI001",
                    fn.lineno,
                    f"test deleted ({where}; line of the base revision)",
                    test,
                    f"def {fn.name}",
                    "",
                )
            continue
        nfn, ndecorators = after[test]
        was, now = skipped(fn, decorators), skipped(nfn, ndecorators)
        if now and not was:
            add("AI002", nfn.lineno, "test newly skipped or xfailed", test, "", now)
        if code_changed:
            before_cases = cases(decorators)
            for key, (expected, text, line) in cases(ndecorators).items():
                if key in before_cases and before_cases[key][0] != expected:
                    message = "expected value of a parametrized case changed with the code"
                    add("AI004", line, message, test, before_cases[key][1], text)
        olds, news = checks(fn), checks(nfn)
        matcher = difflib.SequenceMatcher(a=[c.text for c in olds], b=[c.text for c in news])
        for op, i1, i2, j1, j2 in matcher.get_opcodes():
            if op not in ("replace", "delete"):
                continue
            pairs = list(zip(olds[i1:i2], news[j1:j2], strict=False)) if op == "replace" else []
            for o, n in pairs:
                if found := loosened(o, n, code_changed):
                    add(found[0], n.line, found[1], test, o.text, n.text)
            for o in olds[i1 + len(pairs) : i2]:
                if _moved_to_match(o, olds, news):
                    continue
                line = news[j1].line if j1 < len(news) else nfn.lineno
                add("AI003", line, "assertion removed", test, o.text, "")
    return [f for f in out if f.rule != "AI004" or code_changed]
