package model

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/isagi-lab/isagi/engine/tensor"
)

// recorder keeps the residual stream of one layer.
type recorder struct {
	layer int
	x     map[int][]float32
}

func (r *recorder) AfterBlock(layer, pos int, x []float32) {
	if layer == r.layer {
		r.x[pos] = append([]float32(nil), x...)
	}
}

// ablate removes the direction u (unit length) from the residual stream
// after one layer: x ← x − (x·u)u.
type ablate struct {
	layer int
	u     []float32
}

func (a *ablate) AfterBlock(layer, pos int, x []float32) {
	if layer != a.layer {
		return
	}
	var dot float32
	for i := range x {
		dot += x[i] * a.u[i]
	}
	for i := range x {
		x[i] -= dot * a.u[i]
	}
}

// TestHookAblationMatchesReference: zeroing a direction of the residual
// stream after the last block must change the logits exactly as computing
// them by hand from the ablated stream predicts — RMSNorm, output norm
// weights and the classifier applied in float64 to x − (x·u)u.
func TestHookAblationMatchesReference(t *testing.T) {
	m := openModel(t, "kjv/kjv-f32.gguf")
	s, err := m.NewStateOn(0, testBackend())
	if err != nil {
		t.Fatal(err)
	}
	prompt := []int32{1, 300, 391, 394}
	last := m.Layers - 1

	rec := &recorder{layer: last, x: map[int][]float32{}}
	remove, err := s.AddHook(rec)
	if err != nil {
		t.Fatal(err)
	}
	plain := make([]float32, m.Vocab)
	if err := s.Forward(prompt, plain); err != nil {
		t.Fatal(err)
	}
	remove()
	x := rec.x[len(prompt)-1]

	// The direction to remove: the one the top logit's row reads most,
	// so the ablation visibly changes the prediction.
	rng := rand.New(rand.NewPCG(1, 2))
	u := make([]float32, m.Dim)
	var norm float64
	for i := range u {
		u[i] = x[i] + 0.1*float32(rng.NormFloat64())
		norm += float64(u[i]) * float64(u[i])
	}
	for i := range u {
		u[i] /= float32(math.Sqrt(norm))
	}
	var dot float64
	for i := range x {
		dot += float64(x[i]) * float64(u[i])
	}
	xa := make([]float64, m.Dim)
	var ss float64
	for i := range x {
		xa[i] = float64(x[i]) - dot*float64(u[i])
		ss += xa[i] * xa[i]
	}
	scale := 1 / math.Sqrt(ss/float64(m.Dim)+float64(m.Eps))
	row := make([]float32, m.Dim)
	want := make([]float64, m.Vocab)
	for v := range m.Vocab {
		if err := tensor.Dequantize(m.output.Type, row, m.output.Row(v)); err != nil {
			t.Fatal(err)
		}
		for i := range row {
			want[v] += float64(row[i]) * xa[i] * scale * float64(m.outNorm[i])
		}
	}

	s.Reset()
	if _, err := s.AddHook(&ablate{layer: last, u: u}); err != nil {
		t.Fatal(err)
	}
	got := make([]float32, m.Vocab)
	if err := s.Forward(prompt, got); err != nil {
		t.Fatal(err)
	}
	if d := maxAbsDiff(got, want); d > 1e-4 {
		t.Fatalf("ablated logits differ from the hand computation by %g", d)
	}
	if d := maxAbsDiff(plain, want); d < 0.1 {
		t.Fatalf("the ablation barely moved the logits (%g): the test would not notice a hook that does nothing", d)
	}
}

// TestHooksReadOnlyChangeNothing: hooks that only observe must leave the
// logits bit-identical, and every layer and position must be reported once.
func TestHooksReadOnlyChangeNothing(t *testing.T) {
	m := openModel(t, "stories260k/stories260K-f32.gguf")
	s, _ := m.NewStateOn(0, testBackend())
	prompt := []int32{1, 300, 400, 301, 500}
	want := make([]float32, len(prompt)*m.Vocab)
	if err := s.Forward(prompt, want); err != nil {
		t.Fatal(err)
	}
	s.Reset()
	c := &counter{blocks: map[[2]int]int{}, norms: map[int]int{}, logits: map[int]int{}}
	if _, err := s.AddHook(c); err != nil {
		t.Fatal(err)
	}
	got := make([]float32, len(prompt)*m.Vocab)
	if err := s.Forward(prompt[:3], got[:3*m.Vocab]); err != nil { // prefill
		t.Fatal(err)
	}
	for i := 3; i < len(prompt); i++ { // then decode
		if err := s.Forward(prompt[i:i+1], got[i*m.Vocab:(i+1)*m.Vocab]); err != nil {
			t.Fatal(err)
		}
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("logit %d changed under read-only hooks: %g vs %g", i, got[i], want[i])
		}
	}
	for p := range prompt {
		for l := range m.Layers {
			if c.blocks[[2]int{l, p}] != 1 {
				t.Errorf("layer %d position %d reported %d times", l, p, c.blocks[[2]int{l, p}])
			}
		}
		if c.norms[p] != 1 || c.logits[p] != 1 {
			t.Errorf("position %d: %d norm and %d logits reports, want 1 each", p, c.norms[p], c.logits[p])
		}
	}
	if _, err := s.AddHook(struct{}{}); err == nil {
		t.Error("a value implementing no hook interface was accepted")
	}
}

