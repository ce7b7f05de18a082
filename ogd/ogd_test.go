package ogd

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

func randVec(r *rand.Rand, n int, scale float64) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = scale * r.NormFloat64()
	}
	return v
}

func randMat(r *rand.Rand, rows, cols int) *mat.Dense {
	return mat.NewDense(rows, cols, randVec(r, rows*cols, 1))
}

func maxAbs(v []float64) float64 {
	var m float64
	for _, x := range v {
		m = math.Max(m, math.Abs(x))
	}
	return m
}

// TestGuaranteeRelative: the float32 residual is float32 rounding of h,
// so it scales with ‖h‖; hidden states with norms in the thousands keep it
// below 1e-7·‖h‖ per coordinate (measured: ~6e-9·‖h‖).
func TestGuaranteeRelative(t *testing.T) {
	r := rand.New(rand.NewPCG(15, 16))
	const d, m = 576, 20
	for _, scale := range []float64{1, 100, 1000} {
		p, err := NewProjector(randMat(r, d, m), randVec(r, d, scale), randVec(r, d, 1), 0.3)
		if err != nil {
			t.Fatal(err)
		}
		h32 := make([]float32, d)
		for i, x := range randVec(r, d, scale) {
			h32[i] = float32(x)
		}
		if err := p.Apply(h32); err != nil {
			t.Fatal(err)
		}
		back := make([]float64, d)
		var n2 float64
		for i, x := range h32 {
			back[i] = float64(x)
			n2 += back[i] * back[i]
		}
		f, _ := p.Forbidden(back)
		if e := maxAbs(f) / math.Sqrt(n2); e > 1e-7 {
			t.Errorf("scale %v: |Q_fᵀ(h−μ)|/‖h‖ = %g", scale, e)
		}
	}
}

// TestGuarantee: right after a step Q_fᵀ(h − μ) = 0, for ranks below,
// at and above one block, any α in range, float64 and float32.
func TestGuarantee(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, tc := range []struct{ d, m int }{{576, 20}, {64, 1}, {300, 64}, {200, 150}, {16, 16}, {520, 260}} {
		base, err := NewProjector(randMat(r, tc.d, tc.m), randVec(r, tc.d, 1), randVec(r, tc.d, 1), 0)
		if err != nil {
			t.Fatal(err)
		}
		if base.Rank() != tc.m {
			t.Fatalf("d=%d m=%d: rank %d", tc.d, tc.m, base.Rank())
		}
		for _, alpha := range []float64{0, 0.05, 0.2, 0.3, 1} {
			p, err := base.WithAlpha(alpha)
			if err != nil {
				t.Fatal(err)
			}
			for range 5 {
				h := randVec(r, tc.d, 1)
				h64 := slices.Clone(h)
				if err := p.Apply64(h64); err != nil {
					t.Fatal(err)
				}
				f, err := p.Forbidden(h64)
				if err != nil {
					t.Fatal(err)
				}
				if e := maxAbs(f); e > 1e-12 {
					t.Errorf("d=%d m=%d α=%v float64: |Q_fᵀ(h−μ)| = %g", tc.d, tc.m, alpha, e)
				}
				h32 := make([]float32, tc.d)
				for i, x := range h {
					h32[i] = float32(x)
				}
				if err := p.Apply(h32); err != nil {
					t.Fatal(err)
				}
				back := make([]float64, tc.d)
				for i, x := range h32 {
					back[i] = float64(x)
				}
				f, _ = p.Forbidden(back)
				if e := maxAbs(f); e > 1e-5 {
					t.Errorf("d=%d m=%d α=%v float32: |Q_fᵀ(h−μ)| = %g", tc.d, tc.m, alpha, e)
				}
				// The two paths compute the same step.
				for i := range back {
					if math.Abs(back[i]-h64[i]) > 1e-5*(1+math.Abs(h64[i])) {
						t.Fatalf("d=%d m=%d α=%v: float32 %v vs float64 %v at %d", tc.d, tc.m, alpha, back[i], h64[i], i)
					}
				}
			}
		}
	}
}

