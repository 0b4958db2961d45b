"""The smell rules of the languages other than Python (ids AP000-AP006), one function per rule;
what differs by language (assertion style, sleeps, mocks) comes from the language
(`Language.smells`, its `Family`).

Each rule is a `Rule` like the Python ones (id, name, level, message, hint, a docstring with the why
and a bad and a good example) and checks one test case: `check(case, ctx) -> Iterator[Hit]`. They
have their own registry, so the Python rules' (AS000-AS023) stay as they are.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from assay.smells.model import Hit, Level, Rule
from assay.smells.polyglot.syntax import Call, Case, Family, norm, text

RULES: dict[str, Rule] = {}

LITERAL = re.compile(
    r'^(-?\d[\d_.]*[a-zA-Z]*|"[^"]*"|\'[^\']*\'|`[^`$]*`|true|false|null|nil|None|undefined|'
    r"True|False)$"
)
TRUTHY = re.compile(r"^(true|True)$")


@dataclass
class Context:
    """What a rule sees besides the test case: its language's syntax and facts, every call in it,
    file-level facts."""

    family: Family  # the language's rules module: its assertion style, its unexplained skips
    calls: list[Call]
    max_mocks: int
    # mocks made for the whole file (`@Mock` fields, `jest.mock(...)` at the top level)
    file_mocks: int = 0
    sleep: str = "$^"  # regex of a fixed sleep's callee (`Language.smells.sleep`)
    mocks: str = "$^"  # regex of a mock's callee (`Language.smells.mocks`)
    # helpers defined in the file that assert (a test calling one asserts through it)
    asserting_helpers: frozenset[str] = frozenset()
    package: str | None = None  # the file's package when its functions are called unqualified


def rule(id: str, name: str, level: Level, message: str, hint: str) -> Callable:
    def register(fn: Callable[..., Iterator[Hit]]) -> Callable[..., Iterator[Hit]]:
        RULES[id] = Rule(
            id, name, level, message, hint, inspect.cleandoc(fn.__doc__ or ""), fn, "test"
        )
        return fn

    return register


def is_assertion(call: Call, ctx: Context) -> bool:
    return ctx.family.is_assertion(call)


def _body_empty(case: Case) -> bool:
    if case.body is None:
        return False
    inner = [
        c
        for c in case.body.named_children
        if c.type not in ("comment", "line_comment", "block_comment")
    ]
    return not inner


@rule(
    "AP001",
    "no-assertion",
    "reject",
    "no assertion",
    "Assert on the result (assertEquals, t.Errorf, assert_eq!, expect(...).toBe, Assert.Equal).",
)
def no_assertion(case: Case, ctx: Context) -> Iterator[Hit]:
    """A test without an assertion passes whatever the code does: it can only fail by crashing.

    Expected exceptions count (`assertThrows`, `#[should_panic]`, `[ExpectedException]`,
    `.toThrow()`), and so do calls of helpers whose name starts with assert, expect, verify or
    check, in Go any helper given `t`, in Rust `.unwrap()`/`.expect(..)` (they panic when the
    call fails) and assertions inside a macro's arguments, and any helper that asserts: a
    function of the same file (all its overloads), of a module it declares (`mod util;`, an
    imported test class, a superclass), a `macro_rules!` whose body asserts, or a Rust type of the
    file whose `impl` asserts, built by the test (`PanickingCounter { .. }`).

    Bad:
        @Test
        void total() {
            Price.total(100, 250);
        }

    Good:
        @Test
        void total() {
            assertEquals(350, Price.total(100, 250));
        }
    """
    if _body_empty(case) or case.skip is not None or case.body is None:
        return
    if case.attrs & {"should_panic", "ExpectedException"}:
        return
    if not any(is_assertion(c, ctx) or c.name in ctx.asserting_helpers for c in ctx.calls):
        yield Hit(case.line, case.col)


@rule(
    "AP002",
    "empty-test",
    "reject",
    "empty test",
    "Write the test's arrange, act and assert, or delete it.",
)
def empty_test(case: Case, ctx: Context) -> Iterator[Hit]:
    """A test with an empty body always passes and tests nothing; it inflates the count of tests.

    Bad:
        func TestTotal(t *testing.T) {
        }

    Good:
        func TestTotal(t *testing.T) {
            if got, _ := Total(100, 250); got != 350 {
                t.Errorf("Total = %d; want 350", got)
            }
        }
    """
    if case.skip is None and _body_empty(case):
        yield Hit(case.line, case.col)


@rule(
    "AP003",
    "sleep",
    "warn",
    "sleep in a unit test",
    "Wait for the condition (a latch, a channel, a fake clock), not for a fixed time.",
)
def sleep(case: Case, ctx: Context) -> Iterator[Hit]:
    """A fixed sleep makes a test slow, and flaky when the machine is slower than the sleep assumed.

    Bad:
        #[test]
        fn cache_expires() {
            let c = Cache::new(Duration::from_millis(10));
            std::thread::sleep(Duration::from_millis(20));
            assert!(c.get("k").is_none());
        }

    Good:
        #[test]
        fn cache_expires() {
            let clock = FakeClock::new();
            let c = Cache::with_clock(Duration::from_millis(10), &clock);
            clock.advance(Duration::from_millis(20));
            assert!(c.get("k").is_none());
        }
    """
    for call in ctx.calls:
        if re.search(ctx.sleep, call.callee):
            yield Hit(call.line, call.col, f"{call.callee}(...) in a unit test")


@rule(
    "AP004",
    "skip-without-reason",
    "warn",
    "skipped test without a reason",
    "Say why it is skipped and when it comes back "
    '(@Disabled("..."), t.Skip("..."), #[ignore = "..."]).',
)
def skip_without_reason(case: Case, ctx: Context) -> Iterator[Hit]:
    """A test skipped without a reason is forgotten: nobody knows whether it may come back or be
    deleted. JavaScript runners take no reason, so `it.skip` and `xit` always count.

    Bad:
        @Disabled
        @Test
        void refund() { ... }

    Good:
        @Disabled("refunds are off until the payment provider's sandbox is back (#412)")
        @Test
        void refund() { ... }
    """
    if case.skip == "":
        yield Hit(case.line, case.col)
    for call in ctx.calls:
        if ctx.family.unexplained_skip(call):
            yield Hit(call.line, call.col)


@rule(
    "AP005",
    "excessive-mocking",
    "reject",
    "excessive mocking",
    "Test through real collaborators or fakes; mock only the boundary the test is about.",
)
def excessive_mocking(case: Case, ctx: Context) -> Iterator[Hit]:
    """A test that mocks more than a few collaborators checks how the code is wired, not what it
    does: it breaks on every refactoring and passes on wrong results. Counted: Mockito `mock`/`spy`
    and `@Mock` fields, gomock's `NewMock...`, mockall's `Mock...::new`,
    `jest.mock`/`vi.mock`/`jest.fn`/`vi.fn`/`spyOn`, sinon, Moq's `new Mock<T>`, NSubstitute,
    FakeItEasy; above `max_mocks` ([tool.assay.smells], 6) per test.

    Bad:
        vi.mock("../src/db"); vi.mock("../src/mailer"); vi.mock("../src/clock"); ...
        it("registers", () => { register(user); expect(db.save).toHaveBeenCalled(); });

    Good:
        it("registers", () => {
          const db = new InMemoryDb();
          register(user, db);
          expect(db.find(user.id)).toEqual(user);
        });
    """
    n = ctx.file_mocks + sum(1 for c in ctx.calls if re.search(ctx.mocks, c.callee))
    if n > ctx.max_mocks:
        yield Hit(case.line, case.col, f"excessive mocking: {n} mocks (at most {ctx.max_mocks})")


# comparisons by name, in every language's spelling: `assertEquals`, `assert_eq!`, `Equal`,
# `AreEqual`, `t.equal`, `deepStrictEqual`, `expect(a).toBe`, ... Other calls are not compared
# (a helper `checkEncoding("01", "Aabjoe")` takes an expected value and an input, not two sides)
EQUAL = frozenset(
    [
        "assertEquals",
        "assertArrayEquals",
        "assertIterableEquals",
        "assert_eq!",
        "debug_assert_eq!",
        "Equal",
        "AreEqual",
        "EqualValues",
        "Exactly",
        "ObjectsAreEqual",
        "equal",
        "equals",
        "strictEqual",
        "deepEqual",
        "deepStrictEqual",
        "same",
        "strictSame",
        "is",
        "isEqualTo",
        "toBe",
        "toEqual",
        "toStrictEqual",
        "eq",
        "eql",
        "assertSame",
        "Same",
        "AreSame",
        "isSameAs",
    ]
)
NOT_EQUAL = frozenset(
    [
        "assertNotEquals",
        "assertNotSame",
        "assert_ne!",
        "debug_assert_ne!",
        "NotEqual",
        "AreNotEqual",
        "NotSame",
        "AreNotSame",
        "notEqual",
        "notStrictEqual",
        "notDeepEqual",
        "notDeepStrictEqual",
        "notSame",
        "isNotEqualTo",
        "isNotSameAs",
    ]
)
# comparisons by identity: no user code runs, so `x` against `x` cannot fail
IDENTITY = frozenset(["assertSame", "Same", "AreSame", "isSameAs", "toBe", "strictEqual", "is"])
_PLAIN_TYPE = (
    r"(int|long|short|byte|char|boolean|double|float|String|string|bool|var|"
    r"[iu](8|16|32|64|128|size)|f32|f64|&str|&'static str)"
)


def _bound_to_plain(name: str, body: str) -> bool:
    """`name` is declared in the test with a primitive type or bound to a literal (`int x =`,
    `let x = 1;`, `let x: u32 =`): its equality is the language's, not the type's own."""
    n = re.escape(name)
    if re.search(rf"\b{_PLAIN_TYPE}\s+{n}\s*=", body) or re.search(
        rf"\b{n}\s*:\s*{_PLAIN_TYPE}\s*=", body
    ):
        return True
    m = re.search(rf"(^|[\s;{{(])(let\s+(mut\s+)?)?{n}\s*=\s*([^;=\n]+)[;\n]", body)
    return bool(m and LITERAL.match(m.group(4).strip()))


def _same(a: str, b: str, name: str, ctx: Context, body: str) -> bool:
    """Two sides that cannot differ: the same value twice or the same literal twice. The same
    *call* twice (`assert_eq!(version("1.2.3"), version("1.2.3"))`) is not (it checks
    determinism), nor a getter twice (`reply.elapsedTime`), nor one object against itself where
    equality is the type's own code (`assertEquals(option, option)` tests `equals`)."""
    if norm(a) != norm(b):
        return False
    if "(" in a or (ctx.family.getters and "." in a):
        return False
    if LITERAL.match(a.strip()) or name in IDENTITY or not ctx.family.own_equality:
        return True
    return _bound_to_plain(a.strip(), body)


