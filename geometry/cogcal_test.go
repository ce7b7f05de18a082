package geometry

import (
	"math"
	"testing"

	"github.com/isagi-lab/isagi/cog"
)

// TestPlaceGate pins the calibration rule: τ halfway between the largest
// true-repeat distance under the bound and the bound, the bound being the
// closest pair of different prompts (capped at the RETRIEVE boundary).
func TestPlaceGate(t *testing.T) {
	for _, c := range []struct {
		name              string
		distinct, repeats []float64
		tau, bound, below float64
		served            float64
	}{
		// Repeats well apart from different prompts: the margin is split.
		{"gap", []float64{0.03, 0.2, 0.5}, []float64{0, 0.002, 0.01, 0.4}, 0.02, 0.03, 0.01, 0.75},
		// Different prompts closer than the RETRIEVE boundary decide.
		{"close distinct", []float64{0.004, 0.3}, []float64{0.001, 0.006}, 0.0025, 0.004, 0.001, 0.5},
		// Different prompts all far: the RETRIEVE boundary bounds τ.
		{"far distinct", []float64{0.6, 0.9}, []float64{0.01, 0.02, 0.3}, 0.035, cog.RetrieveBelow, 0.02, 2.0 / 3},
		// No repeat under the bound: word-for-word repeats (0) anchor it.
		{"no repeat below", []float64{0.01}, []float64{0.2}, 0.005, 0.01, 0, 0},
		// Two different prompts at the same point: τ is the floor.
		{"collision", []float64{0, 0.5}, nil, cog.MinGate, 0, 0, 0},
	} {
		g, err := placeGate(c.distinct, c.repeats)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		near := func(a, b float64) bool { return math.Abs(a-b) < 1e-12 }
		if !near(g.Tau, c.tau) || !near(g.Bound, c.bound) || !near(g.RepeatBelow, c.below) || !near(g.RepeatServed, c.served) {
			t.Errorf("%s: τ %v bound %v below %v served %v; want %v %v %v %v", c.name, g.Tau, g.Bound, g.RepeatBelow, g.RepeatServed, c.tau, c.bound, c.below, c.served)
		}
		if g.Tau > g.Bound && g.Bound >= cog.MinGate {
			t.Errorf("%s: τ %v above the closest different pair %v", c.name, g.Tau, g.Bound)
		}
	}
	if _, err := placeGate(nil, []float64{0.1}); err == nil {
		t.Error("a gate placed with no pair of different prompts")
	}
}
