package model

import (
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"testing"

	"github.com/isagi-lab/isagi/engine/tensor"
)

// bypassPrompt starts with BOS, the kjv model's sink: from block 2 on its
// residual stream is about twice as long as any other position's.
var bypassPrompt = []int32{1, 300, 391, 394, 500, 601, 702, 33, 44, 1000}

// bypassBlocks are the blocks the bypass tests project: those whose input
// shows the sink (block 1's input, the stream after block 0, does not yet).
var bypassBlocks = []int{2, 3, 4, 5}

// randomProjection is a group's product through a random rank-k basis P:
// In = P, Out[i] = W_i·Pᵀ, so that the group computes W_i·PᵀP·x, a lossy
// view of W_i·x.
func randomProjection(t testing.TB, rng *rand.Rand, k int, ws ...*tensor.Matrix) *Projection {
	t.Helper()
	d := ws[0].Cols
	p := randomBasis(rng, k, d)
	pr := &Projection{In: f32Matrix(t, k, d, p)}
	row := make([]float32, d)
	for _, w := range ws {
		out := make([]float32, w.Rows*k)
		for r := range w.Rows {
			if err := tensor.Dequantize(w.Type, row, w.Row(r)); err != nil {
				t.Fatal(err)
			}
			for j := range k {
				var dot float64
				for c, x := range row {
					dot += float64(x) * float64(p[j*d+c])
				}
				out[r*k+j] = float32(dot)
			}
		}
		pr.Out = append(pr.Out, f32Matrix(t, w.Rows, k, out))
	}
	return pr
}

// randomProjections projects every group of the given blocks at half its
// input width.
func randomProjections(t testing.TB, m *Model, blocks ...int) testProjections {
	t.Helper()
	rng := rand.New(rand.NewPCG(6, 23))
	p := make(testProjections, m.Layers)
	for _, l := range blocks {
		w := m.Block(l)
		p[l] = BlockProjections{
			QKV:  randomProjection(t, rng, m.Dim/2, w.Q, w.K, w.V),
			O:    randomProjection(t, rng, m.QDim()/2, w.O),
			FFN:  randomProjection(t, rng, m.Dim/2, w.Gate, w.Up),
			Down: randomProjection(t, rng, m.FFN/2, w.Down),
		}
	}
	return p
}

// withBypass is p with block l's threshold tau(l).
func withBypass(p testProjections, tau func(l int) float32) testProjections {
	q := slices.Clone(p)
	for l := range q {
		q[l].Bypass = tau(l)
	}
	return q
}

// normHook records the L2 norm of the residual stream after every block
// and position: after block l is what block l+1 reads.
type normHook struct{ norms [][]float64 }

func (h *normHook) AfterBlock(l, pos int, x []float32) {
	var ss float64
	for _, v := range x {
		ss += float64(v) * float64(v)
	}
	for len(h.norms) <= l {
		h.norms = append(h.norms, nil)
	}
	h.norms[l] = append(h.norms[l], math.Sqrt(ss))
}

func (h *normHook) ReadOnly() bool { return true }

// entering are the norms of every position's stream entering each block
// (block 0's, the embedding, are not seen: nil) over one prefill of
// prompt.
func entering(t *testing.T, s *State, prompt []int32) [][]float64 {
	t.Helper()
	h := &normHook{}
	remove, err := s.AddHook(h)
	if err != nil {
		t.Fatal(err)
	}
	defer remove()
	s.Reset()
	if err := s.Forward(prompt, nil); err != nil {
		t.Fatal(err)
	}
	return append([][]float64{nil}, h.norms[:len(h.norms)-1]...)
}

// prefill runs prompt from position 0 in one Forward and returns every
// position's logits.
func prefill(t *testing.T, s *State, prompt []int32) []float32 {
	t.Helper()
	s.Reset()
	out := make([]float32, len(prompt)*s.m.Vocab)
	if err := s.Forward(prompt, out); err != nil {
		t.Fatal(err)
	}
	return out
}

