package price

import "testing"

func TestWrongDiscountOfTenPercent(t *testing.T) {
	if got := Discount(100, 10); got != 90 {
		t.Errorf("Discount(100, 10) = %d; want 90", got)
	}
}

func TestWrongDiscountRoundsUp(t *testing.T) {
	if got := Discount(95, 30); got != 67 {
		t.Errorf("Discount(95, 30) = %d; want 67", got)
	}
}
