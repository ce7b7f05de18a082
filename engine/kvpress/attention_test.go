package kvpress

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// attnCase is n keys of hd = 4 along e₁ (unremarkable), and n queries of
// one head: every query looks at slot hot (its key is e₀, the queries
// have a large e₀ part), except the last `window` queries, which look at
// slot late (key e₂, queries along e₂) instead.
func attnCase(n, hot, late, window int) (keys []float32, pos []int32, q *Queries) {
	const hd = 4
	keys = make([]float32, n*hd)
	pos = make([]int32, n)
	qs := make([]float32, n*hd)
	for i := range n {
		pos[i] = int32(i)
		keys[i*hd+1] = 1
		if i < n-window {
			qs[i*hd+0] = 10
		} else {
			qs[i*hd+2] = 10
		}
		qs[i*hd+1] = 1
	}
	keys[hot*hd+1], keys[hot*hd+0] = 0, 1
	keys[late*hd+1], keys[late*hd+2] = 0, 1
	return keys, pos, &Queries{Q: qs, Stride: hd, Rows: n, Group: 1, Pos: pos, Scale: 1}
}

// TestH2OKeepsTheHeavyHitter: the key that takes most of every query's
// attention is kept by H2O at a budget of one unprotected entry; the key
// only the last few queries look at is not.
func TestH2OKeepsTheHeavyHitter(t *testing.T) {
	const n, hot, late = 100, 20, 40
	keys, pos, q := attnCase(n, hot, late, 8)
	p := &Policy{Kind: H2O, Sinks: 2, Recent: 4}
	sc := make([]float32, n)
	if err := p.AttentionScores(keys, n, 4, pos, q, sc); err != nil {
		t.Fatal(err)
	}
	keep := make([]int32, 7)
	p.ChooseScores(sc, n, keep)
	if !slices.Contains(keep, hot) || slices.Contains(keep, late) {
		t.Fatalf("H2O kept %v, want %d and not %d", keep, hot, late)
	}
	// The accumulated attention is what it says: every query from hot on
	// gives it most of its softmax.
	if sc[hot] < 0.9*float32(n-hot-8) {
		t.Fatalf("H2O score of the hot key %g", sc[hot])
	}
}

// TestSnapKVKeepsWhatTheWindowAttends: SnapKV reads only its observation
// window, so it keeps the key the last queries look at rather than the
// one the earlier ones did; the window's own keys are always kept, and the
// max-pool keeps the neighbours of what it keeps.
func TestSnapKVKeepsWhatTheWindowAttends(t *testing.T) {
	const n, hot, late, w = 100, 20, 40, 8
	keys, pos, q := attnCase(n, hot, late, w)
	p := &Policy{Kind: SnapKV, Sinks: 2, Recent: 1, Observe: w, Pool: 3}
	sc := make([]float32, n)
	if err := p.AttentionScores(keys, n, 4, pos, q, sc); err != nil {
		t.Fatal(err)
	}
	for j := n - w; j < n; j++ {
		if !math.IsInf(float64(sc[j]), 1) {
			t.Fatalf("window key %d scored %g, want +Inf", j, sc[j])
		}
	}
	if sc[late-1] != sc[late] || sc[late+1] != sc[late] || sc[late+2] >= sc[late] {
		t.Fatalf("max-pool of 3 around %d: %v", late, sc[late-2:late+3])
	}
	keep := make([]int32, 2+w+3)
	p.ChooseScores(sc, n, keep)
	for _, want := range []int32{late - 1, late, late + 1, n - w, n - 1} {
		if !slices.Contains(keep, want) {
			t.Fatalf("SnapKV kept %v, lacks %d", keep, want)
		}
	}
	if slices.Contains(keep, hot) {
		t.Fatalf("SnapKV kept %v: the early queries' key %d", keep, hot)
	}
	// Without the queries it is StreamingLLM, and bad queries are an error.
	if err := p.AttentionScores(keys, n, 4, pos, &Queries{Q: q.Q[:10], Stride: 4, Rows: n, Group: 1, Pos: pos}, sc); err == nil {
		t.Fatal("short queries accepted")
	}
}

// TestGroupedQueries: the scores of a KV head sum over its group's query
// heads, laid out one after the other in a row wider than the group.
func TestGroupedQueries(t *testing.T) {
	const n, hot, late = 60, 10, 30
	keys, pos, q1 := attnCase(n, hot, late, 8)
	// Two heads: the first as above, the second looking at late always;
	// the row is 12 wide (a third head of another group follows).
	qs := make([]float32, n*12)
	for i := range n {
		copy(qs[i*12:], q1.Q[i*4:(i+1)*4])
		qs[i*12+4+2] = 10
	}
	q := &Queries{Q: qs, Stride: 12, Rows: n, Group: 2, Pos: pos, Scale: 1}
	p := &Policy{Kind: H2O, Sinks: -1, Recent: -1}
	sc := make([]float32, n)
	if err := p.AttentionScores(keys, n, 4, pos, q, sc); err != nil {
		t.Fatal(err)
	}
	keep := make([]int32, 2)
	p.ChooseScores(sc, n, keep)
	if !slices.Equal(keep, []int32{hot, late}) {
		t.Fatalf("kept %v, want the two heads' keys %d and %d", keep, hot, late)
	}
}

