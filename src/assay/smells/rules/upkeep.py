"""Rules about how a test reads and is kept: output, repetition, vague expectations,
skips, length."""

from __future__ import annotations

import ast
from collections.abc import Iterator

from assay.config.smells import SmellsConfig
from assay.smells.context import Module
from assay.smells.mixins import holds_tests
from assay.smells.model import Hit, rule
from assay.smells.names import dotted, last_name
from assay.smells.testfunc import TestFunc

STD_STREAMS = {"sys.stdout", "sys.stderr", "sys.__stdout__", "sys.__stderr__"}


@rule(
    "AS015",
    "print",
    "warn",
    "print in a test",
    "Remove the print; put what matters into an assertion (its message) instead.",
)
def print_call(test: TestFunc, cfg: SmellsConfig) -> Iterator[Hit]:
    """Output from a passing test is noise nobody reads; a failing test should say why in its
    assertion. Printing into a buffer or file (`print(x, file=buf)`, `pprint(x, stream=buf)`) writes
    no output: it is how a test feeds or checks code that writes, and is not flagged.

    Bad:
        def test_total():
            print(total([1, 2]))
            assert total([1, 2]) == 3

    Good:
        def test_total():
            assert total([1, 2]) == 3

        def test_report_lines():
            buf = io.StringIO()
            for line in report([1, 2]):
                print(line, file=buf)
            assert buf.getvalue().split() == ["1", "2"]
    """
    for call, name in test.calls:
        if name in ("print", "pprint", "pprint.pprint") and _to_terminal(call, name, test):
            yield Hit.at(call)


def _to_terminal(call: ast.Call, name: str, test: TestFunc) -> bool:
    """The call writes to stdout or stderr: no `file=`/`stream=` destination, or
    sys.stdout/stderr."""
    keyword = "file" if name == "print" else "stream"
    dest = next((k.value for k in call.keywords if k.arg == keyword), None)
    if dest is None and name != "print" and len(call.args) > 1:
        dest = call.args[1]
    if dest is None or (isinstance(dest, ast.Constant) and dest.value is None):
        return True
    return dotted(dest, test.module.aliases) in STD_STREAMS


def _statement_lists(test: TestFunc) -> Iterator[list[ast.stmt]]:
    yield test.node.body
    for node in test.nodes:
        for name in ("body", "orelse", "finalbody"):
            block = getattr(node, name, None)
            if isinstance(block, list) and block and isinstance(block[0], ast.stmt):
                yield block


@rule(
    "AS017",
    "duplicate-assert",
    "warn",
    "duplicate assertion",
    "Remove the repeated assertion, or change it to check what was meant.",
)
def duplicate_assert(test: TestFunc, cfg: SmellsConfig) -> Iterator[Hit]:
    """The same assertion twice, with nothing in between that could change its outcome, is a
    copy-paste slip: usually a different value was meant. An assertion that calls an object of the
    test (`fm(3)`, `next(it)`, `cache.get(k)`) can change it, so its repetition checks the second
    call (memoized, exhausted, idempotent) and is not flagged; so can another assertion that calls
    anything between the two (termcolor's `cache_info().hits == 1`, asserted again after two
    more `colored(...)` calls: the count did not move), and a repeated call that later calls
    observe (termcolor's `colored("text")` twice, then `cache_info().hits == 1`: the second is a
    cache hit).

    Bad:
        def test_bounds():
            assert clamp(-5) == 0
            assert clamp(-5) == 0

    Good:
        def test_bounds():
            assert clamp(-5) == 0
            assert clamp(15) == 10

        def test_memoized_twice():
            fm = memoize(square)
            assert fm(3) == 9
            assert fm(3) == 9
    """
    for block in _statement_lists(test):
        seen: set[str] = set()
        for i, stmt in enumerate(block):
            if not isinstance(stmt, ast.Assert) or _calls_local(test, stmt):
                seen.clear()
                continue
            key = ast.dump(stmt)
            if key in seen:
                # a repeated call the test goes on to observe (a cache hit, then `cache_info()`)
                if not (_calls(stmt) and any(map(_calls, block[i + 1 :]))):
                    yield Hit.at(stmt)
            elif _calls(stmt):
                seen = set()  # a call in between may change what the earlier ones read
            seen.add(key)


