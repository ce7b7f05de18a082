package tui

import (
	"fmt"
	"math"
)

// signedPct writes 100·v as a percentage with exactly one sign: "+3.2%",
// "−120.4%" (a typographic minus, as the panes use), "0.0%". The Geometry
// pane and /snipe write a projector's collateral with it: a projector that
// raises the benign cross-entropy shows "+", one that lowers it "−" (the
// chat fixture's negative collateral), never both.
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
