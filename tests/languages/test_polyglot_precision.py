"""False positives of the polyglot smell rules found on real human suites
(`bench/polyglot_precision.py`: commons-codec, commons-text, commons-cli, semver, serde_json,
strsim, fastify), each reduced to its shape, with the true positive next to it. Static: no
toolchain runs."""

from __future__ import annotations

from pathlib import Path

from assay.config.smells import SmellsConfig
from assay.smells.polyglot import analyze

GENERATED = SmellsConfig.model_validate({"profile": "generated"})


def rejects(
    source: str,
    path: str,
    language: str,
    root: Path | None = None,
    config: SmellsConfig = GENERATED,
) -> set[tuple]:
    """Reject-level findings, judged as generated tests (the strict profile) unless told."""
    return {
        (f.test, f.rule)
        for f in analyze(source, path, language, config, root)
        if f.level == "reject"
    }


JAVA = """
package org.acme;
import static org.junit.jupiter.api.Assertions.*;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
class CodecTest {
  private void checkEncoding(String want, String in) { assertEquals(want, encode(in)); }
  private void byChunk(byte[] e, byte[] d) { byChunk(e, d, false); }
  private void byChunk(byte[] e, byte[] d, boolean lo) { assertArrayEquals(e, enc(d, lo)); }
  @ParameterizedTest void digest(String a, String... o) { assertArrayEquals(data(a), run(a, o)); }
  @Test void digestRead() { digest("MD5", "READ"); }
  @Test void encodes() { checkEncoding("01", "Aabjoe"); checkEncoding("", ""); }
  @Test void empty() { byChunk(new byte[0], new byte[0]); }
  @Test void between() { assertThat(length(str)).isBetween(0, 3); }
  @Test void equalsIsReflexive() { final Option a = new Option("1"); assertEquals(a, a); }
  @Test void sameIntTwice() { int x = total(1, 2); assertEquals(x, x); }
  @Test void sameObject() { final Option a = new Option("1"); assertSame(a, a); }
  @Test void differentLiterals() { assertNotEquals(1, 2); }
  @Test void constructs() { new Codec(); }
}
"""


def test_java_helpers_overloads_and_reflexive_equals_are_not_smells():
    assert rejects(JAVA, "src/test/java/org/acme/CodecTest.java", "java") == {
        ("sameIntTwice", "AP006"),
        ("sameObject", "AP006"),
        ("differentLiterals", "AP006"),
        ("constructs", "AP001"),
    }


def test_java_asserts_through_an_imported_test_class_and_its_superclass(tmp_path):
    base = tmp_path / "src/test/java/org/acme"
    (base / "lookup").mkdir(parents=True)
    (base / "lookup/FileLookupTest.java").write_text(
        "package org.acme.lookup;\nclass FileLookupTest {\n"
        "  static void testFence(Sub s) { assertThrows(IllegalStateException.class, s::run); }\n"
        "}\n"
    )
    (base / "AbstractEncoderTest.java").write_text(
        "package org.acme;\nabstract class AbstractEncoderTest {\n"
        "  void roundTrip(String s) { assertEquals(s, decode(encode(s))); }\n}\n"
    )
    source = """
package org.acme;
import org.acme.lookup.FileLookupTest;
import org.junit.jupiter.api.Test;
class CustomTest extends AbstractEncoderTest {
  @Test void fenced() { FileLookupTest.testFence(create()); }
  @Test void trips() { roundTrip("abc"); }
  @Test void smoke() { create(); }
}
"""
    path = "src/test/java/org/acme/CustomTest.java"
    assert rejects(source, path, "java", tmp_path) == {("smoke", "AP001")}
    assert ("fenced", "AP001") in rejects(source, path, "java")  # without the project: unseen


RUST = """
mod util;
use crate::util::*;
fn assert_send_sync<T: Send + Sync>() {}
macro_rules! test_stream {
    ($data:expr, |$s:ident| $test:block) => { { let mut $s = parse($data); $test } };
}
#[test]
fn auto_traits() { assert_send_sync::<semver::Version>(); }
#[test]
fn stream() { test_stream!("1 2", |s| { assert_eq!(s.next(), Some(1)); }); }
#[test]
fn partialeq() {
    macro_rules! ok { ($($n:expr)*) => { $( assert_eq!(to_value($n), $n); )* }; }
    ok!(0 1 100);
}
#[test]
fn normalize() { check_normalize(0, 0, 0, 0, 0); check_normalize(1, -149, 63, 9, -212); }
#[test]
fn leading_digit() { req(">= 1.2.3-1a"); }
#[test]
fn parses() { Version::parse("1.2.3").unwrap(); }
#[test]
fn ui() { let t = trybuild::TestCases::new(); t.compile_fail("tests/ui/*.rs"); }
#[test]
fn reflexive() { let id = prerelease("alpha"); assert_eq!(id, id); }
#[test]
fn ne_literals() { assert_ne!(1, 2); }
#[test]
fn builds() { let _ = json!([1, 2]); }
struct PanickingCounter { curr: usize, max: usize }
impl Iterator for PanickingCounter {
    type Item = ();
    fn next(&mut self) -> Option<()> { self.curr += 1; assert_ne!(self.curr, self.max); Some(()) }
}
fn no_collect_test<A: Iterator, T: Fn(PanickingCounter) -> A>(to_adaptor: T) {
    for _ in to_adaptor(PanickingCounter { curr: 0, max: 10_000 }).take(5) {}
}
#[test]
fn permutations_no_collect() { no_collect_test(|iter| iter.permutations(5)) }
fn check_normalize(m: u64, e: i32, s: u32, mm: u64, ee: i32) {
    assert_eq!(normalize(m, e, s), (mm, ee));
}
"""


