"""The smell rules of the languages other than Python (ids AP000-AP006), one function per rule;
what differs by language (assertion style, sleeps, mocks) comes from the language
(`Language.smells`, its `Family`).

Each rule is a `Rule` like the Python ones (id, name, level, message, hint, a docstring with the why
and a bad and a good example) and checks one test case: `check(case, ctx) -> Iterator[Hit]`. They
have their own registry, so the Python rules' (AS000-AS025) stay as they are.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from assay.smells.model import Hit, Level, Profile, Rule
from assay.smells.model import rule as register_rule
from assay.smells.polyglot.comparisons import (
    EQUAL,
    LITERAL,
    NOT_EQUAL,
    pair,
    same,
    under_test,
)
from assay.smells.polyglot.syntax import Call, Case, Family, norm, text

RULES: dict[str, Rule] = {}

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


def rule(
    id: str,
    name: str,
    level: Level,
    message: str,
    hint: str,
    profiles: dict[Profile, Level] | None = None,
) -> Callable:
    return register_rule(id, name, level, message, hint, profiles=profiles, registry=RULES)


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
    profiles={"generated": "reject", "suite": "warn"},
)
def no_assertion(case: Case, ctx: Context) -> Iterator[Hit]:
    """A test without an assertion passes whatever the code does: it can only fail by crashing.

    Rejected in generated tests (`profile = "generated"`, which `assay generate` uses; set it to
    judge tests a model wrote); a warning in a project's own suite (`"suite"`, what `"auto"` means
    outside Python), where Java's and Rust's "does not throw" tests are an idiom (a validator
    that must accept a value, a `debug_assert!` that must hold: commons-lang3's `ValidateTest`,
    smallvec): there gate 4 judges whether the test catches anything by crashing, and one that
    kills no mutant is `low_value`.

    Expected exceptions count (`assertThrows`, `#[should_panic]`, `[ExpectedException]`,
    `.toThrow()`), and so do calls of helpers whose name starts with assert, expect, verify or
    check, in Go any helper given `t`, in Rust `.unwrap()`/`.expect(..)` (they panic when the
    call fails), quickcheck's `quickcheck(prop)`, proptest's `prop_assert*!` and assertions
    inside a macro's arguments, and any helper that asserts: a
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
        if not is_assertion(call, ctx) or not call.statement or under_test(call, ctx.package):
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
        sides = pair(call, args)
        if sides is None:
            continue
        a, b = (x.strip() for x in sides)
        if negated:  # `assert_ne!(1, 2)`: two different literals can never be equal
            hit = bool(LITERAL.match(a)) and bool(LITERAL.match(b)) and norm(a) != norm(b)
        else:
            hit = same(a, b, call.name, ctx.family, body)
        if hit:
            yield Hit(call.line, call.col, f"tautology: compares {a[:40]} with {b[:40]}")
