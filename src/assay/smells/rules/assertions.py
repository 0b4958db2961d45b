"""Reject-level rules about what a test checks: nothing, too much at once, or something that
cannot fail."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator

from assay.config.smells import SmellsConfig
from assay.smells.checks import Assertion
from assay.smells.context import is_empty
from assay.smells.flags import holds_value
from assay.smells.model import Hit, rule
from assay.smells.names import dotted, last_name
from assay.smells.rules.tautology import follow
from assay.smells.rules.try_blocks import in_nested_functions, raises_on, surely_raises
from assay.smells.rules.typechecks import typed_right
from assay.smells.testfunc import TestFunc

PREDICATE = re.compile(
    r"^_*(is|has|can|should|contains|exists|matches|equals?|are|was|were|supports|allows|"
    r"startswith|endswith|issubset|issuperset|isdisjoint|all|any|bool|match|fullmatch|search)",
    re.IGNORECASE,
)
FAIL_CALLS = ("fail",)


@rule(
    "AS001",
    "no-assertion",
    "reject",
    "no assertion",
    "Add assertions on the observable result; "
    "a test that only runs code cannot fail on a wrong answer.",
)
def no_assertion(test: TestFunc, cfg: SmellsConfig) -> Iterator[Hit]:
    """A test without any check passes whatever the code returns.

    Counted as checks: `assert`, `self.assert*`, `pytest.raises`/`warns`, mock `assert_called*`,
    `self.fail`/`pytest.fail`, `raise`, `text.encode("ascii")` (strict: it raises on a non-ASCII
    result, a check that the text is ASCII), and helpers of the same file that assert (read from
    their code: a `check_total` whose whole code is in the file and asserts nothing is no check; a
    helper named like a check that hands its work to code of other files counts, and so does a
    test routine of another test file called with other inputs, `other.test_decode(...)`).
    Benchmarks (tests taking pytest-benchmark's `benchmark` fixture) measure instead and are
    exempt.

    Bad:
        def test_total():
            total([1, 2, 3])

    Good:
        def test_total():
            assert total([1, 2, 3]) == 6
    """
    if not is_empty(test.body) and not test.assertions and "benchmark" not in test.params:
        yield Hit.at(test.node)


@rule(
    "AS002",
    "empty-test",
    "reject",
    "empty test",
    "Write the test body or delete the test; an empty test always passes.",
)
def empty_test(test: TestFunc, cfg: SmellsConfig) -> Iterator[Hit]:
    """A test whose body is only `pass`, `...` or a docstring passes and proves nothing.

    Bad:
        def test_refund():
            pass

    Good:
        def test_refund():
            assert refund(order(paid=10)).amount == 10
    """
    if is_empty(test.body):
        yield Hit.at(test.node)


@rule(
    "AS003",
    "assertion-roulette",
    "reject",
    "assertion roulette",
    "Split the test by behaviour, or give each assertion a message saying what it checks.",
    profiles={"generated": "reject", "suite": "warn"},
)
def assertion_roulette(test: TestFunc, cfg: SmellsConfig) -> Iterator[Hit]:
    """Many unexplained assertions in one test: a failure does not say which behaviour broke.

    The threshold is `max_unexplained_asserts` (default 5); assertions with a message do not
    count. The level depends on the profile: `reject` for generated tests
    (`profile = "generated"`, and under the default `"auto"` for tests marked
    `@pytest.mark.assay_generated`), `warn` for a project's own suite (`profile = "suite"`, and
    under `"auto"` for unmarked tests). A generated test has no reason to check six things at
    once; a hand-written one may walk one object through its states step by step, where the
    failing line (which pytest and unittest both report) says enough.

    Bad:
        def test_user():
            u = make_user()
            assert u.name == "ann"
            assert u.age == 3
            assert u.email == "a@x"
            assert u.active
            assert u.roles == ["admin"]
            assert u.quota == 10

    Good:
        def test_new_user_is_active():
            assert make_user().active

        def test_new_user_gets_default_quota():
            assert make_user().quota == 10
    """
    n = sum(1 for a in test.assertions if a.kind in ("assert", "method") and not a.has_msg)
    if n > cfg.max_unexplained_asserts:
        yield Hit.at(
            test.node,
            f"assertion roulette: {n} assertions without a message "
            f"(max {cfg.max_unexplained_asserts})",
        )


def _fails(stmt: ast.stmt, test: TestFunc) -> bool:
    """A statement that fails the test when reached (`pytest.fail`, `self.fail`, `raise`,
    `assert False`)."""
    if isinstance(stmt, ast.Raise):
        return True
    if isinstance(stmt, ast.Assert) and isinstance(stmt.test, ast.Constant) and not stmt.test.value:
        return True
    return (
        isinstance(stmt, ast.Expr)
        and isinstance(stmt.value, ast.Call)
        and last_name(dotted(stmt.value.func, test.module.aliases)) in FAIL_CALLS
    )


def _broad(handler: ast.ExceptHandler, test: TestFunc) -> bool:
    if handler.type is None:
        return True
    names = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
    return any(
        last_name(dotted(n, test.module.aliases))
        in ("AssertionError", "Exception", "BaseException")
        for n in names
    )


def _contains(nodes: list[ast.stmt], ids: set[int]) -> bool:
    return any(id(n) in ids for s in nodes for n in ast.walk(s))


@rule(
    "AS007",
    "swallowed-assertion",
    "reject",
    "assertion can be skipped or swallowed",
    "Use `with pytest.raises(Error, match=...)` (or "
    "self.assertRaises) instead of try/except around checks.",
)
def swallowed_assertion(test: TestFunc, cfg: SmellsConfig) -> Iterator[Hit]:
    """Assertions in an `except` run only if the exception comes; a `try` that catches
    AssertionError (or Exception, or everything) and does not re-raise hides every failure. A
    function defined in the test (a hook wrapper the code under test calls) whose handler checks
    the exception passing through and raises it on is not flagged: whether it came is the test's
    own check (pluggy's `test_wrapper_exception`, `with pytest.raises(exc)` around the call). Nor
    is a handler that only fails the test (`except: self.fail(...)`): it checks that nothing is
    raised; nor one that returns, its `try` followed by a statement that fails the test
    (`raise Exception("did not raise")`): the exception must come; nor one whose `try` has an
    `else` that asserts (both paths checked); nor one whose `try` raises whatever the project
    does (`0 / 0`, a helper of the test's own that divides by zero): the test only makes a live
    exception to hand the code under test (structlog's tracebacks tests).

    Bad:
        def test_parse_rejects_garbage():
            try:
                parse("garbage")
            except ValueError as e:
                assert "garbage" in str(e)

    Good:
        def test_parse_rejects_garbage():
            with pytest.raises(ValueError, match="garbage"):
                parse("garbage")
    """
    checks = {id(a.node) for a in test.assertions if a.kind != "raise"}
    nested = in_nested_functions(test.node)
    local = {
        n.name: n
        for n in ast.walk(test.node)
        if n is not test.node and isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)
    }
    for node in test.of(ast.Try, ast.TryStar) if hasattr(ast, "TryStar") else test.of(ast.Try):
        guarded = (
            bool(node.body)
            and _fails(node.body[-1], test)
            or any(_fails(s, test) for s in node.orelse)
            # an `else` that asserts checks the path where nothing is raised too (pyee's
            # `else: assert failure == "none"`)
            or _contains(node.orelse, checks)
            # the try only makes an exception to look at: `0 / 0`, or a helper of the test's
            # own that divides by zero (structlog's tracebacks tests): the handler always runs
            or surely_raises(node.body, local)
        )
        after_fails = _next_fails(test, node)
        for h in node.handlers:
            # a callback the code under test calls (a hook wrapper) that looks at the exception
            # passing through and raises it on: whether it came is the test's own check
            if id(node) in nested and raises_on(h):
                continue
            # `except TypeError as e: assert ...; return`, then `raise Exception("did not
            # raise")` after the try (dpath's test_merge_typesafe_and_separator)
            if after_fails and h.body and isinstance(h.body[-1], ast.Return):
                continue
            # `except: self.fail("hashing failed")`: the test checks that nothing is raised
            # (python-dateutil's `testHashable`), which is what passing without one means
            if h.body and all(_fails(s, test) for s in h.body):
                continue
            if not guarded and _contains(h.body, checks):
                yield Hit.at(
                    h, "assertion inside except: the test passes when no exception is raised"
                )
            elif (
                _broad(h, test)
                and _contains(node.body, checks)
                and not any(
                    isinstance(n, ast.Raise) or (isinstance(n, ast.stmt) and _fails(n, test))
                    for s in h.body
                    for n in ast.walk(s)
                )
            ):
                yield Hit.at(h, "except swallows the assertion failures of its try block")


def _next_fails(test: TestFunc, node: ast.stmt) -> bool:
    """The statement right after `node` in its block fails the test when reached."""
    parent = test.parents.get(id(node), test.node)
    for name in ("body", "orelse", "finalbody"):
        block = getattr(parent, name, None)
        if isinstance(block, list) and any(s is node for s in block):
            i = next(i for i, s in enumerate(block) if s is node)
            return i + 1 < len(block) and _fails(block[i + 1], test)
    return False


def _boolean(e: ast.expr | None) -> bool:
    return (
        isinstance(e, (ast.Compare, ast.BoolOp))
        or (isinstance(e, ast.UnaryOp) and isinstance(e.op, ast.Not))
        or (isinstance(e, ast.Constant) and isinstance(e.value, bool))
        or (
            isinstance(e, ast.Call)
            and isinstance(e.func, (ast.Name, ast.Attribute))
            and bool(PREDICATE.match(last_name(dotted(e.func, {}))))
        )
    )


def _predicate(test: TestFunc, call: ast.Call) -> bool:
    """The call answers yes or no, so asserting its result is the whole check. Judged on the
    called function's code when it is one of the target modules' (every `return` gives a
    comparison, a `not`, a bool or another predicate's answer); on its name otherwise
    (`is_valid`, `has_key`, `match`)."""
    name = dotted(call.func, test.module.aliases)
    index = test.module.targets
    found = index.resolve(name) if index is not None and name else None
    if found is not None and not found[1] and not isinstance(found[0], ast.ClassDef):
        returns = [n for n in ast.walk(found[0]) if isinstance(n, ast.Return)]
        return bool(returns) and all(_boolean(r.value) for r in returns)
    return bool(PREDICATE.match(last_name(name)))


def _weak(test: TestFunc, expr: ast.AST) -> str | None:
    aliases = test.module.aliases
    if isinstance(expr, ast.Compare) and len(expr.ops) == 1:
        right = expr.comparators[0]
        if (
            isinstance(expr.ops[0], (ast.IsNot, ast.NotEq))
            and isinstance(right, ast.Constant)
            and right.value is None
        ):
            return "only checks that the result is not None"
        if (
            isinstance(expr.ops[0], (ast.Is, ast.Eq))
            and isinstance(expr.left, ast.Call)
            and dotted(expr.left.func, aliases) == "type"
        ):
            return "only checks the type of the result"
        return None
    if isinstance(expr, ast.Call) and dotted(expr.func, aliases) in (
        "isinstance",
        "hasattr",
        "callable",
    ):
        if dotted(expr.func, aliases) == "isinstance" and typed_right(test, expr.args):
            return None  # the class the code must carry through: a base-class result fails
        return "only checks the type of the result"
    if isinstance(expr, (ast.Name, ast.Attribute)):
        source = follow(test, expr, expr)
        if isinstance(source, ast.Call) and _predicate(test, source):
            return None
        if isinstance(source, ast.Attribute) and not holds_value(
            source.attr, test.module.targets, _boolean
        ):
            return None  # a flag: its truthiness is its value
        if source is expr or isinstance(source, ast.Call):
            return "only checks that the result is truthy"
    return None


@rule(
    "AS009",
    "weak-assertion",
    "reject",
    "only checks type or truthiness",
    "Assert the actual value (`assert result == expected`), not just that something came back.",
)
def weak_assertion(test: TestFunc, cfg: SmellsConfig) -> Iterator[Hit]:
    """A test whose sole check is `assert result`, `is not None` or `isinstance` passes for
    almost any wrong answer. Truthiness is a full check when the value is a yes/no: a
    predicate's answer (`assert is_valid(x)`, judged on the function's returns when it is the
    project's) or a flag of an object the test acted on (`assert stream.closed`): an attribute
    is a flag unless it is a dunder, a mock's call record, or the project's code only ever
    gives it values (numbers, strings, collections, a non-`bool` annotation). So is a type
    check against a class the test or its file made itself (a subclass the code must carry
    through), and one of a part of a value (`box["a"]`, `cfg.section`) against a class of neither
    the builtins nor the standard library: the code's promise to convert what it holds into its
    own class; one of an object the test constructs against another class
    (`isinstance(Dict(), dict)`): the class statement's promise, with no other value to assert;
    one against a `Protocol` of the project (a structural check of every member it names); and
    one of what a project function returns against a class of the project where the function is
    annotated to return a protocol or a base of that class (`isinstance(proxy.bind(),
    BoundLoggerBase)`: which implementation it hands out is what the code decides).

    Bad:
        def test_parse():
            result = parse("a=1")
            assert result is not None

    Good:
        def test_parse():
            assert parse("a=1") == {"a": 1}

        def test_close():
            s = open_stream()
            s.close()
            assert s.closed
    """
    if len(test.assertions) == 1:
        a: Assertion = test.assertions[0]
        msg = _weak(test, a.expr) if a.expr is not None else None
        if msg:
            yield Hit.at(a.node, msg)
