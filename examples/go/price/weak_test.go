package price

import "testing"

// Passes, and asserts almost nothing: gate 4 rejects it (most mutants of Total, the one function
// it runs, survive).
func TestTotalAcceptsPrices(t *testing.T) {
	if _, err := Total(100, 250); err != nil {
		t.Errorf("Total(100, 250) failed: %v", err)
	}
}