// TestAdaKVBudgets: a head whose scores sit on a few entries gets less of
// the layer's budget than a head whose scores are flat, never less than
// the floor, and the layer keeps what a uniform split would.
func TestAdaKVBudgets(t *testing.T) {
	const n, m = 200, 50
	r := rand.New(rand.NewPCG(3, 4))
	flat, peaked := make([]float32, n), make([]float32, n)
	for i := range n {
		flat[i] = 1 + 0.01*float32(r.Float64())
		peaked[i] = 0.001 * float32(r.Float64())
	}
	for _, i := range []int{30, 60, 90} {
		peaked[i] = 100
	}
	p := &Policy{Sinks: 4, Recent: 6}
	keep := p.ChooseHeadWise([][]float32{peaked, flat}, n, m)
	if len(keep[0])+len(keep[1]) != 2*m {
		t.Fatalf("kept %d + %d, want %d", len(keep[0]), len(keep[1]), 2*m)
	}
	if len(keep[0]) >= len(keep[1]) {
		t.Fatalf("the peaked head kept %d, the flat one %d", len(keep[0]), len(keep[1]))
	}
	for _, i := range []int32{30, 60, 90, 0, 3, n - 6, n - 1} {
		if !slices.Contains(keep[0], i) {
			t.Fatalf("the peaked head lacks %d: %v", i, keep[0])
		}
	}
	// The floor: 20 % of the uniform unprotected share of 40 is 8, on top
	// of the 10 protected; the peaked head's three peaks are within it.
	if want := 4 + 6 + 8; len(keep[0]) != want {
		t.Fatalf("the peaked head kept %d, want the floor's %d", len(keep[0]), want)
	}
	// No floor: the peaked head keeps its peaks and protected entries only.
	p.Floor = -1
	keep = p.ChooseHeadWise([][]float32{peaked, flat}, n, m)
	if len(keep[0]) != 4+6+3 {
		t.Fatalf("without a floor the peaked head kept %d", len(keep[0]))
	}
	// Two flat heads split evenly, and the lists are ascending slots.
	p.Floor = 0
	keep = p.ChooseHeadWise([][]float32{flat, slices.Clone(flat)}, n, m)
	for _, k := range keep {
		checkKeep(t, k, n, m)
	}
	// m past n keeps everything.
	keep = p.ChooseHeadWise([][]float32{flat}, n, n+5)
	checkKeep(t, keep[0], n, n)
}

// TestTwoNN: the Two-NN estimate is about 2 on a plane embedded in 32
// dimensions and about 5 on a 5-dimensional Gaussian.
func TestTwoNN(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	const n, D = 1500, 32
	u, v := make([]float64, D), make([]float64, D)
	for i := range D {
		u[i], v[i] = r.NormFloat64(), r.NormFloat64()
	}
	plane := make([]float32, n*D)
	for i := range n {
		a, b := r.Float64()*10, r.Float64()*10
		for j := range D {
			plane[i*D+j] = float32(3 + a*u[j] + b*v[j])
		}
	}
	gauss := make([]float32, n*5)
	for i := range gauss {
		gauss[i] = float32(r.NormFloat64())
	}
	for _, c := range []struct {
		name string
		x    []float32
		dim  int
		want float64
	}{{"plane", plane, D, 2}, {"gaussian", gauss, 5, 5}} {
		d := TwoNN(c.x, n, c.dim)
		if d.N != n || math.Abs(d.Fit-c.want) > 0.15*c.want || math.Abs(d.MLE-c.want) > 0.15*c.want {
			t.Errorf("%s: %+v, want about %g", c.name, d, c.want)
		}
		t.Logf("%s: fit %.2f, MLE %.2f", c.name, d.Fit, d.MLE)
	}
	if d := TwoNN(make([]float32, 10*3), 10, 3); d.N != 0 {
		t.Errorf("duplicates: %+v", d)
	}
}

// TestParseScorer: eval kv's names, AdaKV's prefix on any scorer but none.
func TestParseScorer(t *testing.T) {
	for s, want := range map[string]Kind{"snapkv": SnapKV, " H2O ": H2O, "adakv+snapkv": SnapKV | AdaKV, "AdaKV+manifold": Manifold | AdaKV, "random": Random} {
		if got, err := ParseScorer(s); err != nil || got != want {
			t.Errorf("ParseScorer(%q) = %v, %v", s, got, err)
		}
		if got, _ := ParseScorer(want.String()); got != want {
			t.Errorf("%v does not round-trip", want)
		}
	}
	for _, s := range []string{"adakv+", "adakv+none", "adakv+adakv+h2o", "snap"} {
		if _, err := ParseScorer(s); err == nil {
			t.Errorf("ParseScorer(%q) succeeded", s)
		}
	}
	if !(SnapKV | AdaKV).Attention() || Manifold.Attention() || !(H2O | AdaKV).HeadWise() {
		t.Error("flags")
	}
}
