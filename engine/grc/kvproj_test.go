package grc

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/isagi-lab/isagi/engine/internal/orth"
	"github.com/isagi-lab/isagi/engine/model"
)

// TestKVRank: the share of a head that rank k keeps of the width d, even,
// within [2, headDim].
func TestKVRank(t *testing.T) {
	for _, tc := range []struct{ hd, k, d, want int }{
		{32, 128, 256, 16}, // half
		{32, 100, 256, 14}, // ⌈12.5⌉ = 13 → 14
		{32, 1, 256, 2},    // ⌈0.125⌉ = 1 → 2
		{32, 0, 256, 2},    // nothing asked: the least a head keeps
		{32, 256, 256, 32}, // all: lossless
		{32, 999, 256, 32}, // more than all
		{128, 2048, 4096, 64},
		{64, 576, 576, 64},
		{32, 250, 256, 32}, // ⌈31.25⌉ = 32
		{32, 10, 0, 32},    // no width: no compression
	} {
		if got := KVRank(tc.hd, tc.k, tc.d); got != tc.want {
			t.Errorf("KVRank(%d, %d, %d) = %d, want %d", tc.hd, tc.k, tc.d, got, tc.want)
		}
	}
}

// greedy feeds prompt and steps greedy tokens; it returns every step's
// logits and the tokens.
func greedy(t *testing.T, s *model.State, prompt []int32, steps int) ([][]float32, []int32) {
	t.Helper()
	V := s.Model().Vocab
	var all [][]float32
	var toks []int32
	in := prompt
	for range steps + 1 {
		logits := make([]float32, V)
		if err := s.Forward(in, logits); err != nil {
			t.Fatal(err)
		}
		best := 0
		for i, x := range logits {
			if x > logits[best] {
				best = i
			}
		}
		all = append(all, logits)
		toks = append(toks, int32(best))
		in = []int32{int32(best)}
	}
	return all, toks
}

func maxAbsDiff(a, b [][]float32) float64 {
	var d float64
	for i := range a {
		for j := range a[i] {
			d = math.Max(d, math.Abs(float64(a[i][j]-b[i][j])))
		}
	}
	return d
}

// TestKVProjectionForLossless: at r = HeadDim the weights' projection
// reproduces the model's logits to rounding and its greedy tokens, on
// kjv (llama, adjacent RoPE pairs, GQA) and the architecture fixtures:
// qwen3 (Q/K norms, Neox), gemma2 (its own score scale, soft-cap, sliding
// window) and qwen2 (biases). F32 weights: a Q8_0 product quantises its
// input, so a rounding-level difference can move it by a step. (An
// identity projection reproduces gemma2 exactly: its scale, soft-cap and
// window are unchanged; the difference below is the rotation's rounding.)
func TestKVProjectionForLossless(t *testing.T) {
	prompt := []int32{1, 30, 91, 94, 17, 88, 40, 5, 61, 30, 12, 45}
	for _, f := range []string{"kjv/kjv-f32.gguf", "archs/qwen3.gguf", "archs/gemma2.gguf", "archs/qwen2.gguf"} {
		m := openModel(t, f)
		p, err := KVProjectionFor(m, m.HeadDim)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if !p.Lossless() || p.Rank() != m.HeadDim {
			t.Fatalf("%s: r = HeadDim gives rank %d, lossless %v", f, p.Rank(), p.Lossless())
		}
		dense, _ := m.NewStateOn(64, testBackend())
		s, _ := m.NewStateOn(64, testBackend())
		if err := s.SetKVProjection(p); err != nil {
			t.Fatal(err)
		}
		want, wantToks := greedy(t, dense, prompt, 5)
		got, gotToks := greedy(t, s, prompt, 5)
		d := maxAbsDiff(want, got)
		var top float64
		for _, x := range want[0] {
			top = math.Max(top, math.Abs(float64(x)))
		}
		t.Logf("%s: r = HeadDim = %d, max |Δlogit| %.3g (logits up to %.3g)", f, m.HeadDim, d, top)
		// Relative to the logits' size: the rotation's float32 rounding
		// (~1e-7 of each value) grows through the layers with the
		// activations' size; gemma2's random weights (embeddings ×√Dim,
		// soft-caps) end 5e-5 of its logits away, the others within 1e-6.
		// A wrong scale, basis or selection is off by far more.
		if d > 1e-4*math.Max(1, top) {
			t.Errorf("%s: logits differ by %g", f, d)
		}
		if !slices.Equal(wantToks, gotToks) {
			t.Errorf("%s: greedy tokens %v, want %v", f, gotToks, wantToks)
		}
	}
}

