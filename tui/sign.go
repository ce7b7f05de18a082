package tui

import (
	"fmt"
	"math"
)

// signedPct writes 100·v as a percentage with exactly one sign: "+3.2%",
// "−120.4%" (a typographic minus, as the panes use), "0.0%". A change of
// the harm gauge is written as signedPct(−reduction): a projector that
// raises the gauge shows "+", one that lowers it "−", never both.
func signedPct(v float64, digits int) string {
	p := 100 * v
	s := fmt.Sprintf("%.*f", digits, math.Abs(p))
	switch {
	case s == fmt.Sprintf("%.*f", digits, 0.0):
		return s + "%"
	case p < 0:
		return "−" + s + "%"
	}
	return "+" + s + "%"
}
