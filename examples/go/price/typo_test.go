package price

import (
	"testing"

	"example.com/price/pricing"
)

func TestTypoTotal(t *testing.T) {
	var sum string = pricing.Total(100, 250)
	if sum != "350" {
		t.Fatal("wrong sum")
	}
}
