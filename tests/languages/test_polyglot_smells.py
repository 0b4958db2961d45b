"""Gate 5 for other languages: the tree-sitter rules (AP001-AP006) on small sources of each
language. Static: no toolchain runs."""

from __future__ import annotations

import pytest

from assay.smells.polyglot import RULES, analyze

SOURCES = {
    ("java", "src/test/java/PriceTest.java"): """
import org.junit.jupiter.api.*;
import static org.junit.jupiter.api.Assertions.*;
class PriceTest {
  @Test void noAssert() { Price.total(1, 2); }
  @Test void empty() { }
  @Test void sleepy() throws Exception { Thread.sleep(100); assertEquals(3, Price.total(1, 2)); }
  @Disabled @Test void skipped() { assertEquals(3, Price.total(1, 2)); }
  @Test void taut() { int x = Price.total(1, 2); assertEquals(x, x); }
  @Test void mocky() { var a = mock(A.class); mock(B.class); mock(C.class); mock(D.class); mock(E.class);
                       mock(F.class); mock(G.class); verify(a).x(); }
  @Test void good() { assertThrows(IllegalArgumentException.class, () -> Price.total(-1)); }
  @Nested class Inner { @Test void inner() { assertTrue(true); } }
}
""",
    ("go", "price/price_test.go"): """
package price

import (
\t"testing"
\t"time"
)

func TestNoAssert(t *testing.T) { Total(1, 2) }
func TestEmpty(t *testing.T) {}
func TestSleepy(t *testing.T) { time.Sleep(time.Second); if Total(1, 2) != 3 { t.Error("sum") } }
func TestSkipped(t *testing.T) { t.Skip() }
func TestTaut(t *testing.T) { assert.Equal(t, 3, 3) }
func TestMocky(t *testing.T) {
\tc := gomock.NewController(t)
\ta, b, d, e, f, g := NewMockA(c), NewMockB(c), NewMockD(c), NewMockE(c), NewMockF(c), NewMockG(c)
\tcheck(t, a, b, d, e, f, g)
}
func TestGood(t *testing.T) { if got := Total(1, 2); got != 3 { t.Fatalf("got %d", got) } }
func helper() {}
""",
    ("rust", "tests/price.rs"): """
#[test]
fn no_assert() { let _ = price::total(&[1, 2]); }
#[test]
fn empty() {}
#[test]
fn sleepy() { std::thread::sleep(std::time::Duration::from_millis(5)); assert_eq!(price::total(&[1]), Ok(1)); }
#[test]
#[ignore]
fn skipped() { assert_eq!(price::total(&[1]), Ok(1)); }
#[test]
fn taut() { let x = 1; assert_eq!(x, x); }
#[test]
fn mocky() { let a = MockA::new(); let b = MockB::new(); let c = MockC::new(); let d = MockD::new();
             let e = MockE::new(); let f = MockF::new(); let g = MockG::new(); assert!(run(a, b, c, d, e, f, g)); }
#[test]
#[should_panic]
fn good() { price::discount(1, 200); }
mod inner { #[test] fn inner() { assert!(true); } }
""",
    ("typescript", "test/price.test.ts"): """
import { describe, expect, it, vi } from "vitest";
vi.mock("../src/db"); vi.mock("../src/a"); vi.mock("../src/b"); vi.mock("../src/c");
vi.mock("../src/d"); vi.mock("../src/e");
describe("price", () => {
  it("no assert", () => { total(1, 2); });
  it("empty", () => {});
  it("sleepy", async () => { await new Promise((r) => setTimeout(r, 10)); expect(total(1, 2)).toBe(3); });
  it.skip("skipped", () => { expect(total(1, 2)).toBe(3); });
  it("taut", () => { const t = total(1, 2); expect(t).toBe(t); });
  it("mocky", () => { const f = vi.fn(); expect(run(f)).toBe(1); });
  it("good", () => { expect(() => total(-1)).toThrow(RangeError); });
});
""",
    ("csharp", "PriceTests.cs"): """
public class PriceTests {
  [Fact] public void NoAssert() { Price.Total(1, 2); }
  [Fact] public void Empty() { }
  [Fact] public void Sleepy() { Thread.Sleep(10); Assert.Equal(3, Price.Total(1, 2)); }
  [Ignore] [TestMethod] public void Skipped() { Assert.Equal(3, Price.Total(1, 2)); }
  [Fact] public void Taut() { Assert.True(true); }
  [Fact] public void Mocky() { var a = new Mock<IA>(); var b = new Mock<IB>(); var c = new Mock<IC>();
    var d = new Mock<ID>(); var e = new Mock<IE>(); var f = new Mock<IF>(); var g = new Mock<IG>(); a.Verify(); }
  [Fact] public void Good() { Assert.Throws<ArgumentException>(() => Price.Total(-1)); }
}
""",
}
EXPECTED = {
    "no-assert": "AP001",
    "empty": "AP002",
    "sleepy": "AP003",
    "skipped": "AP004",
    "taut": "AP006",
    "mocky": "AP005",
}


def _key(test: str) -> str:
    name = (
        test.split("::")[-1]
        .split(" > ")[-1]
        .split(".")[-1]
        .replace("_", "")
        .replace(" ", "")
        .lower()
    )
    return name.removeprefix("test")


