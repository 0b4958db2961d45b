"""How AP006 (tautology) reads a comparison: which assertions compare two sides, in every
language's spelling, and when two sides cannot differ."""

from __future__ import annotations

import re

from assay.smells.polyglot.syntax import Call, Family, norm

LITERAL = re.compile(
    r'^(-?\d[\d_.]*[a-zA-Z]*|"[^"]*"|\'[^\']*\'|`[^`$]*`|true|false|null|nil|None|undefined|'
    r"True|False)$"
)

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


def bound_to_plain(name: str, body: str) -> bool:
    """`name` is declared in the test with a primitive type or bound to a literal (`int x =`,
    `let x = 1;`, `let x: u32 =`): its equality is the language's, not the type's own."""
    n = re.escape(name)
    if re.search(rf"\b{_PLAIN_TYPE}\s+{n}\s*=", body) or re.search(
        rf"\b{n}\s*:\s*{_PLAIN_TYPE}\s*=", body
    ):
        return True
    m = re.search(rf"(^|[\s;{{(])(let\s+(mut\s+)?)?{n}\s*=\s*([^;=\n]+)[;\n]", body)
    return bool(m and LITERAL.match(m.group(4).strip()))


def same(a: str, b: str, name: str, family: Family, body: str) -> bool:
    """Two sides that cannot differ: the same value twice or the same literal twice. The same
    *call* twice (`assert_eq!(version("1.2.3"), version("1.2.3"))`) is not (it checks
    determinism), nor a getter twice (`reply.elapsedTime`), nor one object against itself where
    equality is the type's own code (`assertEquals(option, option)` tests `equals`)."""
    if norm(a) != norm(b):
        return False
    if "(" in a or (family.getters and "." in a):
        return False
    if LITERAL.match(a.strip()) or name in IDENTITY or not family.own_equality:
        return True
    return bound_to_plain(a.strip(), body)


def under_test(call: Call, package: str | None) -> bool:
    """An assertion of the file's own package (`Equal(t, 1, 1)` or `assert.Equal(1, 1)` in
    package assert): the assertion library tests itself."""
    qualifier = call.callee.rpartition(".")[0]
    return package is not None and qualifier in ("", package)


def pair(call: Call, args: list[str]) -> tuple[str, str] | None:
    """The two sides an equality assertion compares: `expect(a).toBe(b)`, else its first two
    arguments (after Go's `t`)."""
    if call.receiver_args and call.args and len(call.receiver_args) == 1:
        return call.receiver_args[0], call.args[0]
    if len(args) >= 2:
        return args[0], args[1]
    return None
