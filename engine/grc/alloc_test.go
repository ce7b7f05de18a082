package grc

import (
	"math"
	"slices"
	"testing"
)

func sum(r []int) int {
	s := 0
	for _, v := range r {
		s += v
	}
	return s
}

func within(t *testing.T, r []int, b Bounds) {
	t.Helper()
	q := max(b.Quantum, 1)
	for l, v := range r {
		if v < b.Floor || v > b.Max || v%q != 0 {
			t.Fatalf("layer %d: rank %d outside [%d, %d] or not a multiple of %d (%v)", l, v, b.Floor, b.Max, q, r)
		}
	}
}

// TestDistributeBoundaries: the sum is exact, the bounds hold, proportions
// survive when nothing binds, and a budget the bounds cannot reach is moved
// to the nearest reachable one with a note.
func TestDistributeBoundaries(t *testing.T) {
	b := Bounds{Floor: 10, Max: 100}
	r, notes, err := Distribute([]float64{1, 2, 3, 4}, 200, b)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(r, []int{20, 40, 60, 80}) || len(notes) != 0 {
		t.Errorf("proportional: %v %v", r, notes)
	}
	// The cap binds on the heaviest layer; the rest absorb its excess.
	r, _, _ = Distribute([]float64{1, 1, 1, 10}, 200, b)
	within(t, r, b)
	if sum(r) != 200 || r[3] != 100 {
		t.Errorf("capped: %v", r)
	}
	// The floor binds on the lightest layer.
	r, _, _ = Distribute([]float64{0, 5, 5, 5}, 100, b)
	within(t, r, b)
	if sum(r) != 100 || r[0] != 10 {
		t.Errorf("floored: %v", r)
	}
	// Rounding: 100 over 3 equal layers.
	r, _, _ = Distribute([]float64{1, 1, 1}, 100, b)
	if sum(r) != 100 || slices.Max(r)-slices.Min(r) > 1 {
		t.Errorf("rounding: %v", r)
	}
	// Infeasible both ways.
	r, notes, _ = Distribute([]float64{1, 2}, 10, b)
	if !slices.Equal(r, []int{10, 10}) || len(notes) == 0 {
		t.Errorf("below the floor: %v %v", r, notes)
	}
	r, notes, _ = Distribute([]float64{1, 2}, 500, b)
	if !slices.Equal(r, []int{100, 100}) || len(notes) == 0 {
		t.Errorf("above the cap: %v %v", r, notes)
	}
	// Quantum: multiples of 32, floor rounded up to one.
	bq := Bounds{Floor: 141, Max: 256, Quantum: 32}
	r, _, err = Distribute([]float64{1, 1, 2, 2, 3, 3}, 192*6, bq)
	if err != nil {
		t.Fatal(err)
	}
	within(t, r, Bounds{Floor: 160, Max: 256, Quantum: 32})
	if sum(r) != 192*6 {
		t.Errorf("quantum: %v", r)
	}
	// All-zero weights share evenly; bad weights and empty bounds fail.
	r, _, _ = Distribute([]float64{0, 0}, 60, b)
	if !slices.Equal(r, []int{30, 30}) {
		t.Errorf("zero weights: %v", r)
	}
	if _, _, err := Distribute([]float64{1, math.NaN()}, 60, b); err == nil {
		t.Error("NaN weight accepted")
	}
	if _, _, err := Distribute([]float64{1}, 60, Bounds{Floor: 50, Max: 60, Quantum: 32}); err == nil {
		t.Error("bounds with no multiple of the quantum accepted")
	}
	if _, _, err := Distribute(nil, 60, b); err == nil {
		t.Error("no layers accepted")
	}
}

// TestGPAllocation: the paper's formula when no bound binds, floor/cap and
// sum otherwise, uniform for a constant or unusable score.
func TestGPAllocation(t *testing.T) {
	b := Bounds{Floor: 141, Max: 256}
	a, err := GP([]float64{1, 1, 1, 1}, 200, b)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(a.Ranks, []int{200, 200, 200, 200}) {
		t.Errorf("constant score: %v", a.Ranks)
	}
	a, _ = GP([]float64{0.9, 1, 1.1, 1}, 200, b) // 180, 200, 220, 200: no bound binds
	if !slices.Equal(a.Ranks, []int{180, 200, 220, 200}) {
		t.Errorf("paper's formula: %v", a.Ranks)
	}
	a, _ = GP([]float64{0.1, 1, 1, 3}, 200, b)
	within(t, a.Ranks, b)
	if sum(a.Ranks) != 800 || a.Ranks[0] != 141 || a.Ranks[3] != 256 {
		t.Errorf("both bounds bind: %v", a.Ranks)
	}
	a, _ = GP([]float64{1, 3}, 64, b) // the floor is above the target
	if !slices.Equal(a.Ranks, []int{141, 141}) || len(a.Notes) == 0 {
		t.Errorf("target below the floor: %v %v", a.Ranks, a.Notes)
	}
	a, _ = GP([]float64{0, 0, 0}, 180, b)
	if !slices.Equal(a.Ranks, []int{180, 180, 180}) || len(a.Notes) == 0 {
		t.Errorf("no scores: %v %v", a.Ranks, a.Notes)
	}
}

