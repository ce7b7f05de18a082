package model

import (
	"math"
	"testing"
)

// queryLog keeps the queries of one position, per layer.
type queryLog struct {
	pos   int
	q     map[int][]float32
	scale float32
	calls int
}

func (r *queryLog) Queries(layer, pos int, q []float32, n int, scale float32) {
	r.calls++
	r.scale = scale
	if r.pos >= pos && r.pos < pos+n {
		w := len(q) / n
		i := r.pos - pos
		r.q[layer] = append([]float32(nil), q[i*w:(i+1)*w]...)
	}
}

// TestQueryHookAndMaskEntries: a QueryHook sees every layer's queries
// (Heads·HeadDim a row, the attention's scale); and masking entries with a
// key that the next query scores at −10⁴ (MaskEntries) gives that query the
// logits that evicting the same entries gives, which is what makes masking
// a head-wise eviction's stand-in.
func TestQueryHookAndMaskEntries(t *testing.T) {
	m := openModel(t, "kjv/kjv-f32.gguf")
	c := &m.Config
	prompt := []int32{1, 300, 391, 394, 310, 322, 280, 300, 391, 270, 330, 301}
	next := []int32{395}
	// The next token's queries, recorded on a state that runs it.
	rec, err := m.NewStateOn(64, testBackend())
	if err != nil {
		t.Fatal(err)
	}
	ql := &queryLog{pos: len(prompt), q: map[int][]float32{}}
	remove, err := rec.AddHook(ql)
	if err != nil {
		t.Fatal(err)
	}
	if err := rec.Forward(append(append([]int32(nil), prompt...), next...), nil); err != nil {
		t.Fatal(err)
	}
	remove()
	if ql.calls != c.Layers || len(ql.q) != c.Layers || len(ql.q[0]) != c.Heads*c.HeadDim {
		t.Fatalf("hook called %d times, %d layers recorded of %d values", ql.calls, len(ql.q), len(ql.q[0]))
	}
	if want := float32(1 / math.Sqrt(float64(c.HeadDim))); ql.scale != want {
		t.Fatalf("scale %g, want %g", ql.scale, want)
	}
	drop := []int32{2, 3, 5, 8} // slots (= positions) masked or evicted
	keep := []int32{0, 1, 4, 6, 7, 9, 10, 11}
	evicted, _ := m.NewStateOn(64, testBackend())
	masked, _ := m.NewStateOn(64, testBackend())
	for _, s := range []*State{evicted, masked} {
		if err := s.Forward(prompt, nil); err != nil {
			t.Fatal(err)
		}
	}
	if err := evicted.Evict(len(keep), func(_, _ int, _ []float32, _, _ int, _ []int32, k []int32) { copy(k, keep) }); err != nil {
		t.Fatal(err)
	}
	hd := c.HeadDim
	for l := range c.Layers {
		for h := range c.KVHeads {
			g := c.Heads / c.KVHeads
			key := scoredAt(ql.q[l][h*g*hd:(h+1)*g*hd], g, hd, -1e4/float64(ql.scale))
			if err := masked.MaskEntries(l, h, drop, key); err != nil {
				t.Fatal(err)
			}
		}
	}
	k, v := make([]float32, c.KVDim()), make([]float32, c.KVDim())
	if err := masked.KVAt(0, 3, k, v); err != nil {
		t.Fatal(err)
	}
	for _, x := range v {
		if x != 0 {
			t.Fatalf("a masked value is %v, want 0", x)
		}
	}
	a, b := make([]float32, c.Vocab), make([]float32, c.Vocab)
	if err := evicted.Forward(next, a); err != nil {
		t.Fatal(err)
	}
	if err := masked.Forward(next, b); err != nil {
		t.Fatal(err)
	}
	var worst float64
	for i := range a {
		worst = max(worst, math.Abs(float64(a[i]-b[i])))
	}
	if worst > 1e-3 {
		t.Fatalf("masked and evicted logits differ by %g", worst)
	}
	if err := masked.MaskEntries(0, 0, []int32{99}, key0(hd)); err == nil {
		t.Fatal("masking a slot not cached succeeded")
	}

	// The same from inside a step: a QueryHook fits the masking key to the
	// queries about to attend, as kvpress does at every forward, over two
	// tokens run one at a time and then two in one step.
	more := []int32{395, 301, 280, 322}
	evicted.Truncate(len(prompt))
	live, _ := m.NewStateOn(64, testBackend())
	if err := live.Forward(prompt, nil); err != nil {
		t.Fatal(err)
	}
	fence := &fencer{s: live, drop: drop, t: t}
	if _, err := live.AddHook(fence); err != nil {
		t.Fatal(err)
	}
	for _, step := range [][]int32{more[:1], more[1:2], more[2:]} {
		a := make([]float32, len(step)*c.Vocab)
		b := make([]float32, len(step)*c.Vocab)
		if len(step) == 1 {
			a, b = a[:c.Vocab], b[:c.Vocab]
		}
		if err := evicted.Forward(step, a); err != nil {
			t.Fatal(err)
		}
		if err := live.Forward(step, b); err != nil {
			t.Fatal(err)
		}
		worst = 0
		for i := range a {
			worst = max(worst, math.Abs(float64(a[i]-b[i])))
		}
		if worst > 1e-3 {
			t.Fatalf("step %v: masked in the hook and evicted logits differ by %g", step, worst)
		}
	}
}

// fencer masks drop at every layer with keys fitted to the step's queries.
type fencer struct {
	s    *State
	drop []int32
	t    *testing.T
}

func (f *fencer) Queries(layer, _ int, q []float32, n int, scale float32) {
	c := &f.s.m.Config
	g, hd := c.Heads/c.KVHeads, c.HeadDim
	for h := range c.KVHeads {
		// The group's heads of every row, gathered: g·n queries.
		var qs []float32
		for r := range n {
			qs = append(qs, q[(r*c.Heads+h*g)*hd:(r*c.Heads+(h+1)*g)*hd]...)
		}
		if err := f.s.MaskEntries(layer, h, f.drop, scoredAt(qs, g*n, hd, -1e4/float64(scale))); err != nil {
			f.t.Error(err)
		}
	}
}

func key0(hd int) []float32 { return make([]float32, hd) }

// scoredAt is the least-norm key k with q_i·k = t for each of the g
// queries q (g rows of hd): k = Qᵀ(QQᵀ)⁻¹·t1, solved by elimination.
func scoredAt(q []float32, g, hd int, t float64) []float32 {
	a := make([][]float64, g) // [QQᵀ | t]
	for i := range g {
		a[i] = make([]float64, g+1)
		for j := range g {
			for d := range hd {
				a[i][j] += float64(q[i*hd+d]) * float64(q[j*hd+d])
			}
		}
		a[i][g] = t
	}
	for i := range g {
		for r := i + 1; r < g; r++ {
			f := a[r][i] / a[i][i]
			for j := i; j <= g; j++ {
				a[r][j] -= f * a[i][j]
			}
		}
	}
	y := make([]float64, g)
	for i := g - 1; i >= 0; i-- {
		s := a[i][g]
		for j := i + 1; j < g; j++ {
			s -= a[i][j] * y[j]
		}
		y[i] = s / a[i][i]
	}
	k := make([]float32, hd)
	for i := range g {
		for d := range hd {
			k[d] += float32(y[i] * float64(q[i*hd+d]))
		}
	}
	return k
}