def _calls(stmt: ast.stmt) -> bool:
    return any(isinstance(n, ast.Call) for n in ast.walk(stmt))


def _local(test: TestFunc, node: ast.AST) -> bool:
    while isinstance(node, (ast.Attribute, ast.Subscript)):
        node = node.value
    return isinstance(node, ast.Name) and (
        node.id in test.assigned or node.id in test.params or node.id in ("self", "cls")
    )


def _calls_local(test: TestFunc, stmt: ast.stmt) -> bool:
    """The statement calls an object of the test, or passes one to a call: state may change."""
    return any(
        isinstance(n, ast.Call) and (_local(test, n.func) or any(_local(test, a) for a in n.args))
        for n in ast.walk(stmt)
    )


@rule(
    "AS018",
    "broad-raises",
    "warn",
    "pytest.raises on a broad exception without match=",
    "Expect the specific exception type, and pass match= for its message.",
)
def broad_raises(test: TestFunc, cfg: SmellsConfig) -> Iterator[Hit]:
    """`pytest.raises(Exception)` passes on any error, including a typo in the test itself.

    Bad:
        def test_parse_rejects_garbage():
            with pytest.raises(Exception):
                parse("garbage")

    Good:
        def test_parse_rejects_garbage():
            with pytest.raises(ValueError, match="unexpected 'g'"):
                parse("garbage")
    """
    bound: dict[int, str] = {}
    for w in test.of(ast.With, ast.AsyncWith):
        for item in w.items:
            if isinstance(item.optional_vars, ast.Name):
                bound[id(item.context_expr)] = item.optional_vars.id
    for call, name in test.calls:
        if last_name(name) not in ("raises", "assertRaises") or not call.args:
            continue
        types = call.args[0].elts if isinstance(call.args[0], ast.Tuple) else [call.args[0]]
        broad = any(last_name(dotted(t, {})) in ("Exception", "BaseException") for t in types)
        used = (
            id(call) in bound and sum(1 for n in test.of(ast.Name) if n.id == bound[id(call)]) > 1
        )
        if broad and not any(k.arg == "match" for k in call.keywords) and not used:
            yield Hit.at(call)


def _skip_without_reason(d: ast.AST, aliases: dict[str, str]) -> str | None:
    call = d if isinstance(d, ast.Call) else None
    name = dotted(call.func if call else d, aliases) or ""
    if not name.endswith(("mark.skip", "mark.skipif", "unittest.skip")):
        return None
    if call is None:
        return name
    if any(k.arg == "reason" for k in call.keywords):
        return None
    positional_reason = 0 if name.endswith("skip") else 1
    return name if len(call.args) <= positional_reason else None


@rule(
    "AS019",
    "skip-without-reason",
    "warn",
    "skipped test without a reason",
    'Give the skip a reason (`reason="..."`) saying when it can be re-enabled.',
)
def skip_without_reason(test: TestFunc, cfg: SmellsConfig) -> Iterator[Hit]:
    """A skip without a reason is forgotten; nobody knows when the test may run again.

    Bad:
        @pytest.mark.skip
        def test_export():
            assert export(doc) == b"%PDF"

    Good:
        @pytest.mark.skip(reason="needs the PDF backend, see #42")
        def test_export():
            assert export(doc) == b"%PDF"
    """
    for owner in (test.cls, test.node):
        for d in owner.decorator_list if owner is not None else []:
            name = _skip_without_reason(d, test.module.aliases)
            if name:
                yield Hit.at(d, f"`@{name.rsplit('.', 2)[-2]}.{last_name(name)}` without a reason")
    for call, name in test.calls:
        if name in ("pytest.skip", "self.skipTest") and not call.args and not call.keywords:
            yield Hit.at(call, f"`{name}()` without a reason")


