package tui

import (
	"strings"
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

// TestSnipeListSignsOnce: a projector that raises the gauge on held-out
// prompts (a negative reduction) is listed with one plus sign, never a
// doubled "−-".
func TestSnipeListSignsOnce(t *testing.T) {
	got := harmChange(-1.204) + " " + harmChange(0.31)
	if strings.Contains(got, "−-") || strings.Contains(got, "--") || strings.Contains(got, "+-") {
		t.Fatalf("doubled sign in %q", got)
	}
	if got != "+120.4% harm −31.0% harm" {
		t.Errorf("got %q", got)
	}
}
