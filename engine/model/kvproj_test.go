package model

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/isagi-lab/isagi/engine/backend"
	"github.com/isagi-lab/isagi/engine/backend/cpu"
	"github.com/isagi-lab/isagi/engine/internal/orth"
)

// randomBasis returns r orthonormal rows of d values drawn by chance: a
// value basis no better than chance, which at r = d is a rotation.
func randomBasis(rng *rand.Rand, r, d int) []float32 { return orth.Rows(rng, r, d) }

// handKV is a projection of rank r for c made by chance: each head keeps
// the units of a random order until r coordinates are kept (a single unit
// closes an odd gap), and a random value basis.
func handKV(t testing.TB, c *Config, r int, seed uint64) *KVProjection {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 1))
	units := KeyUnits(c)
	layers := make([]KVLayer, c.Layers)
	for l := range layers {
		for range c.KVHeads {
			var keep []int
			for _, u := range rng.Perm(len(units)) {
				if len(keep)+len(units[u]) <= r {
					keep = append(keep, units[u]...)
				}
			}
			layers[l].Keep = append(layers[l].Keep, keep)
			layers[l].V = append(layers[l].V, randomBasis(rng, r, c.HeadDim))
		}
	}
	p, err := NewKVProjection(c, r, layers)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// run feeds prompt and then steps greedy tokens, returning every step's
// logits (the prompt's last, then each decoded token's) and the tokens.
func run(t testing.TB, s *State, prompt []int32, steps int) ([][]float32, []int32) {
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
		all = append(all, logits)
		tok := argmax(logits)
		toks = append(toks, tok)
		in = []int32{tok}
	}
	return all, toks
}

// maxDiff is the largest |a−b| over the steps' logits.
func maxDiff(a, b [][]float32) float64 {
	var d float64
	for i := range a {
		for j := range a[i] {
			d = math.Max(d, math.Abs(float64(a[i][j]-b[i][j])))
		}
	}
	return d
}

var kvPrompt = []int32{1, 300, 391, 394, 17, 88, 240, 5, 61, 300, 12, 450}

// TestKVProjectionLossless: at r = HeadDim, with every key coordinate kept
// (in a shuffled order) and a random rotation of the values, the logits
// of a prompt and of greedy decode steps are the unprojected ones up to
// rounding, and so are the tokens; the cache is as large as without.
//
// On the F32 weights: a Q8_0 product quantises its input to 8 bits as
// ggml does, so a rounding-level difference that crosses a quantisation
// step moves the output by a step (kjv-q8_0 shows 0.03 at some position),
// while F32 products are continuous and show the projection's own error.
func TestKVProjectionLossless(t *testing.T) {
	m := openModel(t, "kjv/kjv-f32.gguf")
	dense, _ := m.NewStateOn(64, testBackend())
	s, _ := m.NewStateOn(64, testBackend())
	p := handKV(t, &m.Config, m.HeadDim, 1)
	if !p.Lossless() {
		t.Fatal("r = HeadDim is not lossless")
	}
	if err := s.SetKVProjection(p); err != nil {
		t.Fatal(err)
	}
	if s.KVProjection() != p || s.KVBytes() != dense.KVBytes() {
		t.Fatalf("projection %p (set %p), %d KV bytes (dense %d)", s.KVProjection(), p, s.KVBytes(), dense.KVBytes())
	}
	want, wantToks := run(t, dense, kvPrompt, 6)
	got, gotToks := run(t, s, kvPrompt, 6)
	d := maxDiff(want, got)
	t.Logf("r = HeadDim = %d: max |Δlogit| %.3g over %d steps", m.HeadDim, d, len(got))
	if d > 1e-4 {
		t.Fatalf("logits differ by %g", d)
	}
	if string(wantToks) != string(gotToks) {
		t.Fatalf("greedy tokens %v, want %v", gotToks, wantToks)
	}
	// Off again: the dense path, exactly.
	if err := s.SetKVProjection(nil); err != nil {
		t.Fatal(err)
	}
	if s.Pos() != 0 || s.KVProjection() != nil {
		t.Fatalf("after switching off: position %d, projection %v", s.Pos(), s.KVProjection())
	}
	again, _ := run(t, s, kvPrompt, 6)
	if d := maxDiff(want, again); d != 0 {
		t.Fatalf("dense again differs by %g", d)
	}
}

// rewinds records the positions a RewindHook is told.
type rewinds struct{ at []int }