// TestStepFormula checks Apply64 against the formula built with gonum.
func TestStepFormula(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	const d, m, alpha = 40, 7, 0.25
	mu, dir, h := randVec(r, d, 1), randVec(r, d, 3), randVec(r, d, 2)
	p, err := NewProjector(randMat(r, d, m), mu, dir, alpha)
	if err != nil {
		t.Fatal(err)
	}
	q := p.Basis()
	var qtq mat.Dense
	qtq.Mul(q.T(), q)
	if !mat.EqualApprox(&qtq, eye(m), 1e-14) {
		t.Fatal("basis is not orthonormal")
	}
	var ps mat.Dense
	ps.Mul(q, q.T())
	ps.Sub(eye(d), &ps)
	x := mat.NewVecDense(d, nil)
	x.SubVec(mat.NewVecDense(d, slices.Clone(h)), mat.NewVecDense(d, mu))
	vhat := mat.NewVecDense(d, slices.Clone(dir))
	vhat.ScaleVec(1/mat.Norm(vhat, 2), vhat)
	x.AddScaledVec(x, alpha*mat.Norm(x, 2), vhat)
	var want mat.VecDense
	want.MulVec(&ps, x)
	want.AddVec(&want, mat.NewVecDense(d, mu))
	got := slices.Clone(h)
	if err := p.Apply64(got); err != nil {
		t.Fatal(err)
	}
	for i := range got {
		if math.Abs(got[i]-want.AtVec(i)) > 1e-12 {
			t.Fatalf("component %d: %v, want %v", i, got[i], want.AtVec(i))
		}
	}
	// α = 0 is exactly the projection, and projecting twice changes
	// nothing more.
	p0, err := p.WithAlpha(0)
	if err != nil {
		t.Fatal(err)
	}
	once := slices.Clone(h)
	if err := p0.Apply64(once); err != nil {
		t.Fatal(err)
	}
	twice := slices.Clone(once)
	if err := p0.Apply64(twice); err != nil {
		t.Fatal(err)
	}
	for i := range once {
		var wantP float64
		for j := range d {
			wantP += ps.At(i, j) * (h[j] - mu[j])
		}
		if math.Abs(once[i]-(mu[i]+wantP)) > 1e-12 || math.Abs(twice[i]-once[i]) > 1e-12 {
			t.Fatalf("α = 0 component %d: %v / %v, want %v", i, once[i], twice[i], mu[i]+wantP)
		}
	}
	if p.Alpha() != alpha || p0.Alpha() != 0 || p0.Dim() != d {
		t.Error("WithAlpha changed the wrong thing")
	}
}

func eye(n int) *mat.Dense {
	e := mat.NewDense(n, n, nil)
	for i := range n {
		e.Set(i, i, 1)
	}
	return e
}

