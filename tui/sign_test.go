package tui

import (
	"testing"
)

func TestSignedPct(t *testing.T) {
	for _, c := range []struct {
		v      float64
		digits int
		want   string
	}{
		{-1.204, 1, "−120.4%"},
		{0.5, 1, "+50.0%"},
		{0, 2, "0.00%"},
		{-0.00001, 1, "0.0%"},
		{0.0123, 2, "+1.23%"},
	} {
		if got := signedPct(c.v, c.digits); got != c.want {
			t.Errorf("signedPct(%v, %d) = %q, want %q", c.v, c.digits, got, c.want)
		}
	}
}
