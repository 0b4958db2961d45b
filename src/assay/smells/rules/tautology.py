"""AS006: assertions that hold whatever the code does, judged on the code (never on the test's
name)."""

from __future__ import annotations

import ast
from collections.abc import Iterator

from assay.config.smells import SmellsConfig
from assay.smells.context import same
from assay.smells.model import Hit, rule
from assay.smells.names import dotted, last_name
from assay.smells.testfunc import TestFunc


def _literal(node: ast.AST) -> bool:
    if isinstance(node, ast.Constant):
        return True
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd, ast.Not)):
        return _literal(node.operand)
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return all(_literal(e) for e in node.elts)
    if isinstance(node, ast.Dict):
        return all(k is not None and _literal(k) for k in node.keys) and all(
            _literal(v) for v in node.values
        )
    return False


def _acts(test: TestFunc, stmt: ast.AST) -> bool:
    """A statement that may change state (a call statement, a `with`, a loop ...), not a
    plain check."""
    if isinstance(stmt, (ast.Assign, ast.AnnAssign, ast.Assert, ast.Pass)):
        return False
    return not (isinstance(stmt, ast.Expr) and any(a.node is stmt.value for a in test.assertions))


def follow(test: TestFunc, node: ast.expr, at: ast.AST) -> ast.expr:
    """A local name assigned once is replaced by its value (`expected = f(x)` → `f(x)`), unless
    something that may change state runs between that assignment and `at`."""
    if isinstance(node, ast.Name):
        values = test.assigned.get(node.id, [])
        if len(values) == 1 and isinstance(values[0], ast.expr):
            assign = test.parents.get(id(values[0]))
            start, end = getattr(assign, "end_lineno", 0) or 0, getattr(at, "lineno", 0)
            if not any(
                start < s.lineno < end and _acts(test, s)
                for s in test.nodes
                if isinstance(s, ast.stmt)
            ):
                return values[0]
    return node


def _pure_call(test: TestFunc, node: ast.AST) -> bool:
    """A call of a module-level function (not a method of a local object that may hold state)."""
    if not isinstance(node, ast.Call):
        return False
    root = node.func
    while isinstance(root, ast.Attribute):
        root = root.value
    return (
        isinstance(root, ast.Name)
        and root.id not in test.assigned
        and root.id not in test.params
        and root.id not in ("self", "cls")
    )


def _builds_objects(test: TestFunc, call: ast.Call) -> bool:
    """The call makes a new object on each evaluation: it constructs a class (a CapWords name, as
    PEP 8 spells classes, or a class of the target modules), directly or through a method called
    on the class (`PathSpec.from_lines(...)`), or its arguments do (`hash(Key(1))`). Two such
    calls compared check value equality of distinct objects: the class's `__eq__`."""
    if any(isinstance(n, ast.Call) for a in (*call.args, *call.keywords) for n in ast.walk(a)):
        return True
    name = last_name(dotted(call.func, test.module.aliases))
    # an alternate constructor called on its class: pathspec's `PathSpec.from_lines(...)`,
    # `Decimal.from_float(...)`
    owner = call.func.value if isinstance(call.func, ast.Attribute) else None
    if owner is not None and any(isinstance(n, ast.Call) for n in ast.walk(owner)):
        owner = None  # `Path(p).read_text()`: a method of an object, not of its class
    targets = test.module.targets
    for func in (call.func, owner):
        path = dotted(func, test.module.aliases) if func is not None else None
        if targets is not None and path:
            found = targets.resolve(path)
            if found is not None and isinstance(found[0], ast.ClassDef) and not found[1]:
                return True
    owner_name = last_name(dotted(owner, test.module.aliases)) if owner is not None else ""
    return any(n[:1].isupper() and not n.isupper() for n in (name, owner_name or ""))


def _calls_of(test: TestFunc, expr: ast.AST, func: str) -> bool:
    """`expr` calls `func` (an `ast.dump` of a callee), directly or through a local name assigned
    once (`result = f(x)`)."""
    nodes = list(ast.walk(expr))
    for n in list(nodes):
        values = test.assigned.get(n.id, []) if isinstance(n, ast.Name) else []
        if len(values) == 1 and isinstance(values[0], ast.expr):
            nodes += ast.walk(values[0])
    return any(isinstance(n, ast.Call) and ast.dump(n.func) == func for n in nodes)


def _pinned_elsewhere(test: TestFunc, call: ast.Call, at: ast.AST) -> bool:
    """Another check of the test compares the same callee with something else (`key(1) !=
    key(2)`, `f(x) == 3`): the identical-call comparison is then one part of a real test."""
    func = ast.dump(call.func)
    for a in test.assertions:
        if a.node is at or a.expr is None or _repeated_call(test, a.expr, a.node) is not None:
            continue
        if _calls_of(test, a.expr, func):
            return True
    return False


def _compared_elsewhere(test: TestFunc, value: ast.AST, at: ast.AST) -> bool:
    """Another check of the test compares `value` with something else (`x == x` next to
    `x == x.datetime` or `x != other`): the self-comparison then checks that the value's own
    equality or order is reflexive, one part of a real test of that type."""
    key = ast.dump(value)
    for a in test.assertions:
        if a.node is at:
            continue
        for sides in _compared(a.node):
            if not same(*sides) and any(ast.dump(n) == key for s in sides for n in ast.walk(s)):
                return True
    return False


def _reflexive(test: TestFunc, value: ast.expr, op: ast.cmpop, at: ast.AST) -> bool:
    """`uri == uri` where the test built `uri` (`uri = URIReference.from_string(s)`, a class
    constructed): == runs that class's `__eq__`, the project's code (rfc3986's checks that its
    equality is reflexive). A plain value (`x = 1`, `x = total(...)`) or `is` stays a tautology."""
    if not (isinstance(op, ast.Eq) and isinstance(value, ast.Name)):
        return False
    built = follow(test, value, at)
    return isinstance(built, ast.Call) and _builds_objects(test, built)


