package com.acme;

import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** Passes, and asserts almost nothing: gate 4 rejects it (most mutants of Price survive). */
class PriceWeakTest {
    @Test
    void totalIsPositive() {
        assertTrue(Price.total(100, 250) > 0);
    }
}
