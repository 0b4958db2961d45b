package price

import "testing"

var cart []int

func TestFlakyAddToCart(t *testing.T) {
	cart = append(cart, 350)
	if len(cart) != 1 {
		t.Fatalf("cart has %d items; want 1", len(cart))
	}
}

func TestFlakyCartTotal(t *testing.T) {
	got, _ := Total(cart...)
	if got != 350 {
		t.Errorf("cart total = %d; want 350", got)
	}
}