def _under_test(call: Call, ctx: Context) -> bool:
    """An assertion of the file's own package (`Equal(t, 1, 1)` or `assert.Equal(1, 1)` in
    package assert): the assertion library tests itself."""
    qualifier = call.callee.rpartition(".")[0]
    return ctx.package is not None and qualifier in ("", ctx.package)


def _pair(call: Call, args: list[str]) -> tuple[str, str] | None:
    """The two sides an equality assertion compares: `expect(a).toBe(b)`, else its first two
    arguments (after Go's `t`)."""
    if call.receiver_args and call.args and len(call.receiver_args) == 1:
        return call.receiver_args[0], call.args[0]
    if len(args) >= 2:
        return args[0], args[1]
    return None


@rule(
    "AP006",
    "tautology",
    "reject",
    "tautology",
    "Compare the code's result with an expected value the test states, not a value with itself.",
)
def tautology(case: Case, ctx: Context) -> Iterator[Hit]:
    """An assertion that compares a value with itself, or a literal with the same literal, or
    asserts `true`, or that two different literals differ, can never fail: it looks like a check
    and is none. Only equality assertions are read as two sides (`assertEquals`, `assert_eq!`,
    `Equal`, `t.equal`, `expect(a).toBe(b)` ...), not helpers (`checkEncoding("01", "Aabjoe")`).
    Not tautologies: the same call twice (it checks determinism), a getter twice, and an object
    compared with itself where equality is the type's own code (Java's `equals`, Rust's
    `PartialEq`, C#'s `Equals`: `assertEquals(option, option)` tests reflexivity), unless the
    test binds it to a plain value (`int x = ...`, `let x = 1;`). An assertion whose result
    the test uses (`if !assert.Equal(1, 1) { t.Error(..) }`) or that belongs to the test's own
    Go package is the code under test, not a check (an assertion library's own suite).

    Bad:
        it("totals", () => {
          const t = total(100, 250);
          expect(t).toBe(t);
        });

    Good:
        it("totals", () => {
          expect(total(100, 250)).toBe(350);
        });
    """
    body = text(case.body) if case.body is not None else ""
    for call in ctx.calls:
        if not is_assertion(call, ctx) or not call.statement or _under_test(call, ctx):
            continue
        args = [a for a in call.args if a.strip() != "t"]
        negated = ".not." in call.callee or call.name in NOT_EQUAL
        if call.receiver_args and not call.args and call.name in ("toBeTruthy", "toBeDefined"):
            arg = call.receiver_args[0].strip()
            if TRUTHY.match(arg) or LITERAL.match(arg):
                yield Hit(call.line, call.col, f"tautology: {call.callee}() on a literal")
            continue
        if (
            len(args) == 1
            and TRUTHY.match(args[0].strip())
            and re.search(r"assert(True|!)?$|^assert$|True$", call.name)
        ):
            yield Hit(call.line, call.col, f"tautology: {call.name}({args[0].strip()})")
            continue
        if call.name not in EQUAL | NOT_EQUAL:
            continue
        pair = _pair(call, args)
        if pair is None:
            continue
        a, b = (x.strip() for x in pair)
        if negated:  # `assert_ne!(1, 2)`: two different literals can never be equal
            hit = bool(LITERAL.match(a)) and bool(LITERAL.match(b)) and norm(a) != norm(b)
        else:
            hit = _same(a, b, call.name, ctx, body)
        if hit:
            yield Hit(call.line, call.col, f"tautology: compares {a[:40]} with {b[:40]}")