func TestIdentity(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	const d = 33
	mu := randVec(r, d, 1)
	for _, forbidden := range []mat.Matrix{nil, mat.NewDense(d, 2, nil)} { // no basis; an all-zero one
		p, err := NewProjector(forbidden, mu, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		if p.Rank() != 0 || p.Basis() != nil {
			t.Fatalf("rank %d", p.Rank())
		}
		h := randVec(r, d, 5)
		got := slices.Clone(h)
		if err := p.Apply64(got); err != nil || !slices.Equal(got, h) {
			t.Fatalf("float64 identity changed h (%v)", err)
		}
		h32 := []float32{1.5, -2, float32(math.Pi), 1e-30, -1e30}
		p5, err := NewProjector(nil, make([]float64, 5), nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		got32 := slices.Clone(h32)
		if err := p5.Apply(got32); err != nil || !slices.Equal(got32, h32) {
			t.Fatalf("float32 identity changed h: %v (%v)", got32, err)
		}
	}
	// No forbidden subspace, α > 0: a plain step along v̂.
	p, err := NewProjector(nil, []float64{0, 0}, []float64{0, 2}, 0.5)
	if err != nil {
		t.Fatal(err)
	}
	h := []float64{3, 4}
	if err := p.Apply64(h); err != nil || h[0] != 3 || h[1] != 6.5 {
		t.Errorf("free step: %v %v, want [3 6.5]", h, err)
	}
}

func TestRankDeficientBasis(t *testing.T) {
	// Columns: e₀, 2e₀ (dependent), 0, e₀+e₁ → span{e₀, e₁}.
	b := mat.NewDense(3, 4, []float64{
		1, 2, 0, 1,
		0, 0, 0, 1,
		0, 0, 0, 0,
	})
	p, err := NewProjector(b, []float64{0, 0, 0}, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	if p.Rank() != 2 {
		t.Fatalf("rank %d, want 2", p.Rank())
	}
	h := []float64{5, -7, 3}
	if err := p.Apply64(h); err != nil {
		t.Fatal(err)
	}
	if math.Abs(h[0]) > 1e-15 || math.Abs(h[1]) > 1e-15 || h[2] != 3 {
		t.Errorf("projection onto e₂: %v", h)
	}
}

func TestProjectorErrors(t *testing.T) {
	ok3 := []float64{1, 2, 3}
	nan := []float64{1, math.NaN(), 3}
	cases := []struct {
		name   string
		b      mat.Matrix
		mu     []float64
		dir    []float64
		alpha  float64
		substr string
	}{
		{"empty μ", nil, nil, nil, 0, "empty centre"},
		{"NaN μ", nil, nan, nil, 0, "NaN"},
		{"huge μ", nil, []float64{1, 1e39, 3}, nil, 0, "overflows float32"},
		{"α < 0", nil, ok3, ok3, -0.1, "outside"},
		{"α > 1", nil, ok3, ok3, 1.5, "outside"},
		{"α NaN", nil, ok3, ok3, math.NaN(), "outside"},
		{"no direction", nil, ok3, nil, 0.1, "needs a direction"},
		{"zero direction", nil, ok3, []float64{0, 0, 0}, 0.1, "no direction"},
		{"short direction", nil, ok3, []float64{1, 2}, 0.1, "direction has 2"},
		{"NaN direction", nil, ok3, nan, 0.1, "NaN"},
		{"basis rows", mat.NewDense(4, 2, nil), ok3, nil, 0, "4×2"},
		{"basis NaN", mat.NewDense(3, 1, nan), ok3, nil, 0, "NaN"},
	}
	for _, c := range cases {
		_, err := NewProjector(c.b, c.mu, c.dir, c.alpha)
		if err == nil || !strings.Contains(err.Error(), c.substr) {
			t.Errorf("%s: %v, want an error containing %q", c.name, err, c.substr)
		}
	}
	p, err := NewProjector(nil, ok3, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.WithAlpha(0.1); err == nil {
		t.Error("α > 0 without a direction accepted by WithAlpha")
	}
	if _, err := p.WithAlpha(2); err == nil {
		t.Error("WithAlpha(2) accepted")
	}
	if err := p.Apply(make([]float32, 4)); err == nil {
		t.Error("Apply of a wrong length accepted")
	}
	if err := p.Apply64(make([]float64, 2)); err == nil {
		t.Error("Apply64 of a wrong length accepted")
	}
	if _, err := p.Forbidden(make([]float64, 2)); err == nil {
		t.Error("Forbidden of a wrong length accepted")
	}
}

func TestApplyAllocs(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	p, err := NewProjector(randMat(r, 256, 100), randVec(r, 256, 1), randVec(r, 256, 1), 0.2)
	if err != nil {
		t.Fatal(err)
	}
	h := make([]float32, 256)
	if a := testing.AllocsPerRun(20, func() { _ = p.Apply(h) }); a != 0 {
		t.Errorf("Apply: %v allocations", a)
	}
	h64 := make([]float64, 256)
	if a := testing.AllocsPerRun(20, func() { _ = p.Apply64(h64) }); a != 0 {
		t.Errorf("Apply64: %v allocations", a)
	}
}

func TestDirections(t *testing.T) {
	concept := [][]float64{{2, 1, 0}, {4, 1, 0}}
	neutral := [][]float64{{0, 1, 0}, {0, 1, 0}, {0, 1, 0}}
	u, err := ConceptDirection(concept, neutral)
	if err != nil || !slices.Equal(u, []float64{1, 0, 0}) {
		t.Errorf("ConceptDirection = %v, %v", u, err)
	}
	for name, c := range map[string][2][][]float64{
		"empty concept": {nil, neutral},
		"empty neutral": {concept, nil},
		"ragged":        {{{1, 2, 3}, {1, 2}}, neutral},
		"zero length":   {{{}}, {{}}},
		"NaN":           {{{math.NaN(), 0, 0}}, neutral},
		"same means":    {neutral, neutral},
	} {
		if _, err := ConceptDirection(c[0], c[1]); err == nil {
			t.Errorf("ConceptDirection(%s) accepted", name)
		}
	}

	b := mat.NewDense(3, 2, []float64{3, 0, 4, 0, 0, 0})
	if u, err := Axis(b, 0); err != nil || math.Abs(u[0]-0.6) > 1e-15 || math.Abs(u[1]-0.8) > 1e-15 {
		t.Errorf("Axis = %v, %v", u, err)
	}
	for _, i := range []int{-1, 1, 2} { // column 1 is zero
		if _, err := Axis(b, i); err == nil {
			t.Errorf("Axis(b, %d) accepted", i)
		}
	}
	if _, err := Axis(nil, 0); err == nil {
		t.Error("Axis(nil) accepted")
	}

	m := mat.NewSymDense(3, []float64{
		2, 0, 0,
		0, 5, 1,
		0, 1, 5,
	})
	u, err = TopEigenvector(m)
	s := 1 / math.Sqrt2
	if err != nil || math.Abs(u[0]) > 1e-12 || math.Abs(u[1]-s) > 1e-12 || math.Abs(u[2]-s) > 1e-12 {
		t.Errorf("TopEigenvector = %v, %v", u, err)
	}
	neg := mat.NewSymDense(2, []float64{-3, 0, 0, -1})
	if u, err := TopEigenvector(neg); err != nil || math.Abs(u[1]-1) > 1e-15 {
		t.Errorf("TopEigenvector of a negative matrix = %v, %v (want the largest algebraic)", u, err)
	}
	for name, m := range map[string]*mat.SymDense{
		"nil":      nil,
		"identity": mat.NewSymDense(4, []float64{1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1}),
		"zero":     mat.NewSymDense(2, nil),
		"NaN":      mat.NewSymDense(2, []float64{1, math.NaN(), math.NaN(), 1}),
	} {
		if _, err := TopEigenvector(m); err == nil {
			t.Errorf("TopEigenvector(%s) accepted", name)
		}
	}
	if u, err := TopEigenvector(mat.NewSymDense(1, []float64{-2})); err != nil || u[0] != 1 {
		t.Errorf("1×1: %v %v", u, err)
	}
}

// fakeGen stands in for a model: its output depends on the seed, α and
// the previous output, as a sampled generation would.
func fakeGen(step int, alpha float64, seed uint64, prev string) (string, error) {
	r := rand.New(rand.NewPCG(seed, 0))
	return fmt.Sprintf("%d:%.2f:%x<%s>", step, alpha, r.Uint64(), prev), nil
}

func TestChain(t *testing.T) {
	a, err := Chain(DefaultAlphas(), 42, fakeGen)
	if err != nil || len(a) != 3 {
		t.Fatalf("chain: %v %v", a, err)
	}
	b, _ := Chain(DefaultAlphas(), 42, fakeGen)
	if !slices.Equal(a, b) {
		t.Errorf("same seed, different chains:\n%v\n%v", a, b)
	}
	c, _ := Chain(DefaultAlphas(), 43, fakeGen)
	for i := range a {
		if a[i] == c[i] {
			t.Errorf("step %d identical for seeds 42 and 43: %q", i, a[i])
		}
	}
	for i := 1; i < len(a); i++ {
		if !strings.HasSuffix(a[i], "<"+a[i-1]+">") {
			t.Errorf("step %d not seeded by step %d: %q", i, i-1, a[i])
		}
	}
	if !strings.HasPrefix(a[0], "0:0.20:") || !strings.HasSuffix(a[0], "<>") {
		t.Errorf("first step %q", a[0])
	}
	// Per-step seeds differ from each other and from the chain seed.
	seen := map[uint64]bool{42: true}
	for i := range 1000 {
		s := StepSeed(42, i)
		if seen[s] {
			t.Fatalf("step seed %d repeats", i)
		}
		seen[s] = true
	}
	// Equal α's are non-increasing, so allowed.
	if _, err := Chain([]float64{0.1, 0.1, 0}, 1, fakeGen); err != nil {
		t.Errorf("flat chain: %v", err)
	}
	for name, alphas := range map[string][]float64{
		"empty":      nil,
		"increasing": {0.1, 0.2},
		"negative":   {0.2, -0.1},
		"too large":  {1.5},
		"NaN":        {math.NaN()},
	} {
		if _, err := Chain(alphas, 1, fakeGen); err == nil {
			t.Errorf("Chain(%s) accepted", name)
		}
	}
	if _, err := Chain(DefaultAlphas(), 1, nil); err == nil {
		t.Error("nil generator accepted")
	}
	boom := errors.New("boom")
	out, err := Chain(DefaultAlphas(), 1, func(step int, alpha float64, seed uint64, prev string) (string, error) {
		if step == 2 {
			return "", boom
		}
		return "ok", nil
	})
	if !errors.Is(err, boom) || len(out) != 2 {
		t.Errorf("failing step: %v %v", out, err)
	}
	d := DefaultAlphas()
	d[0] = 9
	if DefaultAlphas()[0] != 0.20 {
		t.Error("DefaultAlphas is shared")
	}
}

func TestCreativity(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	same := "The moonlight danced across the quiet lake tonight."
	state := randVec(r, 32, 1)
	identical, err := Creativity([]string{same, same, same, same}, [][]float64{state, state, state, state})
	if err != nil {
		t.Fatal(err)
	}
	if identical.Divergence > 1e-12 || identical.SelfBLEU != 1 || identical.Total > 20 || identical.Grade() != "D" {
		t.Errorf("identical texts: %+v", identical)
	}
	varied := []string{
		"The moonlight danced across the quiet lake tonight.",
		"A copper kettle whistles folk songs to sleeping cats.",
		"Glaciers remember every footprint, politely refusing to forget.",
		"Seven algorithms argued about breakfast until dawn broke.",
	}
	states := make([][]float64, len(varied))
	for i := range states {
		states[i] = randVec(r, 32, 1)
	}
	v, err := Creativity(varied, states)
	if err != nil {
		t.Fatal(err)
	}
	if !(v.Total > 70) || !(v.Total > identical.Total) || v.Distinct < 0.9 || v.SelfBLEU > 0.2 {
		t.Errorf("varied texts: %+v", v)
	}
	// Deterministic, and in bounds for arbitrary input.
	again, _ := Creativity(varied, states)
	if again != v {
		t.Errorf("not deterministic: %+v vs %+v", v, again)
	}
	words := strings.Fields("a b c d e f the of lake moon sky , . ! ミク")
	for range 300 {
		n := 2 + r.IntN(5)
		texts := make([]string, n)
		sts := make([][]float64, n)
		for i := range texts {
			var sb strings.Builder
			for range r.IntN(15) {
				sb.WriteString(words[r.IntN(len(words))] + " ")
			}
			texts[i] = sb.String()
			sts[i] = randVec(r, 4, 1)
			if r.IntN(4) == 0 {
				sts[i] = slices.Clone(sts[0])
				for j := range sts[i] {
					sts[i][j] *= -1
				}
			}
		}
		s, err := Creativity(texts, sts)
		if err != nil {
			t.Fatal(err)
		}
		for _, x := range []float64{s.Divergence, s.Distinct, s.SelfBLEU} {
			if !(x >= 0 && x <= 1) {
				t.Fatalf("%q: part out of [0, 1]: %+v", texts, s)
			}
		}
		if !(s.Total >= 0 && s.Total <= 100) {
			t.Fatalf("%q: total %v", texts, s.Total)
		}
	}
	for name, c := range map[string]struct {
		texts  []string
		states [][]float64
	}{
		"one text":       {[]string{"a"}, [][]float64{{1}}},
		"count mismatch": {[]string{"a", "b"}, [][]float64{{1}}},
		"ragged":         {[]string{"a", "b"}, [][]float64{{1, 2}, {1}}},
		"empty state":    {[]string{"a", "b"}, [][]float64{{}, {}}},
		"zero state":     {[]string{"a", "b"}, [][]float64{{0, 0}, {1, 0}}},
		"NaN state":      {[]string{"a", "b"}, [][]float64{{math.NaN(), 0}, {1, 0}}},
	} {
		if _, err := Creativity(c.texts, c.states); err == nil {
			t.Errorf("Creativity(%s) accepted", name)
		}
	}
}

func TestBLEUKnown(t *testing.T) {
	// Two texts sharing "the cat sat" out of four tokens each.
	toks := [][]string{tokens("The cat sat down."), tokens("the cat sat up")}
	got := selfBLEU(toks)
	// p1 = 3/4, p2 = (2+1)/(3+1), p3 = (1+1)/(2+1), p4 = (0+1)/(1+1), BP = 1.
	want := math.Pow(0.75*0.75*(2.0/3)*0.5, 0.25)
	if math.Abs(got-want) > 1e-15 {
		t.Errorf("self-BLEU %v, want %v", got, want)
	}
	// distinct-1 = 5/8 (the cat sat down up), distinct-2 = 4/6.
	if d := distinct(toks); math.Abs(d-(5.0/8+4.0/6)/2) > 1e-15 {
		t.Errorf("distinct %v", d)
	}
	// Brevity: a 2-token text against a 4-token one.
	short := [][]string{tokens("the cat"), tokens("the cat sat up")}
	c := [][]map[string]int{}
	for _, tk := range short {
		var row []map[string]int
		for n := 1; n <= bleuOrder; n++ {
			row = append(row, ngrams(tk, n))
		}
		c = append(c, row)
	}
	// p1 = 1, p2 = 2/2, p3 = 1/1, p4 = 1/1, BP = e^(1−2).
	if b := bleu(0, short, c); math.Abs(b-math.Exp(-1)) > 1e-15 {
		t.Errorf("short BLEU %v, want %v", b, math.Exp(-1))
	}
}

func BenchmarkApply(b *testing.B) {
	const d, m = 576, 20
	r := rand.New(rand.NewPCG(11, 12))
	p, err := NewProjector(randMat(r, d, m), randVec(r, d, 1), randVec(r, d, 1), 0.2)
	if err != nil {
		b.Fatal(err)
	}
	h := make([]float32, d)
	for i, x := range randVec(r, d, 1) {
		h[i] = float32(x)
	}
	b.ReportAllocs()
	for b.Loop() {
		if err := p.Apply(h); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkApply4096x100(b *testing.B) {
	const d, m = 4096, 100
	r := rand.New(rand.NewPCG(13, 14))
	p, err := NewProjector(randMat(r, d, m), randVec(r, d, 1), randVec(r, d, 1), 0.2)
	if err != nil {
		b.Fatal(err)
	}
	h := make([]float32, d)
	b.ReportAllocs()
	for b.Loop() {
		if err := p.Apply(h); err != nil {
			b.Fatal(err)
		}
	}
}