def _compared(node: ast.AST) -> Iterator[tuple[ast.expr, ast.expr]]:
    """The pairs an assertion compares: of each comparison in it (`assert a == b`,
    `self.assertFalse(a == b)`), and the first two arguments of an assertion method
    (`self.assertNotEqual(a, b)`)."""
    for n in ast.walk(node):
        if isinstance(n, ast.Compare) and len(n.ops) == 1:
            yield n.left, n.comparators[0]
    if isinstance(node, ast.Call) and len(node.args) >= 2:
        yield node.args[0], node.args[1]


def _repeated_call(test: TestFunc, expr: ast.AST, at: ast.AST) -> ast.Call | None:
    """The call when `expr` compares two evaluations of one call (`f(x) == f(x)`, directly or
    through names assigned once: `expected = f(x)`) by ==, <= or >=."""
    if not (isinstance(expr, ast.Compare) and len(expr.ops) == 1):
        return None
    if not isinstance(expr.ops[0], (ast.Eq, ast.GtE, ast.LtE)):
        return None
    left, right = expr.left, expr.comparators[0]
    if not (isinstance(left, (ast.Name, ast.Call)) and isinstance(right, (ast.Name, ast.Call))):
        return None  # only a call, or a name assigned one, can stand for a call
    if isinstance(left, ast.Call) and isinstance(right, ast.Call) and not same(left, right):
        return None
    left, right = follow(test, left, at), follow(test, right, at)
    if isinstance(left, ast.Call) and _pure_call(test, left) and same(left, right):
        return left
    return None


def _tautology(test: TestFunc, expr: ast.AST, at: ast.AST) -> str | None:
    if isinstance(expr, ast.Constant):
        return f"tautology: `assert {expr.value!r}` always passes" if expr.value else None
    if not (isinstance(expr, ast.Compare) and len(expr.ops) == 1):
        return None
    left, right, op = expr.left, expr.comparators[0], expr.ops[0]
    if _literal(left) and _literal(right):
        return "tautology: compares two literals"
    if not isinstance(op, (ast.Eq, ast.Is, ast.GtE, ast.LtE)):
        return None
    has_call = any(isinstance(n, ast.Call) for n in ast.walk(left))
    # `b.foo is b.foo`: a property, `__getattr__` or `__getitem__` may make a new object on each
    # read; identity checks that it does not (as `f(x) is f(x)` checks caching)
    reads = isinstance(op, ast.Is) and any(
        isinstance(n, (ast.Attribute, ast.Subscript)) for n in ast.walk(left)
    )
    if same(left, right) and not has_call and not reads:
        if _compared_elsewhere(test, left, at) or _reflexive(test, left, op, at):
            return None  # reflexivity of a value the test also compares with others
        return f"tautology: compares `{ast.unparse(left)}` with itself"
    if isinstance(op, ast.Is):
        return None  # `f(x) is f(x)` checks caching
    call = _repeated_call(test, expr, at)
    if call is None or _builds_objects(test, call) or _pinned_elsewhere(test, call, at):
        return None
    if isinstance(expr.left, ast.Name) or isinstance(expr.comparators[0], ast.Name):
        return (
            f"tautology: the expected value is computed by `{ast.unparse(call)}`, the call under "
            "test, and the test checks nothing else of it"
        )
    return (
        f"tautology: compares `{ast.unparse(call)}` with a second identical call and checks "
        "nothing else of it: any function that returns the same value twice passes"
    )


@rule(
    "AS006",
    "tautology",
    "reject",
    "tautology",
    "Compare the result with an independently known value (a literal or a hand-computed case), "
    "not with the code under test.",
)
def tautology(test: TestFunc, cfg: SmellsConfig) -> Iterator[Hit]:
    """An assertion that holds whatever the code does.

    Judged on the code, never on the test's name. Caught: `assert True`, two literals compared, the
    same expression without a call on both sides (`x == x`, unless the test also compares `x` with
    something else, `x == x.datetime`, or `x` is an object the test built, `x = Key.parse(s)`: then
    it checks that the type's equality is reflexive), and
    two evaluations of one call compared (`f(x) == f(x)`, or `expected = f(x)` then
    `f(x) == expected`) when that is all the test checks of `f`: any function that returns the
    same value twice passes it. Two identical
    calls are a real check, of determinism or of value equality, when each builds a new object (a
    class is constructed, `Key(1) == Key(1)`, or the arguments are, `hash(Key(1)) == hash(Key(1))`:
    distinct objects compare by identity unless the code defines equality), or when the test also
    compares the callee with something else (`key(1) != key(2)`, `f(x) == 3`). `f(x) is f(x)`
    checks caching and is not flagged, nor is `b.foo is b.foo` (or `b["foo"]`): a property,
    `__getattr__` or `__getitem__` may make a new object on each read.

    Bad:
        def test_total():
            expected = total([1, 2])
            assert total([1, 2]) == expected

        def test_key_is_deterministic():
            assert key("a") == key("a")

    Good:
        def test_total():
            assert total([1, 2]) == 3

        def test_key_is_deterministic():
            assert key("a") == key("a")
            assert key("a") != key("b")

        def test_equal_keys_hash_alike():
            assert hash(Key(1)) == hash(Key(1))
    """
    for a in test.assertions:
        if a.expr is not None:
            msg = _tautology(test, a.expr, a.node)
            if msg:
                yield Hit.at(a.node, msg)
