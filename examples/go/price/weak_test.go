package price

import "testing"

// Passes, and asserts almost nothing: gate 4 rejects it (most mutants of price.go survive).
func TestTotalIsPositive(t *testing.T) {
	if got, _ := Total(100, 250); got <= 0 {
		t.Errorf("Total(100, 250) = %d; want more than 0", got)
	}
}