func (r *rewinds) AfterBlock(int, int, []float32) {}
func (r *rewinds) Rewind(pos int)                 { r.at = append(r.at, pos) }

// TestKVProjectionRank: at r = HeadDim/2 the cache is exactly r/HeadDim of
// its size, the logits differ from the model's but stay finite, and
// setting the projection empties the state (hooks told, as by Reset).
func TestKVProjectionRank(t *testing.T) {
	m := openModel(t, "kjv/kjv-q8_0.gguf")
	dense, _ := m.NewStateOn(64, testBackend())
	s, _ := m.NewStateOn(64, testBackend())
	r := m.HeadDim / 2
	p := handKV(t, &m.Config, r, 2)
	hook := &rewinds{}
	if _, err := s.AddHook(hook); err != nil {
		t.Fatal(err)
	}
	if err := s.Forward(kvPrompt[:3], nil); err != nil {
		t.Fatal(err)
	}
	if err := s.SetKVProjection(p); err != nil {
		t.Fatal(err)
	}
	if s.Pos() != 0 || len(hook.at) != 1 || hook.at[0] != 0 {
		t.Fatalf("after SetKVProjection: position %d, rewinds %v; want 0, [0]", s.Pos(), hook.at)
	}
	before, after := p.ValuesPerToken()
	if got, want := s.KVBytes()*int64(m.HeadDim), dense.KVBytes()*int64(r); got != want || after*m.HeadDim != before*r {
		t.Fatalf("KV bytes %d of %d, values per token %d of %d: not r/HeadDim = %d/%d", s.KVBytes(), dense.KVBytes(), after, before, r, m.HeadDim)
	}
	t.Logf("r = %d of %d: KV cache %d bytes, dense %d; %d values per token, dense %d", r, m.HeadDim, s.KVBytes(), dense.KVBytes(), after, before)
	want, _ := run(t, dense, kvPrompt, 4)
	got, _ := run(t, s, kvPrompt, 4)
	for i := range got {
		for _, x := range got[i] {
			if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
				t.Fatalf("step %d: logit %g", i, x)
			}
		}
	}
	d := maxDiff(want, got)
	t.Logf("r = %d: max |Δlogit| %.3g (a random basis)", r, d)
	if d < 1e-3 {
		t.Fatalf("logits at half rank differ by only %g: the projection did not run", d)
	}
	k, v := make([]float32, m.KVHeads*r), make([]float32, m.KVHeads*r)
	if err := s.KVAt(0, 0, k, v); err != nil {
		t.Fatalf("KVAt at r per head: %v", err)
	}
}

// TestKVProjectionRefused: a backend without backend.HeadProjector refuses
// the projection with one clear error, and the state runs on as it was:
// its logits are those of a state that was never asked.
func TestKVProjectionRefused(t *testing.T) {
	m := openModel(t, "kjv/kjv-q8_0.gguf")
	s, _ := m.NewStateOn(64, newCounting()) // embeds backend.Backend only
	ref, _ := m.NewStateOn(64, testBackend())
	if err := s.Forward(kvPrompt[:5], nil); err != nil {
		t.Fatal(err)
	}
	err := s.SetKVProjection(handKV(t, &m.Config, m.HeadDim/2, 3))
	if err == nil || !strings.Contains(err.Error(), "cannot project its KV cache") {
		t.Fatalf("SetKVProjection on a backend without HeadProjector: %v", err)
	}
	if s.Pos() != 5 || s.KVProjection() != nil || s.KVBytes() != ref.KVBytes() {
		t.Fatalf("refused, the state is at %d with projection %v and %d KV bytes", s.Pos(), s.KVProjection(), s.KVBytes())
	}
	got, want := make([]float32, m.Vocab), make([]float32, m.Vocab)
	if err := s.Forward(kvPrompt[5:], got); err != nil {
		t.Fatal(err)
	}
	if err := ref.Forward(kvPrompt, want); err != nil {
		t.Fatal(err)
	}
	if d := maxDiff([][]float32{want}, [][]float32{got}); d != 0 {
		t.Fatalf("after a refusal the logits differ by %g", d)
	}
	// A projection built for other shapes is refused too.
	c := m.Config
	c.Layers++
	other := handKV(t, &c, m.HeadDim, 4)
	if err := ref.SetKVProjection(other); err == nil {
		t.Fatal("a projection of another model's layers was accepted")
	}
}