@rule(
    "AS008",
    "duplicate-test",
    "reject",
    "duplicate test",
    "Delete the copy, or change it to check the case it was meant for.",
)
def duplicate_test(test: TestFunc, cfg: SmellsConfig) -> Iterator[Hit]:
    """Two tests with the same body (and the same decorators and parameters), names aside,
    check the same thing twice: one of them was meant to check something else.

    Bad:
        def test_add():
            assert add(2, 3) == 5

        def test_add_negative():
            assert add(2, 3) == 5

    Good:
        def test_add():
            assert add(2, 3) == 5

        def test_add_negative():
            assert add(-2, -3) == -5
    """
    first = test.module.duplicates.get(id(test.node))
    if first is not None:
        yield Hit.at(test.node, f"duplicate test: same body as {first}")


@rule(
    "AS022",
    "long-test",
    "info",
    "long test",
    "Split the test by behaviour; long tests check many things at once and are hard to fix.",
)
def long_test(test: TestFunc, cfg: SmellsConfig) -> Iterator[Hit]:
    """A test longer than `max_test_lines` (default 60) lines usually checks several behaviours.

    Bad:
        def test_everything():
            ...  # 80 lines of setup, calls and checks

    Good:
        def test_refund_restores_stock():
            ...  # setup, one call, the checks of one behaviour
    """
    lines = (test.node.end_lineno or test.node.lineno) - test.node.lineno + 1
    if lines > cfg.max_test_lines:
        yield Hit.at(test.node, f"long test: {lines} lines (max {cfg.max_test_lines})")


@rule(
    "AS023",
    "no-tests",
    "info",
    "file defines no tests",
    "Name test functions test_* (in Test* classes or unittest.TestCase subclasses).",
    scope="file",
)
def no_tests(module: Module, cfg: SmellsConfig) -> Iterator[Hit]:
    """A test file that defines no test function runs nothing. A test class that inherits from a
    class of another module (a mixin in `tests/__init__.py`) runs the tests written there, so its
    file is not reported: those tests are judged where they are written.

    Bad:
        def check_total():
            assert total([1]) == 1

    Good:
        def test_total():
            assert total([1]) == 1
    """
    if not module.tests and not module.external_bases:
        yield Hit(1, 1)


@rule(
    "AS025",
    "imported-test-class",
    "warn",
    "test class imported from another test module: pytest runs its tests here again",
    "Import the module (`from tests import test_base as base`) and subclass `base.TestBase`: "
    "pytest does not collect a class it sees only as an attribute of a module.",
    scope="file",
)
def imported_test_class(module: Module, cfg: SmellsConfig) -> Iterator[Hit]:
    """pytest collects every `Test*` class in a test module's namespace, imported ones too: a base
    class imported by name from another test file runs all of its tests a second time here, on
    the base class's own fixtures (itsdangerous 2.2.0's `test_url_safe.py` reran 62 tests of
    `TestSerializer` and `TestTimedSerializer`, which test no URL-safe code). Only imports from a
    module named like a test file (`test_*`, `*_test`), under a name pytest collects (`Test*`), are
    flagged, and not when the class and its bases there hold no test (a helper base class in the
    package, such as Markdown's `markdown.test_tools.TestCase`: pytest collects nothing from it).

    Bad:
        from tests.test_serializer import TestSerializer

        class TestURLSafeSerializer(TestSerializer):
            ...

    Good:
        from tests import test_serializer as base

        class TestURLSafeSerializer(base.TestSerializer):
            ...
    """
    for node in module.tree.body:
        if not isinstance(node, ast.ImportFrom) or not node.module:
            continue
        last = node.module.rsplit(".", 1)[-1]
        if not (last.startswith("test_") or last.endswith("_test")):
            continue
        for alias in node.names:
            name = alias.asname or alias.name
            if name.startswith("Test"):
                dotted_name = "." * node.level + f"{node.module}.{alias.name}"
                root = module.root
                if root is not None and holds_tests(module, root, dotted_name) is False:
                    continue
                yield Hit.at(
                    node,
                    f"`{name}` imported from {node.module}: pytest collects it here too and runs "
                    "its tests again",
                )
