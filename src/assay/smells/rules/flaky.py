"""AS024: an assertion whose outcome is decided by unseeded randomness, the wall clock or a remote
server rather than by the code under test; followed through the test's local names."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass

from assay.config.smells import SmellsConfig
from assay.smells.model import Hit, rule
from assay.smells.names import dotted, last_name
from assay.smells.rules.hygiene import CLOCK, HTTP_VERBS, _faked, _unseeded_random
from assay.smells.testfunc import TestFunc

# Calls that carry a value through unchanged in kind: a random number stays random after `round`,
# a timestamp stays the clock's after `int`. Any other call (the code under test) makes a new value
# whose relation to its input the assertion may well check for every input.
CARRIERS = {
    "abs",
    "round",
    "int",
    "float",
    "str",
    "bool",
    "len",
    "min",
    "max",
    "sum",
    "sorted",
    "list",
    "tuple",
    "set",
    "frozenset",
    "divmod",
    "approx",
}
NETWORK_CALLS = {
    *(f"{lib}.{verb}" for lib in ("requests", "httpx") for verb in HTTP_VERBS),
    "urllib.request.urlopen",
    "urllib.urlopen",
    "socket.create_connection",
}
LOCAL_HOSTS = ("localhost", "127.", "[::1]", "0.0.0.0")
KINDS = {"random": "unseeded randomness", "clock": "wall-clock time", "network": "the network"}


@dataclass(frozen=True)
class Source:
    """Where a value comes from: `kind` and the call that made it; `raw` when no call of other
    code lies between that call and the value (only arithmetic, attributes, carriers)."""

    kind: str
    call: str
    raw: bool


def _remote(test: TestFunc, call: ast.Call) -> bool:
    """The call's address is written in the test (or in a module constant) and names a remote
    host: a request to a local test server (a fixture's URL, `localhost`) is deterministic enough
    to assert on."""
    if not call.args:
        return False
    arg = call.args[0]
    if isinstance(arg, ast.Name) and arg.id not in test.assigned:
        arg = test.module.constants.get(arg.id, arg)
    if isinstance(arg, ast.JoinedStr) and arg.values:
        arg = arg.values[0]
    if isinstance(arg, ast.Tuple) and arg.elts:  # socket.create_connection(("host", 80))
        arg = arg.elts[0]
        text = arg.value if isinstance(arg, ast.Constant) else None
        return isinstance(text, str) and not text.startswith(LOCAL_HOSTS)
    text = arg.value if isinstance(arg, ast.Constant) else None
    if not isinstance(text, str) or "://" not in text:
        return False
    return not text.split("://", 1)[1].startswith(LOCAL_HOSTS)


def _source(test: TestFunc, call: ast.Call, name: str | None) -> str | None:
    if not name or _faked(test, name):
        return None
    if name in CLOCK:
        return None if test.module.seeded else "clock"
    if _unseeded_random(call, name):
        return None if test.module.seeded else "random"
    if name in NETWORK_CALLS and _remote(test, call):
        return "network"
    return None


class _Flow:
    """The sources of a test's values: computed once per test, names followed to a fixpoint."""

    def __init__(self, test: TestFunc):
        self.test = test
        self.names: dict[str, Source] = {}
        # `[res] = f(s)`: an unpacked name comes from the right-hand side (parse's round trip)
        unpacked = {
            id(t): node.value
            for node in test.of(ast.Assign)
            if isinstance(node, ast.Assign)
            for t in node.targets
            if isinstance(t, (ast.Tuple, ast.List))
        }
        for _ in range(5):  # chains of assignments, each pass follows one more step
            changed = False
            for name, values in test.assigned.items():
                found = [
                    s for v in values if (s := self.of(_value(unpacked.get(id(v), v)))) is not None
                ]
                if found and name not in self.names:
                    best = next((s for s in found if not s.raw), found[0])
                    self.names[name] = best
                    changed = True
            if not changed:
                break

    def of(self, node: ast.AST | None) -> Source | None:
        """The source of an expression's value, None when it depends on none."""
        if node is None:
            return None
        if isinstance(node, ast.Name):
            return self.names.get(node.id)
        if isinstance(node, ast.Call):
            name = dotted(node.func, self.test.module.aliases)
            kind = _source(self.test, node, name)
            if kind:
                return Source(kind, name or "", True)
            receiver = node.func.value if isinstance(node.func, ast.Attribute) else None
            carried = receiver is not None and self.of(receiver) is not None
            raw = carried or last_name(name) in CARRIERS
            return self._combine([*node.args, *(k.value for k in node.keywords), receiver], raw)
        if isinstance(node, ast.BinOp):
            return self._combine([node.left, node.right], True)
        if isinstance(node, (ast.Lambda, ast.FunctionDef, ast.AsyncFunctionDef)):
            return None
        found = [s for c in ast.iter_child_nodes(node) if (s := self.of(c)) is not None]
        if not found:
            return None
        return Source(found[0].kind, found[0].call, all(s.raw for s in found))

    def _combine(self, parts: list[ast.expr | None], carries: bool) -> Source | None:
        """The source of a value computed from `parts` (a call's arguments and receiver, an
        operation's operands): raw only when the computation `carries` the value (arithmetic, a
        builtin, its own method) and mixes it with nothing but constants. `time.time() - start`
        stays the clock's; `time.time() - obj.created` relates the clock to the code's value."""
        found: list[Source] = []
        mixed = False
        for p in parts:
            if p is None:
                continue
            s = self.of(p)
            if s is not None:
                found.append(s)
            elif not constant(self.test, p):
                mixed = True
        if not found:
            return None
        raw = carries and not mixed and all(s.raw for s in found)
        return Source(found[0].kind, found[0].call, raw)


def _value(v: ast.AST | None) -> ast.AST | None:
    """What a name is assigned from: a loop's iterable, a `with`'s context expressions."""
    if isinstance(v, ast.For):
        return v.iter
    if isinstance(v, ast.With):
        return ast.Tuple(elts=[i.context_expr for i in v.items])
    if isinstance(v, ast.AugAssign):
        return ast.BinOp(left=v.target, op=v.op, right=v.value)
    return v


def constant(test: TestFunc, node: ast.AST) -> bool:
    """A literal, or a module-level name assigned once (`TIMEOUT = 5`)."""
    if isinstance(node, ast.UnaryOp):
        return constant(test, node.operand)
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return all(constant(test, e) for e in node.elts)
    if isinstance(node, ast.Name):
        return node.id in test.module.constants and node.id not in test.assigned
    return isinstance(node, ast.Constant)


def _decided(flow: _Flow, expr: ast.AST) -> Source | None:
    """The source that decides the assertion: a raw nondeterministic value asserted true by itself,
    or compared with a value that depends on no source (`random.random() < 0.9`, `time.time() -
    start < 1`, `f() == n` for a random `n`). The clock ordered against the code's value is a
    relation that holds whenever the code is right, as the code may read the clock itself
    (`before <= obj.created`); a value compared with another of the same source (`f(x) == x`) is
    a property: neither decides by chance."""
    if not isinstance(expr, ast.Compare):
        found = flow.of(expr)
        return found if found is not None and found.raw else None
    operands = [expr.left, *expr.comparators]
    sources = [flow.of(e) for e in operands]
    for i, op in enumerate(expr.ops):
        for mine, other in ((i, i + 1), (i + 1, i)):
            s, o = sources[mine], sources[other]
            if s is None or not s.raw or o is not None:
                continue
            ordering = isinstance(op, (ast.Lt, ast.LtE, ast.Gt, ast.GtE))
            if not ordering or s.kind != "clock" or constant(flow.test, operands[other]):
                return s
    return None


@rule(
    "AS024",
    "nondeterministic-assertion",
    "reject",
    "assertion decided by randomness, the clock or the network",
    "Seed the generator, freeze or inject the clock, fake the server; "
    "or assert a relation that holds for every input.",
)
def nondeterministic_assertion(test: TestFunc, cfg: SmellsConfig) -> Iterator[Hit]:
    """An assertion that compares an unseeded random value, the wall-clock time or a remote
    server's answer with a fixed value passes or fails by chance: a flaky test, whatever the code
    does. Values are followed through the test's local names. A value counts when it reaches the
    assertion unchanged but for arithmetic, attributes, methods of its own and builtins (`round`,
    `len`, `pytest.approx` ...). A random input passed through the code under test and compared
    with a constant, or used on both sides (`assert f(x) == g(x)`), is a property that may hold for
    every input, and the clock ordered against the code's value (`before <= obj.created <= after`)
    a relation that holds when the code reads the clock: neither is flagged (AS012 still warns).
    A seed or frozen clock anywhere in the file (`random.seed`, `random.Random(42)`,
    `default_rng(7)`, freezegun) or in a `conftest.py` above it, a patched source, and a request to
    a local server (`localhost`, a fixture's URL) are not flagged either.

    Bad:
        def test_discount_sometimes():
            rate = random.random()
            assert rate < 0.9

        def test_timestamp_is_this_year():
            assert stamp().year == datetime.date.today().year

        def test_rates_online():
            assert requests.get("https://api.example.com/rates").json()["EUR"] == 1

    Good:
        def test_discount_never_exceeds_price():
            rate = random.random()
            assert discount(100, rate) <= 100

        def test_timestamp_uses_the_clock_it_is_given():
            assert stamp(clock=lambda: 0).year == 1970
    """
    if not any(_source(test, call, name) for call, name in test.calls):
        return  # nothing nondeterministic is called: the common case, decided cheaply
    flow: _Flow | None = None
    for a in test.assertions:
        if a.expr is None:
            continue
        flow = flow or _Flow(test)
        source = _decided(flow, a.expr)
        if source is not None:
            yield Hit.at(
                a.node,
                f"assertion decided by {KINDS[source.kind]}: `{source.call}()` reaches it "
                "unchanged by the code under test",
            )
