package com.acme;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;

import org.junit.jupiter.api.Test;

/** Passes, and asserts almost nothing: gate 4 rejects it (it checks only that total returns, so
 * most mutants of the code it runs survive). */
class PriceWeakTest {
    @Test
    void totalReturns() {
        assertDoesNotThrow(() -> Price.total(100, 250));
    }
}
