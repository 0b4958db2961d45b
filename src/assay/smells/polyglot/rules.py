"""The smell rules for Java, Go, Rust, TypeScript, JavaScript and C# (ids AP000-AP006), one function per rule.

Each rule is a `Rule` like the Python ones (id, name, level, message, hint, a docstring with the why and a bad
and a good example) and checks one test case: `check(case, ctx) -> Iterator[Hit]`. They have their own registry,
so the Python rules' (AS000-AS023) stay as they are.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from assay.smells.model import Hit, Level, Rule
from assay.smells.polyglot.syntax import Call, Case, norm, text

RULES: dict[str, Rule] = {}

ASSERT_NAME = re.compile(r"^(assert|expect|verify|check|should|must|require|fail|ensure)", re.I)
GO_FAIL = {"Error", "Errorf", "Fatal", "Fatalf", "Fail", "FailNow"}
RUST_ASSERTS = re.compile(r"^(debug_)?assert(_eq|_ne|_matches)?!$|^(panic|unreachable|todo|unimplemented)!$")
JS_MATCHER = re.compile(r"^to[A-Z]")
SLEEP = {"java": re.compile(r"^(Thread\.sleep|TimeUnit\.\w+\.sleep|SECONDS\.sleep|MILLISECONDS\.sleep)$"),
         "go": re.compile(r"^time\.Sleep$"),
         "rust": re.compile(r"(^|::)thread::sleep$|^sleep$|tokio::time::sleep$"),
         "csharp": re.compile(r"^(Thread\.Sleep|Task\.Delay|await Task\.Delay)$"),
         "js": re.compile(r"^(setTimeout|sleep|delay|(\w+\.)?wait(ForTimeout)?)$")}
MOCKS = {"java": re.compile(r"^(Mockito\.)?(mock|spy|mockStatic|mockConstruction)$"),
         "go": re.compile(r"^(gomock\.NewController|(\w+\.)?NewMock\w*|mock\.Mock)$"),
         "rust": re.compile(r"^Mock\w+::(new|default)$"),
         "csharp": re.compile(r"^(new Mock<.*>|Substitute\.For(<.*>)?|A\.Fake(<.*>)?|Mock\.Of(<.*>)?)$"),
         "js": re.compile(r"^(jest|vi)\.(mock|fn|spyOn|doMock)$|^sinon\.(stub|spy|mock|fake)$|^(td\.)?(func|object)$")}
LITERAL = re.compile(r'^(-?\d[\d_.]*[a-zA-Z]*|"[^"]*"|\'[^\']*\'|`[^`$]*`|true|false|null|nil|None|undefined|'
                     r'True|False)$')
TRUTHY = re.compile(r"^(true|True)$")


@dataclass
class Context:
    """What a rule sees besides the test case: its language family, every call in it, file-level facts."""

    language: str  # java go rust typescript javascript csharp
    calls: list[Call]
    max_mocks: int
    file_mocks: int = 0  # mocks made for the whole file (`@Mock` fields, `jest.mock(...)` at the top level)

    @property
    def family(self) -> str:
        return "js" if self.language in ("typescript", "tsx", "javascript") else self.language


def rule(id: str, name: str, level: Level, message: str, hint: str) -> Callable:
    def register(fn: Callable[..., Iterator[Hit]]) -> Callable[..., Iterator[Hit]]:
        RULES[id] = Rule(id, name, level, message, hint, inspect.cleandoc(fn.__doc__ or ""), fn, "test")
        return fn

    return register


def is_assertion(call: Call, ctx: Context) -> bool:
    if ctx.family == "go":
        return call.name in GO_FAIL or bool(ASSERT_NAME.match(call.name)) or call.callee.split(".")[0] in (
            "assert", "require") or "t" in call.args
    if ctx.family == "rust":
        return bool(RUST_ASSERTS.match(call.name)) or bool(ASSERT_NAME.match(call.name))
    if ctx.family == "js":
        return call.callee.startswith(("expect", "assert", "t.", "should")) or bool(
            call.receiver_args and JS_MATCHER.match(call.name)) or bool(ASSERT_NAME.match(call.name))
    return bool(ASSERT_NAME.match(call.name)) or call.callee.startswith(("Assert.", "assert", "Assertions."))


def _body_empty(case: Case) -> bool:
    if case.body is None:
        return False
    inner = [c for c in case.body.named_children if c.type not in ("comment", "line_comment", "block_comment")]
    return not inner


@rule("AP001", "no-assertion", "reject", "no assertion",
      "Assert on the result (assertEquals, t.Errorf, assert_eq!, expect(...).toBe, Assert.Equal).")
def no_assertion(case: Case, ctx: Context) -> Iterator[Hit]:
    """A test without an assertion passes whatever the code does: it can only fail by crashing.

    Expected exceptions count (`assertThrows`, `#[should_panic]`, `[ExpectedException]`, `.toThrow()`), and so do
    calls of helpers whose name starts with assert, expect, verify or check, and in Go any helper given `t`.

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
    if not any(is_assertion(c, ctx) for c in ctx.calls):
        yield Hit(case.line, case.col)