// TestNewKVProjectionChecks: the constructor refuses what would not run or
// not commute with RoPE.
func TestNewKVProjectionChecks(t *testing.T) {
	c := &Config{Layers: 1, Heads: 2, KVHeads: 1, HeadDim: 8, RopeDim: 6}
	rng := rand.New(rand.NewPCG(5, 5))
	good := func() []KVLayer {
		return []KVLayer{{Keep: [][]int{{0, 1, 6, 7}}, V: [][]float32{randomBasis(rng, 4, 8)}}}
	}
	if _, err := NewKVProjection(c, 4, good()); err != nil {
		t.Fatalf("a valid projection: %v", err)
	}
	for name, tc := range map[string]struct {
		r   int
		mod func([]KVLayer)
	}{
		"odd rank":       {3, func(L []KVLayer) { L[0].Keep[0] = []int{0, 1, 6}; L[0].V[0] = L[0].V[0][:24] }},
		"rank 0":         {0, func([]KVLayer) {}},
		"split pair":     {4, func(L []KVLayer) { L[0].Keep[0] = []int{0, 2, 6, 7} }},
		"kept twice":     {4, func(L []KVLayer) { L[0].Keep[0] = []int{0, 1, 1, 0} }},
		"out of range":   {4, func(L []KVLayer) { L[0].Keep[0] = []int{0, 1, 6, 8} }},
		"too few":        {4, func(L []KVLayer) { L[0].Keep[0] = []int{0, 1} }},
		"not orthogonal": {4, func(L []KVLayer) { copy(L[0].V[0][8:16], L[0].V[0][:8]) }},
		"not finite":     {4, func(L []KVLayer) { L[0].V[0][3] = float32(math.NaN()) }},
		"wrong V size":   {4, func(L []KVLayer) { L[0].V[0] = L[0].V[0][:16] }},
		"heads":          {4, func(L []KVLayer) { L[0].Keep = append(L[0].Keep, L[0].Keep[0]) }},
	} {
		L := good()
		tc.mod(L)
		if _, err := NewKVProjection(c, tc.r, L); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	if _, err := NewKVProjection(c, 4, nil); err == nil {
		t.Error("no layers: accepted")
	}
}

// TestKeySelectionCommutesWithRoPE: selecting whole units of a rotated key
// equals rotating the selected units each by its own pair's angle (the
// coordinates past RopeDim not at all), in both RoPE layouts; a selection
// that splits a pair is refused (the same coordinates are a pair in one
// layout and not in the other).
func TestKeySelectionCommutesWithRoPE(t *testing.T) {
	const hd, ropeDim, pos, base = 8, 6, 37, 10000.0
	rng := rand.New(rand.NewPCG(6, 6))
	b := cpu.New(nil)
	for _, neox := range []bool{false, true} {
		c := &Config{Layers: 1, Heads: 2, KVHeads: 1, HeadDim: hd, RopeDim: ropeDim, RopeNeox: neox}
		units := KeyUnits(c)
		if len(units) != ropeDim/2+hd-ropeDim {
			t.Fatalf("neox=%v: %d units", neox, len(units))
		}
		// {0,1} is the first pair of the adjacent layout; Neox pairs 0
		// with 3, so keeping 0 and 1 alone splits two pairs.
		_, err := NewKVProjection(c, 4, []KVLayer{{Keep: [][]int{{0, 1, 6, 7}}, V: [][]float32{randomBasis(rng, 4, hd)}}})
		if (err == nil) == neox {
			t.Fatalf("neox=%v: keeping {0,1,6,7}: %v", neox, err)
		}
		for _, pick := range [][]int{{2, 0}, {1, 3, 4}, {4, 2, 3}} { // unit indices, in cache order
			var keep []int
			for _, u := range pick {
				keep = append(keep, units[u]...)
			}
			r := len(keep)
			p, err := NewKVProjection(c, r, []KVLayer{{Keep: [][]int{keep}, V: [][]float32{randomBasis(rng, r, hd)}}})
			if err != nil {
				t.Fatalf("neox=%v keep %v: %v", neox, keep, err)
			}
			sel, _ := b.Matrix(p.k[0])
			x, _ := b.Alloc(1, 2*hd) // two query heads onto the one KV head
			xs := b.Host(x, 0, 1)
			orig := make([]float32, len(xs))
			for i := range xs {
				xs[i] = rng.Float32()*2 - 1
				orig[i] = xs[i]
			}
			b.RoPE(x, 1, 2, hd, pos, backend.Rope{Base: base, Dim: ropeDim, Neox: neox})
			y, _ := b.Alloc(1, 2*r)
			b.HeadProject(y, x, 1, 2, 2, sel, false)
			got := b.Host(y, 0, 1)
			for h := range 2 {
				want := make([]float64, 0, r)
				for _, u := range pick {
					cs := units[u]
					if len(cs) == 1 { // not rotated
						want = append(want, float64(orig[h*hd+cs[0]]))
						continue
					}
					i := u // pair i turns by pos·base^(−2i/RopeDim)
					th := pos * math.Pow(base, -2*float64(i)/ropeDim)
					a, bb := float64(orig[h*hd+cs[0]]), float64(orig[h*hd+cs[1]])
					want = append(want, a*math.Cos(th)-bb*math.Sin(th), a*math.Sin(th)+bb*math.Cos(th))
				}
				for j, w := range want {
					if g := float64(got[h*r+j]); math.Abs(g-w) > 1e-5 {
						t.Fatalf("neox=%v keep %v head %d [%d]: %g, rotated alone %g", neox, keep, h, j, g, w)
					}
				}
			}
		}
	}
}

// TestKVProjectionDecodeAllocatesNothing: a decoded token costs no heap
// allocation with a projection on.
func TestKVProjectionDecodeAllocatesNothing(t *testing.T) {
	m := openModel(t, "kjv/kjv-q8_0.gguf")
	s, _ := m.NewStateOn(0, testBackend())
	if err := s.SetKVProjection(handKV(t, &m.Config, m.HeadDim/2, 7)); err != nil {
		t.Fatal(err)
	}
	logits := make([]float32, m.Vocab)
	if err := s.Forward([]int32{1, 300, 391}, logits); err != nil {
		t.Fatal(err)
	}
	tok := []int32{394}
	if n := testing.AllocsPerRun(50, func() {
		if err := s.Forward(tok, logits); err != nil {
			t.Fatal(err)
		}
	}); n != 0 {
		t.Fatalf("%v allocations per decoded token", n)
	}
}

// TestKVProjectionEvict: a projected state evicts like a dense one. At r =
// HeadDim (lossless) the same choice of entries — by position, the first
// two and the last eight — gives the dense state's logits after, and the
// chooser sees the keys as cached, r per head; at r < HeadDim eviction
// runs and the logits stay finite.
func TestKVProjectionEvict(t *testing.T) {
	m := openModel(t, "kjv/kjv-f32.gguf") // continuous products, as in TestKVProjectionLossless
	for _, r := range []int{m.HeadDim, m.HeadDim / 2} {
		dense, _ := m.NewStateOn(32, testBackend())
		s, _ := m.NewStateOn(32, testBackend())
		if err := s.SetKVProjection(handKV(t, &m.Config, r, 8)); err != nil {
			t.Fatal(err)
		}
		var sawHD []int
		choose := func(_, _ int, keys []float32, n, hd int, pos []int32, keep []int32) {
			sawHD = append(sawHD, hd, len(keys)/n)
			keep[0], keep[1] = 0, 1
			for j := 2; j < len(keep); j++ {
				keep[j] = int32(n - len(keep) + j)
			}
		}
		var out [2][][]float32
		for i, st := range []*State{dense, s} {
			if err := st.Forward(kvPrompt, nil); err != nil {
				t.Fatal(err)
			}
			if err := st.Evict(10, choose); err != nil {
				t.Fatal(err)
			}
			if st.Len() != 10 || st.Pos() != len(kvPrompt) {
				t.Fatalf("after eviction: %d entries at position %d", st.Len(), st.Pos())
			}
			out[i], _ = run(t, st, []int32{300}, 4)
		}
		for i := len(sawHD) / 2; i < len(sawHD); i++ { // the projected state's calls
			if sawHD[i] != r {
				t.Fatalf("r = %d: the chooser saw keys of %d values", r, sawHD[i])
			}
		}
		d := maxDiff(out[0], out[1])
		t.Logf("r = %d: after eviction, max |Δlogit| %.3g", r, d)
		if r == m.HeadDim && d > 1e-4 {
			t.Fatalf("lossless projection after eviction: logits differ by %g", d)
		}
		if r < m.HeadDim && (math.IsNaN(d) || math.IsInf(d, 0) || d == 0) {
			t.Fatalf("r = %d after eviction: logits differ by %g", r, d)
		}
		// Copying between states of other projections is refused.
		if err := dense.CopyFrom(s); err == nil {
			t.Fatal("CopyFrom across KV projections accepted")
		}
	}
}
