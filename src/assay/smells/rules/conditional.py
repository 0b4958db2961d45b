"""AS011: checks that may never run (under an `if` or `case`) or that hide the other cases of a
table (in a loop over cases written out in the test)."""

from __future__ import annotations

import ast
from collections.abc import Iterator

from assay.config.smells import SmellsConfig
from assay.smells.model import Hit, rule
from assay.smells.names import dotted, last_name
from assay.smells.testfunc import TestFunc

# Calls that pass a case table through unchanged: iterating them iterates the table.
TABLE_WRAPPERS = {
    "enumerate",
    "zip",
    "sorted",
    "reversed",
    "list",
    "tuple",
    "set",
    "frozenset",
    "iter",
    "dict",
}
TABLE_VIEWS = {"items", "keys", "values"}
LOOPS = (ast.For, ast.AsyncFor)
SKIPS = {"skip", "skipTest", "xfail"}  # end the test with a visible outcome: not a silent pass


def _always(stmts: list[ast.stmt], checks: set[int]) -> bool:
    """Every path through `stmts` reaches a check."""
    return any(_stmt_always(s, checks) for s in stmts)


def _stmt_always(s: ast.stmt, checks: set[int]) -> bool:
    if isinstance(s, ast.If):
        return _always(s.body, checks) and _always(s.orelse, checks)
    if isinstance(s, ast.Match):
        return _irrefutable(s) and all(_always(c.body, checks) for c in s.cases)
    if isinstance(s, (*LOOPS, ast.While)):
        return False  # the body may run no time
    if isinstance(s, (ast.With, ast.AsyncWith)):
        return any(_has(i.context_expr, checks) for i in s.items) or _always(s.body, checks)
    if isinstance(s, ast.Try) or type(s).__name__ == "TryStar":
        return _always(s.finalbody, checks) or (  # type: ignore[attr-defined]
            _always(s.body, checks) and all(_always(h.body, checks) for h in s.handlers)  # type: ignore[attr-defined]
        )
    if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return False
    if (
        isinstance(s, ast.Expr)
        and isinstance(s.value, ast.Call)
        and last_name(dotted(s.value.func, {})) in SKIPS
    ):
        return True
    return _has(s, checks)


def _has(node: ast.AST, checks: set[int]) -> bool:
    return any(id(n) in checks for n in ast.walk(node))


def _irrefutable(m: ast.Match) -> bool:
    """A `case _:` (or `case name:`) without a guard: some case always matches."""
    return any(
        isinstance(c.pattern, ast.MatchAs) and c.pattern.pattern is None and c.guard is None
        for c in m.cases
    )


def _chain_head(test: TestFunc, node: ast.If) -> ast.If:
    """The first `if` of an if/elif chain (an `elif` is an `if` alone in its parent's `else`)."""
    parent = test.parents.get(id(node))
    while isinstance(parent, ast.If) and len(parent.orelse) == 1 and parent.orelse[0] is node:
        node, parent = parent, test.parents.get(id(parent))
    return node


def _table(test: TestFunc, node: ast.AST, depth: int = 0) -> bool:
    """An iterable that is a table of cases written out in the test: a literal list, tuple, set or
    dict of two or more entries, directly, through a name bound once to one (in the test, its class
    or the module), or through enumerate/zip/sorted/.items() ... of one."""
    if depth > 4:
        return False
    if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
        return len(node.elts) >= 2 and not any(isinstance(e, ast.Starred) for e in node.elts)
    if isinstance(node, ast.Dict):
        return len(node.keys) >= 2 and None not in node.keys
    if isinstance(node, ast.Name):
        values = test.assigned.get(node.id)
        if values is not None:  # a loop or unpacking target (Store context) is not a value
            return (
                len(values) == 1
                and isinstance(values[0], ast.expr)
                and not isinstance(getattr(values[0], "ctx", None), ast.Store)
                and _table(test, values[0], depth + 1)
            )
        if node.id in test.params:
            return False
        const = test.module.constants.get(node.id)
        return const is not None and _table(test, const, depth + 1)
    if (
        isinstance(node, ast.Attribute)
        and isinstance(node.value, ast.Name)
        and node.value.id in ("self", "cls")
        and test.cls is not None
    ):
        class_values = [
            s.value
            for s in test.cls.body
            if isinstance(s, ast.Assign)
            and any(isinstance(t, ast.Name) and t.id == node.attr for t in s.targets)
        ]
        return len(class_values) == 1 and _table(test, class_values[0], depth + 1)
    if isinstance(node, ast.Call):
        func = node.func
        if isinstance(func, ast.Attribute) and func.attr in TABLE_VIEWS and not node.args:
            return _table(test, func.value, depth + 1)
        if dotted(func, test.module.aliases) in TABLE_WRAPPERS:
            return any(_table(test, a, depth + 1) for a in node.args)
    return False