// TestKVProjectionForLowRank: at r < HeadDim the build is deterministic,
// keeps whole RoPE units, and its logits are closer to the model's than
// those of a projection drawn by chance at the same rank (the weights say
// something about which coordinates and directions matter).
func TestKVProjectionForLowRank(t *testing.T) {
	m := openModel(t, "kjv/kjv-f32.gguf")
	prompt := []int32{1, 300, 391, 394, 17, 88, 240, 5, 61, 300, 12, 450}
	dense, _ := m.NewStateOn(64, testBackend())
	want, _ := greedy(t, dense, prompt, 0) // the prompt's logits: one input for every state
	units := model.KeyUnits(&m.Config)
	unitOf := map[int]int{}
	for u, cs := range units {
		for _, c := range cs {
			unitOf[c] = u
		}
	}
	for _, r := range []int{m.HeadDim / 2, m.HeadDim / 4} {
		p, err := KVProjectionFor(m, r)
		if err != nil {
			t.Fatal(err)
		}
		again, _ := KVProjectionFor(m, r)
		for l := range m.Layers {
			a, b := p.Layer(l), again.Layer(l)
			for h := range m.KVHeads {
				if !slices.Equal(a.Keep[h], b.Keep[h]) || !slices.Equal(a.V[h], b.V[h]) {
					t.Fatalf("r = %d: two builds differ at layer %d head %d", r, l, h)
				}
				per := map[int]int{}
				for _, c := range a.Keep[h] {
					per[unitOf[c]]++
				}
				for u, n := range per {
					if n != len(units[u]) {
						t.Fatalf("r = %d layer %d head %d: unit %d kept in part", r, l, h, u)
					}
				}
			}
		}
		s, _ := m.NewStateOn(64, testBackend())
		if err := s.SetKVProjection(p); err != nil {
			t.Fatal(err)
		}
		got, _ := greedy(t, s, prompt, 0)
		dW := maxAbsDiff(want, got)
		rs, _ := m.NewStateOn(64, testBackend())
		if err := rs.SetKVProjection(randomKV(t, m, r)); err != nil {
			t.Fatal(err)
		}
		rnd, _ := greedy(t, rs, prompt, 0)
		dR := maxAbsDiff(want, rnd)
		t.Logf("r = %d of %d: prompt logits off by %.3g from the weights' projection, %.3g from a random one", r, m.HeadDim, dW, dR)
		if !(dW < dR) {
			t.Errorf("r = %d: the weights' projection (%.3g) is no closer than chance (%.3g)", r, dW, dR)
		}
	}
}