type counter struct {
	blocks map[[2]int]int
	norms  map[int]int
	logits map[int]int
}

func (c *counter) AfterBlock(layer, pos int, _ []float32) { c.blocks[[2]int{layer, pos}]++ }
func (c *counter) AfterNorm(pos int, _ []float32)         { c.norms[pos]++ }
func (c *counter) Logits(pos int, _ []float32)            { c.logits[pos]++ }

// TestDecodeAllocatesNothing: a decoded token costs no heap allocation.
// It holds too for a State decoding in a Batcher (batch.go).
func TestDecodeAllocatesNothing(t *testing.T) {
	m := openModel(t, "kjv/kjv-q8_0.gguf")
	for _, joined := range []bool{false, true} {
		b := testBackend()
		s, _ := m.NewStateOn(0, b)
		if joined {
			qb, _ := b.Share()
			q, err := m.NewBatcher(qb, BatcherOptions{})
			if err != nil {
				t.Fatal(err)
			}
			defer q.Close()
			if err := q.Join(s); err != nil {
				t.Fatal(err)
			}
		}
		// Steered, as a control vector is: one more operation a layer.
		if err := s.SetSteering(randomSteering(m, rand.New(rand.NewPCG(3, 3)), 2)); err != nil {
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
			t.Fatalf("in a batcher %v: %v allocations per decoded token", joined, n)
		}
	}
}

// layerCounter counts the layers it is called at; with want set it says
// (LayerHook) that it reads only those.
type layerCounter struct {
	want []int
	seen map[int]int
}

func (c *layerCounter) AfterBlock(layer, pos int, x []float32) { c.seen[layer]++ }

// onlySome is a layerCounter that declares its layers.
type onlySome struct{ *layerCounter }

func (o onlySome) HookLayers() []int { return o.want }

// TestLayerHooks: a block hook that names its layers is called only there,
// one that does not at every layer; removing a hook stops its calls, and
// the forward pass skips the hooks' work at layers nobody reads.
func TestLayerHooks(t *testing.T) {
	m := openModel(t, "kjv/kjv-f32.gguf")
	s, err := m.NewStateOn(0, testBackend())
	if err != nil {
		t.Fatal(err)
	}
	some := onlySome{&layerCounter{want: []int{2, 4}, seen: map[int]int{}}}
	rmSome, err := s.AddHook(&some)
	if err != nil {
		t.Fatal(err)
	}
	if s.hooks.atLayer(0) || !s.hooks.atLayer(2) || !s.hooks.atLayer(4) {
		t.Fatalf("layers read: %v", s.hooks.at)
	}
	every := &layerCounter{seen: map[int]int{}}
	rmEvery, err := s.AddHook(every)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Forward([]int32{1, 300, 391}, nil); err != nil {
		t.Fatal(err)
	}
	if len(every.seen) != m.Layers {
		t.Fatalf("a hook without LayerHook saw layers %v, want all %d", every.seen, m.Layers)
	}
	rmEvery()
	if s.hooks.atLayer(0) {
		t.Fatalf("after removing the every-layer hook, layer 0 is still read: %v", s.hooks.at)
	}
	some.seen = map[int]int{}
	if err := s.Forward([]int32{394}, nil); err != nil {
		t.Fatal(err)
	}
	if len(some.seen) != 2 || some.seen[2] != 1 || some.seen[4] != 1 {
		t.Fatalf("a hook reading layers 2 and 4 saw %v", some.seen)
	}
	rmSome()
	if s.hooks.atLayer(2) {
		t.Fatalf("after removing it, layer 2 is still read: %v", s.hooks.at)
	}
}
