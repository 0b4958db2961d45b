package price

import "testing"

func TestTotalAddsPrices(t *testing.T) {
	got, err := Total(100, 250)
	if err != nil || got != 350 {
		t.Fatalf("Total(100, 250) = %d, %v; want 350, nil", got, err)
	}
}

func TestTotalRejectsNegativePrices(t *testing.T) {
	if _, err := Total(100, -1); err == nil {
		t.Fatal("Total(100, -1): want an error")
	}
}

func TestDiscountRoundsDown(t *testing.T) {
	if got := Discount(95, 30); got != 66 {
		t.Errorf("Discount(95, 30) = %d; want 66", got)
	}
}
