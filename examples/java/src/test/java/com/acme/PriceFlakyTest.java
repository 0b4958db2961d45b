package com.acme;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class PriceFlakyTest {
    static final List<Integer> CART = new ArrayList<>();

    @Test
    @Order(1)
    void addToCart() {
        CART.add(Price.total(100, 250));
        assertEquals(1, CART.size());
    }

    @Test
    @Order(2)
    void cartTotal() {
        assertEquals(350, Price.total(CART.stream().mapToInt(Integer::intValue).toArray()));
    }
}
