"""Gate 1's list of a JUnit file's tests, read from its source: a parametrized test whose source
annotation holds braces (`@CsvSource({"1, 2"})`) was missed, so a file of such tests was rejected at
compile, "no tests collected"."""

from __future__ import annotations

from assay.languages import java_sources

SOURCE = """class PriceCasesTest {
    @ParameterizedTest(name = "{0} off {1}")
    @CsvSource({"100, 10, 90", "95, 30, 66"})
    void discountRoundsDown(int cents, int pct, int expected) {
        assertEquals(expected, Price.discount(cents, pct));
    }

    @Test
    @DisplayName("total (of nothing)")
    void totalOfNothing() { assertEquals(0, Price.total()); }

    @RepeatedTest(value = 3, name = "{displayName}")
    public void totalIsStable() { helper(); }

    @ParameterizedTest
    @ValueSource(ints = {1, 2})
    void positive(int cents) { assertTrue(Price.total(cents) > 0); }

    void helper() { assertEquals(1, 1); }
}
"""


def test_every_kind_of_junit_test_is_listed_whatever_its_annotations_hold():
    assert java_sources.test_methods(SOURCE) == [
        "discountRoundsDown",
        "totalOfNothing",
        "totalIsStable",
        "positive",
    ]