// oneByOne runs prompt from position 0 a token per Forward and returns
// every position's logits.
func oneByOne(t *testing.T, s *State, prompt []int32) []float32 {
	t.Helper()
	s.Reset()
	V := s.m.Vocab
	out := make([]float32, len(prompt)*V)
	for i, tok := range prompt {
		if err := s.Forward([]int32{tok}, out[i*V:(i+1)*V]); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// TestBypass: on projected blocks, a threshold that every position exceeds
// gives the dense model's logits bit for bit; one that only the sink (BOS,
// position 0) exceeds gives the sink the dense model's logits and the
// batch the logits of its tokens run one by one, as does a threshold that
// flags an arbitrary half of the rows; Bypass 0 runs compressed, and
// Bypassed counts the (position, block) pairs that ran dense.
func TestBypass(t *testing.T) {
	m := openModel(t, "kjv/kjv-q8_0.gguf")
	V, n, nb := m.Vocab, len(bypassPrompt), len(bypassBlocks)
	s, err := m.NewStateOn(0, testBackend())
	if err != nil {
		t.Fatal(err)
	}
	dense := prefill(t, s, bypassPrompt)
	denseNorms := entering(t, s, bypassPrompt)

	proj := randomProjections(t, m, bypassBlocks...)
	if err := s.SetProjections(proj); err != nil {
		t.Fatal(err)
	}
	compressed := prefill(t, s, bypassPrompt)
	if slices.Equal(compressed, dense) {
		t.Fatal("the projections change nothing: the test could not tell dense from compressed")
	}
	if s.Bypassed() != 0 {
		t.Fatalf("Bypass 0 ran %d (position, block) pairs dense", s.Bypassed())
	}
	compNorms := entering(t, s, bypassPrompt)

	// Every position over the threshold, including on blocks that are not
	// projected (which have nothing to bypass): the dense model, prefill
	// and decode alike.
	if err := s.SetProjections(withBypass(proj, func(int) float32 { return 1e-6 })); err != nil {
		t.Fatal(err)
	}
	if got := prefill(t, s, bypassPrompt[:n-2]); !slices.Equal(got, dense[:(n-2)*V]) {
		t.Fatal("every position bypassing: prefill logits differ from the dense model's")
	}
	for i := n - 2; i < n; i++ {
		got := make([]float32, V)
		if err := s.Forward(bypassPrompt[i:i+1], got); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, dense[i*V:(i+1)*V]) {
			t.Fatalf("every position bypassing: decoded position %d's logits differ from the dense model's", i)
		}
	}
	if got, want := s.Bypassed(), int64(n*nb); got != want {
		t.Fatalf("every position bypassing: %d (position, block) pairs ran dense, want %d", got, want)
	}

	// Only the sink: each block's threshold halfway between the sink's
	// norm and the longest other, dense or compressed.
	sink := func(l int) float32 {
		if !slices.Contains(bypassBlocks, l) {
			return 0
		}
		other := max(slices.Max(denseNorms[l][1:]), slices.Max(compNorms[l][1:]))
		if denseNorms[l][0] < 1.3*other {
			t.Fatalf("block %d: the sink's norm %.2f does not stand out from %.2f", l, denseNorms[l][0], other)
		}
		return float32((denseNorms[l][0] + other) / 2)
	}
	if err := s.SetProjections(withBypass(proj, sink)); err != nil {
		t.Fatal(err)
	}
	batch := prefill(t, s, bypassPrompt)
	if got := s.Bypassed(); got != int64(nb) {
		t.Fatalf("the sink alone: %d (position, block) pairs ran dense, want %d", got, nb)
	}
	if !slices.Equal(batch[:V], dense[:V]) {
		t.Fatal("the sink's logits differ from the dense model's")
	}
	if slices.Equal(batch[V:], compressed[V:]) {
		t.Fatal("bypassing the sink changed no other position: the test could not tell")
	}
	if seq := oneByOne(t, s, bypassPrompt); !slices.Equal(batch, seq) {
		t.Fatal("the sink alone: a batch's logits differ from its tokens' run one by one")
	}

	// Half the rows, anywhere in the batch: each block's median norm.
	median := func(l int) float32 {
		if l == 0 {
			return 0
		}
		v := slices.Clone(compNorms[l])
		sort.Float64s(v)
		return float32(v[len(v)/2])
	}
	if err := s.SetProjections(withBypass(proj, median)); err != nil {
		t.Fatal(err)
	}
	batch = prefill(t, s, bypassPrompt)
	fired := s.Bypassed()
	if fired <= int64(nb) || fired >= int64(n*nb) {
		t.Fatalf("median thresholds: %d (position, block) pairs ran dense, want some of %d beyond the sinks", fired, n*nb)
	}
	if seq := oneByOne(t, s, bypassPrompt); !slices.Equal(batch, seq) {
		t.Fatal("median thresholds: a batch's logits differ from its tokens' run one by one")
	}
	if s.Bypassed() != 2*fired {
		t.Fatalf("median thresholds: one by one ran %d pairs dense, the batch %d", s.Bypassed()-fired, fired)
	}

	// Bypass 0 again: compressed as before, the count restarted.
	if err := s.SetProjections(proj); err != nil {
		t.Fatal(err)
	}
	if s.Bypassed() != 0 {
		t.Fatalf("SetProjections left the count at %d", s.Bypassed())
	}
	if got := prefill(t, s, bypassPrompt); !slices.Equal(got, compressed) || s.Bypassed() != 0 {
		t.Fatalf("Bypass 0 after a bypass: logits equal the compressed ones %v, %d pairs dense", slices.Equal(got, compressed), s.Bypassed())
	}
}

// TestBypassRefused: a threshold that is NaN, infinite or negative is
// refused with an error, and the state keeps what it ran and counted.
func TestBypassRefused(t *testing.T) {
	m := openModel(t, "kjv/kjv-q8_0.gguf")
	s, err := m.NewStateOn(0, testBackend())
	if err != nil {
		t.Fatal(err)
	}
	proj := randomProjections(t, m, 3)
	run := withBypass(proj, func(int) float32 { return 1e-6 })
	if err := s.SetProjections(run); err != nil {
		t.Fatal(err)
	}
	want := prefill(t, s, bypassPrompt)
	count := s.Bypassed()
	for _, bad := range []float32{float32(math.NaN()), -1, float32(math.Inf(1)), float32(math.Inf(-1))} {
		p := withBypass(proj, func(l int) float32 {
			if l == 3 {
				return bad
			}
			return 0
		})
		if err := s.SetProjections(p); err == nil {
			t.Fatalf("threshold %v accepted", bad)
		}
		if s.Projections().Block(3).Bypass != 1e-6 || s.Bypassed() != count {
			t.Fatalf("after refusing %v: projections %v, count %d (was %d)", bad, s.Projections(), s.Bypassed(), count)
		}
	}
	if got := prefill(t, s, bypassPrompt); !slices.Equal(got, want) {
		t.Fatal("after refusals the state computes other logits")
	}
}

// TestBypassAllocatesNothing: with the bypass on, neither a decoded token
// (which runs a bypassed block dense) nor a prefill that bypasses some of
// its rows (one by one through scratch) allocates.
func TestBypassAllocatesNothing(t *testing.T) {
	m := openModel(t, "kjv/kjv-q8_0.gguf")
	s, err := m.NewStateOn(0, testBackend())
	if err != nil {
		t.Fatal(err)
	}
	proj := randomProjections(t, m, bypassBlocks...)
	// Every position over the threshold: decode runs the blocks dense.
	if err := s.SetProjections(withBypass(proj, func(int) float32 { return 1e-6 })); err != nil {
		t.Fatal(err)
	}
	logits := make([]float32, m.Vocab)
	if err := s.Forward(bypassPrompt[:3], logits); err != nil {
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
	if s.Bypassed() < 50*int64(len(bypassBlocks)) {
		t.Fatalf("the decoded tokens bypassed %d (position, block) pairs", s.Bypassed())
	}
	// 30 is between the sink's norm and most others' (TestBypass): a
	// prefill bypasses some rows.
	if err := s.SetProjections(withBypass(proj, func(int) float32 { return 30 })); err != nil {
		t.Fatal(err)
	}
	if n := testing.AllocsPerRun(20, func() {
		s.Reset()
		if err := s.Forward(bypassPrompt, logits); err != nil {
			t.Fatal(err)
		}
	}); n != 0 {
		t.Fatalf("%v allocations per bypassing prefill", n)
	}
	if b := s.Bypassed(); b == 0 || b >= 21*int64(len(bypassPrompt)*len(bypassBlocks)) {
		t.Fatalf("the prefills bypassed %d (position, block) pairs: want some, not all", b)
	}
}