@rule("AP002", "empty-test", "reject", "empty test", "Write the test's arrange, act and assert, or delete it.")
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


@rule("AP003", "sleep", "warn", "sleep in a unit test",
      "Wait for the condition (a latch, a channel, a fake clock), not for a fixed time.")
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
    pattern = SLEEP[ctx.family]
    for call in ctx.calls:
        if pattern.search(call.callee):
            yield Hit(call.line, call.col, f"{call.callee}(...) in a unit test")


@rule("AP004", "skip-without-reason", "warn", "skipped test without a reason",
      "Say why it is skipped and when it comes back (@Disabled(\"...\"), t.Skip(\"...\"), #[ignore = \"...\"]).")
def skip_without_reason(case: Case, ctx: Context) -> Iterator[Hit]:
    """A test skipped without a reason is forgotten: nobody knows whether it may come back or be deleted.
    JavaScript runners take no reason, so `it.skip` and `xit` always count.

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
        if ctx.family == "go" and call.callee.endswith((".Skip", ".SkipNow", ".Skipf")) and not call.args:
            yield Hit(call.line, call.col)


@rule("AP005", "excessive-mocking", "reject", "excessive mocking",
      "Test through real collaborators or fakes; mock only the boundary the test is about.")
def excessive_mocking(case: Case, ctx: Context) -> Iterator[Hit]:
    """A test that mocks more than a few collaborators checks how the code is wired, not what it does: it
    breaks on every refactoring and passes on wrong results. Counted: Mockito `mock`/`spy` and `@Mock` fields,
    gomock's `NewMock...`, mockall's `Mock...::new`, `jest.mock`/`vi.mock`/`jest.fn`/`vi.fn`/`spyOn`, sinon,
    Moq's `new Mock<T>`, NSubstitute, FakeItEasy; above `max_mocks` ([tool.assay.smells], 6) per test.

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
    pattern = MOCKS[ctx.family]
    n = ctx.file_mocks + sum(1 for c in ctx.calls if pattern.search(c.callee))
    if n > ctx.max_mocks:
        yield Hit(case.line, case.col, f"excessive mocking: {n} mocks (at most {ctx.max_mocks})")


def _same(a: str, b: str) -> bool:
    return norm(a) == norm(b) or (bool(LITERAL.match(a.strip())) and bool(LITERAL.match(b.strip())))


@rule("AP006", "tautology", "reject", "tautology",
      "Compare the code's result with an expected value the test states, not a value with itself.")
def tautology(case: Case, ctx: Context) -> Iterator[Hit]:
    """An assertion that compares a value with itself, or one literal with another, or asserts `true`, can
    never fail: it looks like a check and is none.

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
    for call in ctx.calls:
        if not is_assertion(call, ctx):
            continue
        args = [a for a in call.args if a.strip() != "t"]
        if call.receiver_args and call.args and len(call.receiver_args) == 1:  # expect(a).toBe(b)
            pair: list[str] | None = [call.receiver_args[0], call.args[0]]
        elif call.receiver_args and not call.args and call.name in ("toBeTruthy", "toBeDefined"):
            if TRUTHY.match(call.receiver_args[0].strip()) or LITERAL.match(call.receiver_args[0].strip()):
                yield Hit(call.line, call.col, f"tautology: {call.callee}() on a literal")
            continue
        elif len(args) >= 2 and not call.name.lower().startswith(("assertthrows", "assert_matches", "expect_")):
            pair = args[:2]
        else:
            pair = None
            if len(args) == 1 and TRUTHY.match(args[0].strip()) and re.search(r"assert(True|!)?$|^assert$|True$",
                                                                               call.name):
                yield Hit(call.line, call.col, f"tautology: {call.name}({args[0].strip()})")
        if pair and _same(*pair):
            yield Hit(call.line, call.col, f"tautology: compares {pair[0].strip()[:40]} with "
                                           f"{pair[1].strip()[:40]}")


def file_mocks(family: str, root: Any) -> int:
    """Mocks made for every test of the file: `@Mock`/`@Spy`/`@MockBean` fields, top-level `jest.mock(...)`."""
    source = text(root)
    if family == "java":
        return len(re.findall(r"@(Mock|Spy|MockBean|SpyBean)\b", source))
    if family == "js":
        return len(re.findall(r"\b(jest|vi)\.(mock|doMock)\(", source))
    return 0
