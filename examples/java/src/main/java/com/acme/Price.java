package com.acme;

/** Prices in cents. */
public final class Price {
    private Price() {}

    /** The sum of the given prices. */
    public static int total(int... cents) {
        int sum = 0;
        for (int c : cents) {
            if (c < 0) {
                throw new IllegalArgumentException("negative price: " + c);
            }
            sum += c;
        }
        return sum;
    }

    /** The price after a discount of pct percent, rounded down. */
    public static int discount(int cents, int pct) {
        if (pct < 0 || pct > 100) {
            throw new IllegalArgumentException("discount out of range: " + pct);
        }
        return cents * (100 - pct) / 100;
    }
}