def test_rust_turbofish_macros_unwrap_modules_and_asserting_types_count_as_assertions(tmp_path):
    (tmp_path / "tests/util").mkdir(parents=True)
    (tmp_path / "tests/util/mod.rs").write_text(
        "pub(super) fn req(text: &str) -> VersionReq { VersionReq::parse(text).unwrap() }\n"
    )
    found = rejects(RUST, "tests/test_version.rs", "rust", tmp_path)
    assert found == {("ne_literals", "AP006"), ("builds", "AP001")}


JS = """
const { test } = require('node:test')
test('hooks run', (t, done) => {
  t.plan(2)
  fastify.addHook('onRequest', (req, reply, next) => {
    t.assert.ok(true, 'onRequest called')
    next()
  })
  t.assert.ok('called', 'onSend')
  done()
})
test('elapsed time is stable', async (t) => {
  t.assert.strictEqual(reply.elapsedTime, reply.elapsedTime)
})
test('one schema', (t) => {
  const schema = { type: 'object' }
  t.assert.deepStrictEqual(schema, schema)
})
"""


def test_js_reached_markers_and_getters_are_not_tautologies():
    assert rejects(JS, "test/hooks.test.js", "javascript") == {("one schema", "AP006")}


GO_ASSERT_LIBRARY = """
package assert

import "testing"

func TestEqualWrapper(t *testing.T) {
\tassert := New(new(testing.T))
\tif !assert.Equal("Hello World", "Hello World") {
\t\tt.Error("Equal should return true")
\t}
}
func TestEqual(t *testing.T) {
\tEqual(t, 1, 1)
\tmockT := new(MockT)
\tEqual(mockT, 1, 2)
\tif !mockT.Failed {
\t\tt.Error("Check should fail")
\t}
}
"""
GO_USER = """
package price

import (
\t"testing"

\t"github.com/stretchr/testify/assert"
)

func TestTaut(t *testing.T) { assert.Equal(t, 3, 3) }
func TestChecked(t *testing.T) {
\tif !assert.Equal(t, 350, Total(100, 250)) {
\t\tt.Log("see above")
\t}
}
"""


def test_go_an_assertion_library_testing_itself_is_not_a_tautology():
    assert rejects(GO_ASSERT_LIBRARY, "assert/assertions_test.go", "go") == set()
    assert rejects(GO_USER, "price/price_test.go", "go") == {("TestTaut", "AP006")}


def test_an_assertion_free_test_is_a_warning_in_a_suite_and_rejected_when_generated():
    """commons-lang3's `ValidateTest.shouldNotThrow...` and smallvec's "does not panic" tests: in a
    project's own suite a test that only runs code is an idiom gate 4 judges; a model's test that
    asserts nothing is rejected."""
    path = "src/test/java/org/acme/CodecTest.java"
    for profile in ("auto", "suite"):
        config = SmellsConfig.model_validate({"profile": profile})
        found = {(f.test, f.rule): f.level for f in analyze(JAVA, path, "java", config)}
        assert found[("constructs", "AP001")] == "warn"
        assert ("constructs", "AP001") not in rejects(JAVA, path, "java", None, config)
        assert ("sameObject", "AP006") in rejects(JAVA, path, "java", None, config)
    assert ("constructs", "AP001") in rejects(JAVA, path, "java")
    pinned = SmellsConfig.model_validate({"profile": "suite", "levels": {"AP001": "reject"}})
    assert ("constructs", "AP001") in rejects(JAVA, path, "java", None, pinned)


RUST_PROPERTIES = """
use quickcheck::{quickcheck, QuickCheck};
#[test]
fn triangle() {
    fn triangle(a: String, b: String, c: String) -> bool {
        distance(&a, &b) <= distance(&a, &c) + distance(&b, &c)
    }
    quickcheck(triangle as fn(String, String, String) -> bool);
}
#[test]
fn symmetric() {
    fn prop(a: String, b: String) -> bool { distance(&a, &b) == distance(&b, &a) }
    QuickCheck::new().tests(500).quickcheck(prop as fn(String, String) -> bool);
}
proptest! {
    #[test]
    fn roundtrip(s in ".*") { prop_assert_eq!(decode(&encode(&s)), s); }
}
#[test]
fn computes() { let _ = distance("a", "b"); }
"""


def test_rust_property_checkers_are_assertions():
    """quickcheck panics when the property returns false for some input, proptest's
    `prop_assert*!` fail the case: edit-distance's property tests were "no assertion"."""
    found = rejects(RUST_PROPERTIES, "tests/tests.rs", "rust")
    assert found == {("computes", "AP001")}
