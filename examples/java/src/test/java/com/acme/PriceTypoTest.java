package com.acme;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.acme.pricing.Price;
import org.junit.jupiter.api.Test;

class PriceTypoTest {
    @Test
    void totalAddsPrices() {
        String sum = Price.total(100, 250);
        assertEquals("350", sum);
    }
}
