package snipe

import (
	"fmt"
	"math"
	"slices"
)

// Why a greedy selection stopped.
const (
	// StopBudget: the last coordinate tried pushed collateral over budget
	// and was dropped.
	StopBudget = "budget"
	// StopMax: the selection reached maxCoords coordinates.
	StopMax = "max"
	// StopExhausted: every coordinate of the order was kept.
	StopExhausted = "exhausted"
)

// Step is one measurement of the greedy selection: the coordinate set
// tried and what eval reported for it.
type Step struct {
	Coords                []int
	Reduction, Collateral float64
}

// Selection is the outcome of Select: the kept coordinates with their
// measured reduction and collateral (zero when none was kept), every step
// measured (including a final over-budget one), and why it stopped
// (StopBudget, StopMax or StopExhausted).
type Selection struct {
	Coords                []int
	Reduction, Collateral float64
	Steps                 []Step
	StoppedBy             string
}

// Select runs the greedy coordinate selection of docs/mechanisms.md §7. It adds
// the coordinates of order one at a time and calls eval with the whole
// candidate set, which returns the measured harm reduction and benign
// collateral as fractions (0.1 = 10 %). It stops when collateral exceeds
// budget, in which case that last coordinate is not kept but its step is
// recorded, when maxCoords coordinates are kept, or when order runs out.
//
// eval receives a fresh slice it may keep. An eval error is returned,
// wrapped, with no selection; so is a NaN or infinite measurement, since
// it can be neither compared with the budget nor shown. order must not
// repeat a coordinate, budget must be ≥ 0 and maxCoords ≥ 1 (defaults in
// the product: 0.02 and 20).
func Select(order []int, eval func(coords []int) (reduction, collateral float64, err error), budget float64, maxCoords int) (Selection, error) {
	if eval == nil {
		return Selection{}, fmt.Errorf("snipe: select: nil eval")
	}
	if !(budget >= 0) || math.IsInf(budget, 0) {
		return Selection{}, fmt.Errorf("snipe: select: budget %g, want a finite value ≥ 0", budget)
	}
	if maxCoords < 1 {
		return Selection{}, fmt.Errorf("snipe: select: maxCoords %d, want ≥ 1", maxCoords)
	}
	seen := make(map[int]bool, len(order))
	for _, c := range order {
		if seen[c] {
			return Selection{}, fmt.Errorf("snipe: select: coordinate %d repeated in order", c)
		}
		seen[c] = true
	}
	sel := Selection{StoppedBy: StopExhausted}
	for _, c := range order {
		cand := append(append(make([]int, 0, len(sel.Coords)+1), sel.Coords...), c)
		red, col, err := eval(append([]int(nil), cand...))
		if err != nil {
			return Selection{}, fmt.Errorf("snipe: select: eval %v: %w", cand, err)
		}
		if math.IsNaN(red) || math.IsInf(red, 0) || math.IsNaN(col) || math.IsInf(col, 0) {
			return Selection{}, fmt.Errorf("snipe: select: eval %v returned reduction %g, collateral %g", cand, red, col)
		}
		sel.Steps = append(sel.Steps, Step{Coords: cand, Reduction: red, Collateral: col})
		if col > budget {
			sel.StoppedBy = StopBudget
			break
		}
		sel.Coords, sel.Reduction, sel.Collateral = slices.Clone(cand), red, col
		if len(sel.Coords) >= maxCoords {
			sel.StoppedBy = StopMax
			break
		}
	}
	return sel, nil
}
