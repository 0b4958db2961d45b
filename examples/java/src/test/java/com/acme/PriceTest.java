package com.acme;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

class PriceTest {
    @Test
    void totalAddsPrices() {
        assertEquals(350, Price.total(100, 250));
    }

    @Test
    void totalRejectsNegativePrices() {
        assertThrows(IllegalArgumentException.class, () -> Price.total(100, -1));
    }

    @Test
    void discountRoundsDown() {
        assertEquals(66, Price.discount(95, 30));
    }
}
