"""Oracle code: project functions a test file calls only to compute the values it expects.

tenacity's `test_after.py` checks `after_log` by asserting the logged message equals one it builds
with the project's own `to_ordinal`. A mutant of `to_ordinal` changes the message and the expected
value alike, so no assertion through it can catch it: the file trusts `to_ordinal` as its oracle,
it does not test it. Such a function is out of the file's gate-4 scope; its mutants are listed in a
note, neither killed nor survived.

Read from the code, not from names: a call of `f` in the test file is on the expected side when it
sits inside an assertion (an `assert` statement or a call of an `assert*` function or method),
feeds no other project call there, and the assertion checks code of the project that itself calls
`f`: another call in the assertion (`assert render(3) == f"{to_ordinal(3)} place"` where `render`
calls `to_ordinal`), a mock's `assert_called_with`-style record of what the code under test did, or
a computed value on the other side of an equality (`result = render(3)` before it, then
`assert result == f"{to_ordinal(3)} place"`); in the last two, a function the file calls must
itself call `f`. A local name assigned from such a call and read only on the
expected side of assertions counts the same. `f` is oracle code when every call of it in the file
is of that kind: a file that also asserts `to_ordinal(3) == "3rd"` tests it, and stays accountable
for it.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from assay.mutation.model import Mutant, MutantResult, MutationResult
from assay.mutation.receivers import ClassFacts, Receivers, project_classes, qualnames

Classes = dict[str, ClassFacts | None]

# a mock's own record of the calls the code under test made is the actual side of these
MOCK_CHECKS = ("assert_called", "assert_any_call", "assert_has_calls", "assert_awaited")
CONSTRUCTORS = ("__new__", "__init__", "__post_init__")
# methods of the built-in value types: `x.decode()` in project code is most likely bytes'
BUILTIN_METHODS = frozenset(
    name
    for t in (str, bytes, bytearray, dict, list, set, frozenset, tuple, int, float, complex)
    for name in dir(t)
    if not name.startswith("_")
)


def _name(call: ast.Call) -> str | None:
    func = call.func
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return func.attr
    return None


def _callees(trees: list[ast.Module]) -> dict[str, set[str]]:
    """Per function (by qualified name, `C.m`) or class of the targets, the names it calls
    (nested functions included: `after_log` calls what its inner `log_it` calls)."""
    out: dict[str, set[str]] = {}
    for tree in trees:
        names = _module_names(tree)
        for node, qualname in qualnames(tree).items():
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                out.setdefault(qualname, set()).update(_calls(node, names))
            elif isinstance(node, ast.ClassDef):
                # calling a class runs its constructor, not every method: markupsafe's
                # `Markup("a")` does not call the `split` its `striptags` uses
                called = out.setdefault(qualname, set())
                for item in node.body:
                    if isinstance(item, ast.FunctionDef) and item.name in CONSTRUCTORS:
                        called.update(_calls(item, names))
    return out


def _by_name(callees: dict[str, set[str]]) -> dict[str, set[str]]:
    """The same by bare name: what any function or class of that name calls."""
    out: dict[str, set[str]] = {}
    for qualname, called in callees.items():
        out.setdefault(qualname.rsplit(".", 1)[-1], set()).update(called)
    return out


def _calls(node: ast.AST, names: frozenset[str] = frozenset()) -> set[str]:
    """The project functions `node` may call, by name: not a method of a built-in value (pyjwt's
    `PyJWS.encode` ends with `encoded.decode("utf-8")`, bytes', not `PyJWS.decode`) unless called
    through `self`, `cls`, `super()` or a module-level name of its file (`names`: an imported
    module, a class, a global object), which the project answers."""
    return {
        name
        for n in ast.walk(node)
        if isinstance(n, ast.Call)
        if (name := _name(n)) and (name not in BUILTIN_METHODS or _own_receiver(n.func, names))
    }


def _own_receiver(func: ast.expr, names: frozenset[str]) -> bool:
    if not isinstance(func, ast.Attribute):
        return True  # a bare name: the project's function of that name, as before
    recv = func.value
    if isinstance(recv, ast.Name):
        return recv.id in ("self", "cls") or recv.id in names
    return (
        isinstance(recv, ast.Call) and isinstance(recv.func, ast.Name) and recv.func.id == "super"
    )


def _module_names(tree: ast.Module) -> frozenset[str]:
    """The names a module binds at its top level."""
    out: set[str] = set()
    for stmt in tree.body:
        if isinstance(stmt, (ast.Import, ast.ImportFrom)):
            out.update((a.asname or a.name).split(".")[0] for a in stmt.names)
        elif isinstance(stmt, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            out.add(stmt.name)
        elif isinstance(stmt, ast.Assign):
            out.update(n.id for t in stmt.targets for n in ast.walk(t) if isinstance(n, ast.Name))
    return frozenset(out)


class _File:
    """A test module's assertions and the calls and names in them."""

    def __init__(
        self, tree: ast.Module, project: set[str], callees: dict[str, set[str]], classes: Classes
    ) -> None:
        self.project = project
        self.qualified = callees
        self.callees = _by_name(callees)
        self.parent: dict[ast.AST, ast.AST] = {}
        for node in ast.walk(tree):
            for child in ast.iter_child_nodes(node):
                self.parent[child] = node
        self.tree = tree
        self.receivers = Receivers(tree, self.parent, classes)
        self.called = {
            name for n in ast.walk(tree) if isinstance(n, ast.Call) if (name := _name(n))
        } & project

    def assertion(self, node: ast.AST) -> ast.AST | None:
        """The assertion `node` sits in: an `assert` statement's test, or an `assert*` call."""
        while node in self.parent:
            up = self.parent[node]
            if isinstance(up, ast.Assert) and node is up.test:
                return node
            if isinstance(up, ast.Call) and node is not up.func:
                name = _name(up)
                if name and name.startswith("assert"):
                    return up
            if isinstance(up, ast.stmt):
                return None
            node = up
        return None

    def expected_side(self, node: ast.AST, own: str) -> bool:
        """`node` (a value of the function `own`) is inside an assertion, feeds no other project
        call there, and the assertion checks project code that calls `own`: a call in it, a mock's
        record of calls, or a computed value it is compared with."""
        root = self.assertion(node)
        if root is None or self._round_trip(node, root):
            return False
        up = node
        while up is not root:
            up = self.parent[up]
            if isinstance(up, ast.Call) and up is not root and self._other(up, own):
                return False  # an argument of the call under test
        if isinstance(root, ast.Call) and (_name(root) or "").startswith(MOCK_CHECKS):
            return self.used(own)
        inside = {id(n) for n in ast.walk(node)}
        if any(
            isinstance(n, ast.Call)
            and id(n) not in inside
            and self._other(n, own)
            and own in self.callees_of(n)
            for n in ast.walk(root)
        ):
            return True
        # `result = render(3)` before it, then `assert result == f"{to_ordinal(3)} place"`
        other = self._opposite(node, root)
        return (
            other is not None
            and self.used(own)
            and not any(isinstance(n, ast.Call) and _name(n) == own for n in ast.walk(other))
            and self._computed(other, own)
        )

    def _round_trip(self, node: ast.AST, root: ast.AST) -> bool:
        """`node` is a call whose arguments read every name of the other side of the equality:
        `from_str(str(ulid)) == ulid` gets back what it was given, a check of `from_str`
        (python-ulid 4.1.0's `test_idempotency`, where `ulid` also went to `ULID.parse`, which
        calls `from_str`: read as its expected value, `from_str` and the decoder it calls were set
        aside and the file's invalid-input test was low value)."""
        other = self._opposite(node, root)
        if not isinstance(node, ast.Call) or other is None:
            return False
        args = [*node.args, *(k.value for k in node.keywords)]
        given = {n.id for a in args for n in ast.walk(a) if isinstance(n, ast.Name)}
        back = {n.id for n in ast.walk(other) if isinstance(n, ast.Name)}
        return bool(back) and back <= given

    def _computed(self, side: ast.AST, own: str) -> bool:
        """`side` reads a local name that project code calling `own` produced or filled in the same
        function: assigned from a call of it (`result = render(3)`), or handed to one (`describe(3,
        seen.append)`). A parameter (`expected` of a parametrized case) or a constant is not."""
        names = {n.id for n in ast.walk(side) if isinstance(n, ast.Name)}
        scope: ast.AST = side
        while scope in self.parent and not isinstance(
            scope, (ast.FunctionDef, ast.AsyncFunctionDef)
        ):
            scope = self.parent[scope]
        # a name bound only to an immutable literal holds what the test wrote, whoever reads it:
        # tinydb's `NUM = 100`, handed to `insert_multiple(... range(NUM))`, then
        # `assert db._get_next_id() - 1 == NUM` checks `_get_next_id`
        names -= _constants(scope, names)
        for call in ast.walk(scope):
            # the code that produced the value computes with `own` too: `expect = [Markup("a")]`
            # compared with `Markup("a b").split()` is an expected value, not `split`'s oracle
            if not (
                isinstance(call, ast.Call)
                and self._other(call, own)
                and own in self.callees_of(call)
            ):
                continue
            handed = [
                n for a in [*call.args, *(k.value for k in call.keywords)] for n in ast.walk(a)
            ]
            if names & {n.id for n in handed if isinstance(n, ast.Name)}:
                return True
            up = self.parent.get(call)
            while up is not None and not isinstance(up, ast.stmt):
                up = self.parent.get(up)
            if isinstance(up, ast.Assign) and names & {
                n.id for t in up.targets for n in ast.walk(t) if isinstance(n, ast.Name)
            }:
                return True
        return False

    def callees_of(self, call: ast.Call) -> set[str]:
        """What the project code `call` runs calls: its class's method's where the test's code
        says which class, else any of that name's."""
        if (method := self.receivers.resolve(call)) is not None:
            return self.qualified.get(method, set())
        return self.callees.get(_name(call) or "", set())

    def handed_on(self) -> set[str]:
        """The project functions the file names without calling them there: python-ulid's
        parametrized `(ULID.from_str, "not-enough")`, called as `constructor(value)`. What the test
        does with them is not read, so they are not taken for oracles."""
        return {
            name
            for n in ast.walk(self.tree)
            if isinstance(n, (ast.Name, ast.Attribute)) and isinstance(n.ctx, ast.Load)
            if not isinstance(up := self.parent.get(n), ast.Attribute)
            and not (isinstance(up, ast.Call) and n is up.func)
            if (name := n.id if isinstance(n, ast.Name) else n.attr) in self.project
        }

    def used(self, own: str) -> bool:
        """A function the test file calls, other than `own`, calls `own`: the code under test
        computes with it too."""
        return any(own in self.callees.get(name, ()) for name in self.called - {own})

    def _opposite(self, node: ast.AST, root: ast.AST) -> ast.AST | None:
        """The other operand of the equality `node` is an operand of (`a == b`, `a != b`,
        `assertEqual(a, b)`), or None."""
        sides: list[ast.expr] = []
        if isinstance(root, ast.Compare) and len(root.ops) == 1:
            if isinstance(root.ops[0], (ast.Eq, ast.NotEq)):
                sides = [root.left, root.comparators[0]]
        elif isinstance(root, ast.Call) and "Equal" in (_name(root) or "") and len(root.args) >= 2:
            sides = root.args[:2]
        for i, side in enumerate(sides):
            if any(n is node for n in ast.walk(side)):
                return sides[1 - i]
        return None

    def _other(self, call: ast.Call, own: str) -> bool:
        name = _name(call)
        return name is not None and name != own and name in self.project

    def positions(self, call: ast.Call) -> Iterator[ast.AST]:
        """Where the value of `call` is used: the call itself, or each read of a local name it is
        assigned to (`expected = f"{to_ordinal(n)} time"`)."""
        stmt: ast.AST = call
        while stmt in self.parent and not isinstance(stmt, ast.stmt):
            stmt = self.parent[stmt]
        if (
            self.assertion(call) is None
            and isinstance(stmt, ast.Assign)
            and len(stmt.targets) == 1
            and isinstance(stmt.targets[0], ast.Name)
        ):
            scope = self.parent.get(stmt, self.tree)
            reads: list[ast.AST] = [
                n
                for n in ast.walk(scope)
                if isinstance(n, ast.Name)
                and n.id == stmt.targets[0].id
                and isinstance(n.ctx, ast.Load)
            ]
            yield from reads or [call]
            return
        yield call


def _constants(scope: ast.AST, names: set[str]) -> set[str]:
    """Those of `names` that `scope` binds, and binds only by `NAME = <immutable literal>`."""
    bound: dict[str, bool] = {}
    for node in ast.walk(scope):
        targets: list[ast.expr] = []
        if isinstance(node, ast.Assign):
            targets = node.targets
        elif isinstance(node, (ast.AnnAssign, ast.AugAssign, ast.NamedExpr, ast.For)):
            targets = [node.target]
        elif isinstance(node, (ast.With, ast.AsyncWith)):
            targets = [i.optional_vars for i in node.items if i.optional_vars is not None]
        for target in targets:
            for n in ast.walk(target):
                if isinstance(n, ast.Name) and n.id in names:
                    literal = (
                        isinstance(node, ast.Assign)
                        and target is n
                        and _immutable_literal(node.value)
                    )
                    bound[n.id] = bound.get(n.id, True) and literal
    return {name for name, literal in bound.items() if literal}


def _immutable_literal(expr: ast.expr) -> bool:
    try:
        value = ast.literal_eval(expr)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return False
    return isinstance(value, (int, float, complex, str, bytes, bool, tuple, frozenset, type(None)))


def oracle_functions(
    test_source: str, scope: dict[str, list[str]], sources: dict[str, str]
) -> dict[str, list[str]]:
    """rel -> the functions of `scope` (as the run names them, in the targets' `sources`) that the
    test file calls only on the expected side of its assertions. A call whose class the test's
    code shows (`Ruler(3).size()`) is a call of that class's method alone, not of every `size`."""
    try:
        tree = ast.parse(test_source)
    except SyntaxError:
        return {}
    trees = []
    for text in sources.values():
        try:
            trees.append(ast.parse(text))
        except SyntaxError:
            continue
    functions = [n for names in scope.values() for n in names if not n.startswith("<")]
    # what a call of the project looks like: a function's or method's name, a class's
    project = {part for n in functions for part in n.split(".") if not part.startswith("<")}
    callees = _callees(trees)
    found = _File(tree, project, callees, project_classes(trees))
    calls: dict[str, list[ast.Call]] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and (name := _name(node)) in project:
            calls.setdefault(name, []).append(node)
    oracles: set[str] = set()
    uncalled: set[str] = set()
    handed = found.handed_on()
    for function in functions:
        last = function.rsplit(".", 1)[-1]
        sites = [c for c in calls.get(last, []) if found.receivers.resolve(c) in (None, function)]
        if not sites:
            uncalled.add(function)
        elif last not in handed and all(
            found.expected_side(p, last) for c in sites for p in found.positions(c)
        ):
            oracles.add(function)
    closure = _helpers(oracles, uncalled, callees)
    out = {rel: [n for n in names if n in closure] for rel, names in scope.items()}
    return {rel: names for rel, names in out.items() if names}


def _helpers(oracles: set[str], uncalled: set[str], callees: dict[str, set[str]]) -> set[str]:
    """The oracles and what only they call: tenacity's `to_ordinal` is a one-line wrapper of
    `find_ordinal`, which no other code calls and the tests do not call themselves."""
    if not oracles:
        return oracles
    closure = set(oracles)
    grew = True
    while grew:
        grew = False
        for name in uncalled - closure:
            last = name.rsplit(".", 1)[-1]
            callers = {g for g, called in callees.items() if last in called and g != name}
            if callers and callers <= closure:
                closure.add(name)
                grew = True
    return closure


def set_aside(
    run: MutationResult, oracle: dict[str, list[str]]
) -> list[tuple[Mutant, MutantResult]]:
    """Take the mutants of oracle functions out of the run's scope; returns them."""
    out = [(m, r) for m, r in run.scored if m.function in oracle.get(m.file, ())]
    for m, _ in out:
        del run.results[m.id]
    if run.scope is not None:
        for rel, names in oracle.items():
            run.scope[rel] = [n for n in run.scope.get(rel, []) if n not in names]
    return out


def note(oracle: dict[str, list[str]], mutants: int) -> str:
    where = ", ".join(f"{name} ({rel})" for rel, names in oracle.items() for name in names)
    return (
        f"{mutants} mutant{'' if mutants == 1 else 's'} of oracle code not counted: {where}, "
        "which the tests call only to compute the values they expect"
    )
