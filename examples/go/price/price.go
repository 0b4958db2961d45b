// Package price works with prices in cents.
package price

import "fmt"

// Total is the sum of the given prices; a negative price is an error.
func Total(cents ...int) (int, error) {
	sum := 0
	for _, c := range cents {
		if c < 0 {
			return 0, fmt.Errorf("negative price: %d", c)
		}
		sum += c
	}
	return sum, nil
}

// Discount is the price after a discount of pct percent, rounded down.
func Discount(cents, pct int) int {
	if pct < 0 || pct > 100 {
		panic(fmt.Sprintf("discount out of range: %d", pct))
	}
	return cents * (100 - pct) / 100
}