// TestEffectiveRank: k equal eigenvalues give k; one gives 1; zero gives 0.
func TestEffectiveRank(t *testing.T) {
	for _, c := range []struct {
		s    []float64
		want float64
	}{
		{[]float64{1, 1, 1, 1, 0, 0}, 4},
		{[]float64{5, 0, -1e-17}, 1},
		{[]float64{0, 0}, 0},
	} {
		if got := EffectiveRank(c.s); math.Abs(got-c.want) > 1e-9 {
			t.Errorf("EffectiveRank(%v) = %g, want %g", c.s, got, c.want)
		}
	}
}

// TestMCRPhases: synthetic variance profiles — a valley gives Mix, Compress,
// Refine in order; a minimum at either end gives no Mix or no Refine; a
// profile within the threshold everywhere is flat and falls back to
// uniform; single-layer noise is smoothed away.
func TestMCRPhases(t *testing.T) {
	p := DefaultMCR()
	M, C, R := Mix, Compress, Refine
	for _, c := range []struct {
		name string
		v    []float64
		want []Phase
		ok   bool
	}{
		{"valley", []float64{8, 8, 8, 1, 1, 1, 1, 1, 6, 6, 6}, []Phase{M, M, M, M, C, C, C, R, R, R, R}, true},
		{"rising", []float64{1, 1, 1, 4, 8, 16, 32}, []Phase{C, C, R, R, R, R, R}, true},
		{"falling", []float64{32, 16, 8, 4, 1, 1, 1}, []Phase{M, M, M, M, M, C, C}, true},
		{"flat", []float64{1, 1.2, 1.1, 1.3, 1.0}, nil, false},
		{"one layer", []float64{3}, nil, false},
		{"negative", []float64{1, -1, 2}, nil, false},
	} {
		ph, _, ok := Phases(c.v, p.Threshold)
		if ok != c.ok || (c.want != nil && !slices.Equal(ph, c.want)) {
			t.Errorf("%s: phases %v ok %v, want %v %v", c.name, ph, ok, c.want, c.ok)
		}
	}
	// Smoothing: a single low layer in a high profile is averaged with its
	// neighbours, so the smoothed minimum is a third of the way down.
	_, sm, _ := Phases([]float64{9, 9, 0, 9, 9}, p.Threshold)
	if math.Abs(sm[2]-6) > 1e-12 || math.Abs(sm[0]-9) > 1e-12 || math.Abs(sm[1]-6) > 1e-12 {
		t.Errorf("smoothed %v", sm)
	}

	b := Bounds{Floor: 64, Max: 512}
	v := []float64{8, 8, 8, 1, 1, 1, 1, 1, 6, 6, 6}
	a, err := MCR(v, 256, b, p)
	if err != nil {
		t.Fatal(err)
	}
	within(t, a.Ranks, b)
	if sum(a.Ranks) != 256*len(v) {
		t.Errorf("budget %d, want %d: %v", sum(a.Ranks), 256*len(v), a.Ranks)
	}
	// Mix > Refine > Compress, in the ratio 1.5 : 1.2 : 0.35 when nothing binds.
	if !(a.Ranks[0] > a.Ranks[10] && a.Ranks[10] > a.Ranks[5]) {
		t.Errorf("phase ordering: %v", a.Ranks)
	}
	if r := float64(a.Ranks[0]) / float64(a.Ranks[10]); math.Abs(r-1.5/1.2) > 0.01 {
		t.Errorf("mix/refine ratio %.3f, want %.3f", r, 1.5/1.2)
	}
	// The floor binds on Compress layers: still the budget, still the floor.
	bf := Bounds{Floor: 141, Max: 256}
	a, _ = MCR(v, 192, bf, p)
	within(t, a.Ranks, bf)
	if sum(a.Ranks) != 192*len(v) || a.Ranks[5] != 141 {
		t.Errorf("with the floor: %v", a.Ranks)
	}
	// Flat → uniform.
	a, _ = MCR([]float64{1, 1.1, 1, 1.2}, 200, bf, p)
	if !a.Uniform || !slices.Equal(a.Ranks, []int{200, 200, 200, 200}) || len(a.Notes) == 0 {
		t.Errorf("flat: %+v", a)
	}
	// Flat with a quantum: uniform at the nearest allowed rank, said so.
	a, _ = MCR([]float64{1, 1, 1}, 200, Bounds{Floor: 141, Max: 256, Quantum: 32}, p)
	if !slices.Equal(a.Ranks, []int{192, 192, 192}) || len(a.Notes) < 2 {
		t.Errorf("flat, quantum 32: %+v", a)
	}
}