def _runs_cases(test: TestFunc, loop: ast.For | ast.AsyncFor, checks: set[int]) -> bool:
    """Each pass exercises the code differently: the loop variable is an input (an argument or the
    callee of a call that is not itself a check, an index, the left of `in`), or the table's entries
    are results of calls. A variable that is only the expected value of a check
    (`for x in expected: assertEqual(next(it), x)`) walks one object through its states instead."""
    names = {n.id for n in ast.walk(loop.target) if isinstance(n, ast.Name)}

    def uses(node: ast.AST) -> bool:
        return any(isinstance(n, ast.Name) and n.id in names for n in ast.walk(node))

    def inputs(n: ast.AST) -> list[ast.AST]:
        if isinstance(n, ast.Call) and id(n) not in checks:
            return [n.func, *n.args, *(k.value for k in n.keywords)]
        if isinstance(n, ast.Subscript):
            return [n.slice]
        if isinstance(n, ast.Compare) and isinstance(n.ops[0], (ast.In, ast.NotIn)):
            return [n.left]
        return []

    if any(uses(i) for stmt in loop.body for n in ast.walk(stmt) for i in inputs(n)):
        return True
    # an unused variable: the same check repeated
    return any(uses(stmt) for stmt in loop.body) and any(
        isinstance(n, ast.Call) for n in ast.walk(_rows(test, loop.iter))
    )


def _rows(test: TestFunc, node: ast.AST) -> ast.AST:
    """The table a loop's iterable names (through local or module names), for looking at
    its entries."""
    if isinstance(node, ast.Name):
        values = test.assigned.get(node.id) or [test.module.constants.get(node.id)]
        return values[0] if len(values) == 1 and isinstance(values[0], ast.expr) else node
    return node


def _subtest_loop(loop: ast.AST) -> bool:
    """A loop whose body opens a unittest `subTest` (or pytest-subtests' `subtests.test`)
    per case."""
    for n in ast.walk(loop):
        if isinstance(n, ast.Call):
            name = dotted(n.func, {}) or ""
            if last_name(name) == "subTest" or name.endswith("subtests.test"):
                return True
    return False


@rule(
    "AS011",
    "conditional-assertion",
    "warn",
    "assertion under conditional logic",
    "Make each case its own test (pytest.mark.parametrize / subTest); avoid `if` around checks.",
)
def conditional_assertion(test: TestFunc, cfg: SmellsConfig) -> Iterator[Hit]:
    """A check under an `if` (or a `case`) may never run; checks in a loop over a table of cases
    stop at the first failing case and hide the others.

    Not flagged: an `if`/`elif`/`else` (or a `match` with a catch-all case) whose every branch
    checks something (`if expected is None: with pytest.raises(...) ... else: assert ...`) or skips
    the test (`pytest.skip`, `self.skipTest`): every path asserts or says why it does not. A loop
    over a table of cases is one over a list, tuple, set or dict written out in the test (two or
    more entries; directly, through a name bound to one, or through `enumerate`, `zip`, `.items()`
    ...) where each pass exercises the code differently (the loop variable is an input: an argument
    or the callee of a call, an index, the left of `in`; or the entries are results of calls).
    Loops over computed values (a `range`, the result of the code under test, random draws) check
    one property over many values: one behaviour, not a table; so does a loop whose variable is
    only the expected value (successive states of one object); and a loop that opens a `subTest`
    per case is fine.

    Bad:
        def test_discounts():
            for amount, expected in [(10, 1), (20, 2), (-1, None)]:
                if expected is not None:
                    assert discount(amount) == expected

    Good:
        @pytest.mark.parametrize("amount, expected", [(10, 1), (20, 2), (-1, None)])
        def test_discount(amount, expected):
            if expected is None:
                with pytest.raises(ValueError):
                    discount(amount)
            else:
                assert discount(amount) == expected

        def test_every_chunk_is_full():
            for chunk in chunked(range(9), 3):
                assert len(chunk) == 3
    """
    checks = {id(a.node) for a in test.assertions}
    seen: set[int] = set()
    for a in test.assertions:
        if a.kind == "raise":
            continue
        child: ast.AST = a.node
        for anc in test.ancestors(a.node):
            if isinstance(anc, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
                break
            if isinstance(anc, ast.If) and child is not anc.test:
                head = _chain_head(test, anc)
                if id(head) not in seen:
                    seen.add(id(head))
                    if not _stmt_always(head, checks):
                        yield Hit.at(head, "assertion under `if`: it may never run")
            elif isinstance(anc, ast.match_case) and id(anc) not in seen:
                match = test.parents.get(id(anc))
                seen.add(id(anc))
                if isinstance(match, ast.Match) and id(match) not in seen:
                    seen.add(id(match))
                    if not _stmt_always(match, checks):
                        yield Hit.at(match, "assertion under `case`: it may never run")
            elif (
                isinstance(anc, LOOPS)
                and child is not anc.iter
                and child not in anc.orelse
                and id(anc) not in seen
            ):
                seen.add(id(anc))
                if (
                    _table(test, anc.iter)
                    and _runs_cases(test, anc, checks)
                    and not _subtest_loop(anc)
                ):
                    yield Hit.at(
                        anc,
                        "assertion inside a loop over a table of cases: one failure hides "
                        "the other cases",
                    )
            child = anc
