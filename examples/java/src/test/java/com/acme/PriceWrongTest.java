package com.acme;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class PriceWrongTest {
    @Test
    void discountOfTenPercent() {
        assertEquals(90, Price.discount(100, 10));
    }

    @Test
    void discountRoundsUp() {
        assertEquals(67, Price.discount(95, 30));
    }
}