@pytest.mark.parametrize("lang,path", list(SOURCES))
def test_each_rule_fires_on_its_smell_and_not_on_the_good_test(lang, path):
    findings = analyze(SOURCES[(lang, path)], path, lang)
    by_test: dict[str, set[str]] = {}
    for f in findings:
        by_test.setdefault(_key(f.test or ""), set()).add(f.rule)
    for name, rule in EXPECTED.items():
        assert rule in by_test.get(name.replace("-", ""), set()), (name, by_test)
    assert "good" not in by_test, by_test


def test_test_names_are_the_runners_ids():
    java = {
        f.test for f in analyze(SOURCES[("java", "src/test/java/PriceTest.java")], "x.java", "java")
    }
    assert "Inner.inner" in java
    rust = {f.test for f in analyze(SOURCES[("rust", "tests/price.rs")], "tests/price.rs", "rust")}
    assert "inner::inner" in rust
    ts = {
        f.test
        for f in analyze(SOURCES[("typescript", "test/price.test.ts")], "t.test.ts", "typescript")
    }
    assert "price > taut" in ts


def test_levels_are_configurable_and_rules_are_documented():
    from assay.config.smells import SmellsConfig

    config = SmellsConfig.model_validate({"levels": {"AP003": "off"}})
    findings = analyze(SOURCES[("go", "price/price_test.go")], "p_test.go", "go", config)
    assert "AP003" not in {f.rule for f in findings}
    for rule in RULES.values():
        assert "Bad:" in rule.doc and "Good:" in rule.doc and rule.hint and rule.message


def test_unparsable_input_is_a_finding_not_an_error():
    findings = analyze("class { @Test void", "X.java", "java")
    assert [f.rule for f in findings] == ["AP000"]


def test_rule_docs_are_generated_from_the_rules():
    from assay.smells.polyglot.docs import render
    from tests.conftest import REPO

    assert (REPO / "docs" / "smells-polyglot.md").read_text() == render()


def test_a_tautology_is_not_a_format_with_its_values_nor_the_same_call_twice():
    go = """
package price

import (
\t"fmt"
\t"testing"
)

func TestFormat(t *testing.T) {
\tif got := Total(100, 250); got != 350 {
\t\tt.Errorf("Total(%d, %d) = %d", 100, 250, got)
\t}
}
func TestTable(t *testing.T) {
\tfor _, err := range []error{fmt.Errorf("bad %d", 1)} {
\t\tif err == nil {
\t\t\tt.Fatalf("%s", "nil")
\t\t}
\t}
}
func TestTaut(t *testing.T) { assert.Equal(t, 3, 3) }
"""
    rust = """
#[test]
fn equal_versions() { assert_eq!(version("1.2.3"), version( "1.2.3" )); }
#[test]
fn taut() { let v = 1; assert_eq!(v, v); }
#[test]
fn reflexive() { let v = version("1"); assert_eq!(v, v); }
"""
    go_hits = {(f.test, f.rule) for f in analyze(go, "price/price_test.go", "go")}
    rust_hits = {(f.test, f.rule) for f in analyze(rust, "tests/v.rs", "rust")}
    assert go_hits == {("TestTaut", "AP006")}
    assert rust_hits == {("taut", "AP006")}


def test_a_test_that_asserts_through_a_helper_of_its_file_has_an_assertion():
    rust = """
fn roundtrip(v: &str) { let parsed = version(v).unwrap(); check_text(&parsed, v); }
fn check_text(p: &Version, v: &str) { assert_eq!(p.to_string(), v); }
fn build(v: &str) -> Version { Version::new(1, 2, 3) }
#[test]
fn parses() { roundtrip("1.2.3"); }
#[test]
fn only_builds() { build("1.2.3"); }
"""
    go = """
package price

import "testing"

func sameTotal(t *testing.T, want int, cents ...int) {
\tif got, _ := Total(cents...); got != want {
\t\tt.Errorf("Total = %d", got)
\t}
}
func total(cents ...int) int { got, _ := Total(cents...); return got }
func TestAdds(t *testing.T) { sameTotal(nil, 3, 1, 2) }
func TestOnlyCalls(t *testing.T) { total(1, 2) }
"""
    rust_hits = {(f.test, f.rule) for f in analyze(rust, "tests/v.rs", "rust")}
    go_hits = {(f.test, f.rule) for f in analyze(go, "price/price_test.go", "go")}
    assert ("only_builds", "AP001") in rust_hits and ("parses", "AP001") not in rust_hits
    assert ("TestOnlyCalls", "AP001") in go_hits and ("TestAdds", "AP001") not in go_hits


def test_a_js_test_asserting_with_functions_imported_from_assert_has_an_assertion():
    """nanoid's non-secure.test.js: every test asserts with `equal(...)` and `match(...)` from
    'node:assert', and all 13 were "AP001: no assertion"."""
    js = """
import { equal, match as matches } from 'node:assert'
import { describe, test } from 'node:test'
const { deepEqual } = require('assert/strict')
import { format } from '../index.js'

function sameShape(a) { deepEqual(Object.keys(a), ['x']) }

describe('format', () => {
  test('pads', () => { equal(format(1), '01') })
  test('matches', () => { matches(format(2), /2/) })
  test('through a helper', () => { sameShape({ x: format(3) }) })
  test('only calls', () => { format(4) })
})
"""
    hits = {(f.test, f.rule) for f in analyze(js, "test/format.test.js", "javascript")}
    assert ("format > only calls", "AP001") in hits
    for name in ("pads", "matches", "through a helper"):
        assert (f"format > {name}", "AP001") not in hits, hits