// randomKV is a projection of rank r drawn by chance: random whole units,
// a random orthonormal value basis.
func randomKV(t *testing.T, m *model.Model, r int) *model.KVProjection {
	t.Helper()
	rng := rand.New(rand.NewPCG(11, 13))
	c := &m.Config
	units := model.KeyUnits(c)
	layers := make([]model.KVLayer, c.Layers)
	for l := range layers {
		for range c.KVHeads {
			var keep []int
			for _, u := range rng.Perm(len(units)) {
				if len(keep)+len(units[u]) <= r {
					keep = append(keep, units[u]...)
				}
			}
			layers[l].Keep = append(layers[l].Keep, keep)
			basis := orth.Rows(rng, r, c.HeadDim)
			layers[l].V = append(layers[l].V, basis)
		}
	}
	p, err := model.NewKVProjection(c, r, layers)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestKeyImportance: on hand-made weights the importance follows the
// units of the RoPE layout, sums the group's query heads, is per
// coordinate, and is scaled by the Q/K norms' |γ| — a unit whose key norm
// weight is 0 is worth nothing, however large its rows.
func TestKeyImportance(t *testing.T) {
	const hd, dim = 4, 2
	for _, neox := range []bool{false, true} {
		c := &model.Config{Heads: 2, KVHeads: 1, HeadDim: hd, RopeDim: hd, RopeNeox: neox, Dim: dim}
		units := model.KeyUnits(c)
		// Row i of W_Q is (q_i, 0), of W_K (k_i, 0).
		qv := []float32{1, 2, 3, 4, 5, 6, 7, 8} // two query heads
		kv := []float32{1, 1, 2, 2}
		q := make([]float32, 2*hd*dim)
		k := make([]float32, hd*dim)
		for i, x := range qv {
			q[i*dim] = x
		}
		for i, x := range kv {
			k[i*dim] = x
		}
		want := func(qNorm, kNorm []float32) []float64 {
			g := func(w []float32, i int) float64 {
				if w == nil {
					return 1
				}
				return float64(w[i%hd])
			}
			out := make([]float64, len(units))
			for ui, u := range units {
				var kk float64
				for _, d := range u {
					kk += math.Pow(float64(kv[d])*g(kNorm, d), 2)
				}
				for qh := range 2 {
					var qq float64
					for _, d := range u {
						qq += math.Pow(float64(qv[qh*hd+d])*g(qNorm, d), 2)
					}
					out[ui] += math.Sqrt(qq) * math.Sqrt(kk)
				}
				out[ui] /= float64(len(u))
			}
			return out
		}
		for _, norms := range [][2][]float32{{nil, nil}, {{1, 1, 1, 1}, {0, 2, 0, 2}}, {{-3, 1, 1, 1}, nil}} {
			got := keyImportance(c, units, q, k, norms[0], norms[1])
			w := want(norms[0], norms[1])
			for u := range w {
				if math.Abs(got[0][u]-w[u]) > 1e-9*(1+w[u]) {
					t.Fatalf("neox=%v norms %v: unit %d (%v) importance %g, want %g", neox, norms, u, units[u], got[0][u], w[u])
				}
			}
		}
		// A key norm of 0 on coordinates 0 and 2: in the Neox layout they
		// are one pair (0, 2), worth nothing; keeping 2 of 4 keeps the
		// other.
		zero := []float32{0, 1, 0, 1}
		keep, err := keepUnits(units, keyImportance(c, units, q, k, nil, zero)[0], 2)
		if err != nil {
			t.Fatal(err)
		}
		if neox && !slices.Equal(keep, []int{1, 3}) {
			t.Fatalf("neox: kept %v, want the pair (1, 3)", keep)
		}
		if !neox && !slices.Equal(keep, []int{2, 3}) { // pairs (0,1) and (2,3) both have one zero; (2,3) has the larger rows
			t.Fatalf("adjacent: kept %v, want the pair (2, 3)", keep)
		}
	}
	// Ties go to the lower unit, and a single unit closes an odd gap.
	units := [][]int{{0, 2}, {1, 3}, {4}, {5}}
	keep, err := keepUnits(units, []float64{1, 1, 0.5, 0.5}, 4)
	if err != nil || !slices.Equal(keep, []int{0, 1, 2, 3}) {
		t.Fatalf("tie: kept %v (%v)", keep, err)
	}
	keep, err = keepUnits(units, []float64{1, 0.9, 0.1, 0.2}, 4)
	if err != nil || !slices.Equal(keep, []int{0, 1, 2, 3}) {
		t.Fatalf("kept %v (%v)", keep, err)
	}
	keep, err = keepUnits([][]int{{0, 1}, {2}, {3, 4}, {5}}, []float64{1, 0.1, 0.9, 0.2}, 4)
	if err != nil || !slices.Equal(keep, []int{0, 1, 3, 4}) {
		t.Fatalf("kept %v (%v)", keep, err)
	}
	// The pair (3, 4) no longer fits after (0, 1) and 2: the single 5
	// closes the gap.
	keep, err = keepUnits([][]int{{0, 1}, {2}, {3, 4}, {5}}, []float64{1, 0.95, 0.9, 0.2}, 4)
	if err != nil || !slices.Equal(keep, []int{0, 1, 2, 5}) {
		t.Fatalf("kept %v (%v)", keep, err)
	}
	if _, err := keepUnits([][]int{{0, 1}, {2, 3}}, []float64{1, 1}, 3); err == nil {
		t.Fatal("3 coordinates of pairs: no error")
	}
}
