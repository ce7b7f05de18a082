package grc

import (
	"bytes"
	"context"
	"errors"
	"math"
	"slices"
	"testing"
	"time"

	"github.com/isagi-lab/isagi/engine/model"
)

// TestGRCFullRankIsLossless: at k = d the compressed path reproduces the
// uncompressed logits (float rounding only) on the stories260K probe.
func TestGRCFullRankIsLossless(t *testing.T) {
	m := openModel(t, "stories260k/stories260K-f32.gguf")
	g, err := BuildQKV(m, m.Dim)
	if err != nil {
		t.Fatal(err)
	}
	for l, e := range g.Energy {
		for s, v := range e {
			if math.Abs(v-1) > 1e-5 {
				t.Fatalf("block %d slot %d keeps %.7f of its energy at full rank", l, s, v)
			}
		}
	}
	var gold stories
	readJSON(t, "stories260k/golden.json", &gold)
	plain, _ := m.NewStateOn(0, testBackend())
	comp, _ := m.NewStateOn(0, testBackend())
	if err := comp.SetProjections(g); err != nil {
		t.Fatal(err)
	}
	a, b := make([]float32, m.Vocab), make([]float32, m.Vocab)
	for i, tok := range gold.ProbeTokens {
		if err := plain.Forward([]int32{tok}, a); err != nil {
			t.Fatal(err)
		}
		if err := comp.Forward([]int32{tok}, b); err != nil {
			t.Fatal(err)
		}
		var d float64
		for i := range a {
			d = math.Max(d, math.Abs(float64(a[i]-b[i])))
		}
		if d > 1e-4 {
			t.Errorf("position %d: full-rank GRC moves the logits by %g", i, d)
		}
	}
}

// TestGRCEnergyAndStability: kept energy grows with k for every block and
// slot, and two builds give the same bytes (sign-canonical eigenvectors).
func TestGRCEnergyAndStability(t *testing.T) {
	m := openModel(t, "stories260k/stories260K-f16.gguf")
	var prev *Compression
	for _, k := range []int{8, 24, 48} {
		g, err := BuildQKV(m, k)
		if err != nil {
			t.Fatal(err)
		}
		if g.BytesAfter >= g.BytesBefore && k <= m.Dim/4 {
			t.Errorf("k=%d: %d bytes after, %d before", k, g.BytesAfter, g.BytesBefore)
		}
		if prev != nil {
			for l := range g.Energy {
				for s := range 3 {
					if g.Energy[l][s] < prev.Energy[l][s]-1e-9 {
						t.Fatalf("block %d slot %d: energy %.6f at k=%d below %.6f at k=%d", l, s, g.Energy[l][s], k, prev.Energy[l][s], prev.K)
					}
				}
			}
		}
		prev = g
	}
	a, _ := BuildQKV(m, 24)
	b, _ := BuildQKV(m, 24)
	sameBytes(t, a, b)
	if _, err := BuildQKV(m, m.Dim+1); err == nil {
		t.Fatal("a rank above the embedding width was accepted")
	}
}

// sameBytes fails unless two GRCs hold byte-identical matrices.
func sameBytes(t *testing.T, a, b *Compression) {
	t.Helper()
	if len(a.layers) != len(b.layers) {
		t.Fatalf("%d blocks and %d", len(a.layers), len(b.layers))
	}
	for l := range a.layers {
		ma, mb := a.layers[l].matrices(), b.layers[l].matrices()
		if len(ma) != len(mb) {
			t.Fatalf("block %d: %d matrices and %d", l, len(ma), len(mb))
		}
		for i := range ma {
			if ma[i].Type != mb[i].Type || !bytes.Equal(ma[i].Data, mb[i].Data) {
				t.Fatalf("block %d matrix %d: two builds differ", l, i)
			}
		}
	}
}

// maxLogitDiff runs the same tokens through two states, one token at a
// time, and returns the largest logit difference seen.
func maxLogitDiff(t *testing.T, m *model.Model, a, b *model.State, toks []int32) float64 {
	t.Helper()
	la, lb := make([]float32, m.Vocab), make([]float32, m.Vocab)
	var d float64
	for _, tok := range toks {
		if err := a.Forward([]int32{tok}, la); err != nil {
			t.Fatal(err)
		}
		if err := b.Forward([]int32{tok}, lb); err != nil {
			t.Fatal(err)
		}
		for i := range la {
			d = math.Max(d, math.Abs(float64(la[i]-lb[i])))
		}
	}
	return d
}

// kjvTokens is a fixed token sequence for the kjv model (any ids do: the
// tests compare two paths over the same input).
func kjvTokens(n int) []int32 {
	out := []int32{1}
	for i := 1; i < n; i++ {
		out = append(out, int32(3+(i*397)%4000))
	}
	return out
}

// TestGPFullRankEverySlot: with every slot compressed at full rank k = d =
// 256 (f32 storage) the kjv model's logits match the uncompressed ones to
// 1e-4 absolute (logits are O(10); what is left is float32 rounding through
// four extra products per block and the SVD's U Σ Vᵀ, measured at ~5e-6),
// in decode and in prefill, and every slot reports lossless and keeps all
// of its energy.
func TestGPFullRankEverySlot(t *testing.T) {
	m := openModel(t, "kjv/kjv-f32.gguf")
	gb, err := NewBuilder(m, AllSlots)
	if err != nil {
		t.Fatal(err)
	}
	g, err := gb.Build(m.Dim)
	if err != nil {
		t.Fatal(err)
	}
	for l, b := range g.Blocks {
		if len(b.Slots) != 7 {
			t.Fatalf("block %d has %d slots", l, len(b.Slots))
		}
		for _, s := range b.Slots {
			if !s.Lossless || math.Abs(s.Energy-1) > 1e-5 || s.K != m.Dim {
				t.Fatalf("block %d %s at full rank: %+v", l, s.Slot, s)
			}
		}
	}
	plain, _ := m.NewStateOn(0, testBackend())
	comp, _ := m.NewStateOn(0, testBackend())
	if err := comp.SetProjections(g); err != nil {
		t.Fatal(err)
	}
	toks := kjvTokens(48)
	d := maxLogitDiff(t, m, plain, comp, toks)
	t.Logf("largest logit difference at full rank, every slot: %.3g", d)
	if d > 1e-4 {
		t.Fatalf("full-rank GP moves the logits by %g", d)
	}
	// Prefill (MatMul over a batch) takes the same compressed path.
	all := make([]float32, len(toks)*m.Vocab)
	comp.Reset()
	if err := comp.Forward(toks, all); err != nil {
		t.Fatal(err)
	}
	plain.Reset()
	ref := make([]float32, len(toks)*m.Vocab)
	if err := plain.Forward(toks, ref); err != nil {
		t.Fatal(err)
	}
	var pd float64
	for i := range all {
		pd = math.Max(pd, math.Abs(float64(all[i]-ref[i])))
	}
	if pd > 1e-4 {
		t.Fatalf("full-rank GP prefill moves the logits by %g", pd)
	}
}

// TestGPEnergyMonotone: on kjv with every slot compressed, each slot of
// each block keeps at least as much energy at a larger k; bytes grow with
// k; below full rank nothing claims to be lossless.
func TestGPEnergyMonotone(t *testing.T) {
	m := openModel(t, "kjv/kjv-q8_0.gguf")
	gb, err := NewBuilder(m, AllSlots)
	if err != nil {
		t.Fatal(err)
	}
	var prev *Compression
	for _, k := range []int{32, 96, 160, 224, 256} {
		g, err := gb.Build(k)
		if err != nil {
			t.Fatal(err)
		}
		for l, b := range g.Blocks {
			for i, s := range b.Slots {
				if s.Lossless != (k == m.Dim) {
					t.Errorf("k=%d block %d %s: lossless %v", k, l, s.Slot, s.Lossless)
				}
				if prev != nil && s.Energy < prev.Blocks[l].Slots[i].Energy-1e-9 {
					t.Fatalf("block %d %s: energy %.6f at k=%d below %.6f at k=%d", l, s.Slot, s.Energy, k, prev.Blocks[l].Slots[i].Energy, prev.K)
				}
			}
		}
		if prev != nil && g.BytesAfter <= prev.BytesAfter {
			t.Errorf("k=%d: %d bytes, %d at k=%d", k, g.BytesAfter, prev.BytesAfter, prev.K)
		}
		t.Logf("%s", g)
		prev = g
	}
}

// TestGPBuildsAreByteIdentical: two builders (two decompositions, SVD
// included) give the same bytes under GP allocation.
func TestGPBuildsAreByteIdentical(t *testing.T) {
	m := openModel(t, "kjv/kjv-q8_0.gguf")
	build := func() *Compression {
		gb, err := NewBuilder(m, AllSlots)
		if err != nil {
			t.Fatal(err)
		}
		plan, err := gb.Plan(context.Background(), Spec{Slots: AllSlots, Alloc: AllocGP, K: 192}, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		g, err := gb.BuildPlan(context.Background(), plan, nil)
		if err != nil {
			t.Fatal(err)
		}
		return g
	}
	a, b := build(), build()
	sameBytes(t, a, b)
}

// TestGPPlanBounds: GP and MCR ranks lie within [floor, max], sum to k·L
// (here a multiple of the quantum), and move in steps of 32 on a quantised
// model (1 on f32); the default floor is ⌈0.55·d⌉; a target below the floor
// gives the floor everywhere, with a note.
func TestGPPlanBounds(t *testing.T) {
	for _, c := range []struct {
		file    string
		quantum int
	}{{"kjv/kjv-q8_0.gguf", 32}, {"kjv/kjv-f32.gguf", 1}} {
		m := openModel(t, c.file)
		if f := DefaultFloor(m); f != 141 {
			t.Fatalf("default floor %d for d = 256", f)
		}
		gb, _ := NewBuilder(m, QKV|FFN)
		prof, err := LayerProfile(context.Background(), m, nil, kjvTokens(200), 1, 128)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: σ² per layer %.4g", c.file, prof.Variance)
		for _, sp := range []Spec{
			{Alloc: AllocGP, K: 192},
			{Alloc: AllocGP, K: 224, Floor: 180},
			{Alloc: AllocMCR, K: 192, Calib: "00ff"},
		} {
			sp.Slots = gb.Slots()
			plan, err := gb.Plan(context.Background(), sp, prof, nil)
			if err != nil {
				t.Fatal(err)
			}
			floor := (plan.Floor + c.quantum - 1) / c.quantum * c.quantum
			sum := 0
			for _, r := range plan.Ranks {
				if r < floor || r > plan.Max || r%c.quantum != 0 {
					t.Errorf("%s %+v: rank %d outside [%d, %d] in steps of %d", c.file, sp, r, floor, plan.Max, c.quantum)
				}
				sum += r
			}
			if plan.Quantum != c.quantum || sum != sp.K*len(plan.Ranks) {
				t.Errorf("%s %+v: ranks %v sum to %d, want %d (quantum %d)", c.file, sp, plan.Ranks, sum, sp.K*len(plan.Ranks), plan.Quantum)
			}
			t.Logf("%s %s k=%d: ranks %v phases %v notes %q", c.file, sp.Alloc, sp.K, plan.Ranks, plan.Phases, plan.Notes)
		}
		plan, err := gb.Plan(context.Background(), Spec{Slots: gb.Slots(), Alloc: AllocGP, K: 64}, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range plan.Ranks {
			if r != (141+c.quantum-1)/c.quantum*c.quantum {
				t.Fatalf("k=64 under a floor of 141: ranks %v", plan.Ranks)
			}
		}
		if len(plan.Notes) == 0 {
			t.Error("the floor raised every rank without a note")
		}
		for _, bad := range []Spec{
			{Slots: gb.Slots(), K: 300},
			{Slots: gb.Slots(), K: 100, Floor: 50},
			{Slots: gb.Slots(), Alloc: AllocGP, K: 100, Floor: 200, Max: 150},
			{Slots: gb.Slots(), Alloc: AllocMCR, K: 100},
			{Slots: O, K: 100},
		} {
			if _, err := gb.Plan(context.Background(), bad, prof, nil); err == nil {
				t.Errorf("%+v accepted", bad)
			}
		}
	}
}

// TestGRCBuildCancel: a build cancelled from its progress callback returns
// ctx.Err() before the next block; the builder keeps what it made and a
// later build completes.
func TestGRCBuildCancel(t *testing.T) {
	m := openModel(t, "kjv/kjv-q8_0.gguf")
	gb, _ := NewBuilder(m, AllSlots)
	plan, err := gb.Plan(context.Background(), Spec{Slots: AllSlots, K: 128}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	last := 0
	var t0 time.Time
	_, err = gb.BuildPlan(ctx, plan, func(done, total int) {
		last = done
		if done == 1 {
			t0 = time.Now()
			cancel()
		}
	})
	if !errors.Is(err, context.Canceled) || last != 1 {
		t.Fatalf("cancelled after block 1: err %v, progress reached %d", err, last)
	}
	if d := time.Since(t0); d > time.Second {
		t.Errorf("the build took %v to notice the cancellation", d)
	}
	if err := gb.Decompose(ctx, nil); !errors.Is(err, context.Canceled) {
		t.Fatalf("decompose under a cancelled context: %v", err)
	}
	var seen []int
	g, err := gb.BuildPlan(context.Background(), plan, func(done, total int) { seen = append(seen, done*100+total) })
	if err != nil || g == nil {
		t.Fatal(err)
	}
	if len(seen) != m.Layers || seen[len(seen)-1] != m.Layers*101 {
		t.Errorf("progress %v", seen)
	}
}

// TestGRCCacheRoundTrip: a GP build with every slot survives a .miku round
// trip byte for byte and computes the same logits; the same file is
// refused for another slot set, rank or allocation, for another model, and
// when its depth-sink check does not match the weights.
func TestGRCCacheRoundTrip(t *testing.T) {
	m := openModel(t, "kjv/kjv-q8_0.gguf")
	gb, _ := NewBuilder(m, AllSlots)
	spec := Spec{Slots: AllSlots, Alloc: AllocGP, K: 160}
	plan, err := gb.Plan(context.Background(), spec, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	g, err := gb.BuildPlan(context.Background(), plan, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := Verify(m, g); err != nil {
		t.Fatalf("a fresh build fails its own check: %v", err)
	}
	// cached is what a cache file holds: the knobs and copies of the blobs
	// (the session package wraps them in a .miku container).
	type cached struct {
		knobs []byte
		blobs []CacheBlob
	}
	encode := func(g *Compression) cached {
		knobs, secs, err := g.CacheSections()
		if err != nil {
			t.Fatal(err)
		}
		var c cached
		c.knobs = slices.Clone(knobs)
		for _, s := range secs {
			c.blobs = append(c.blobs, CacheBlob{Name: s.Name, Data: slices.Clone(s.Data)})
		}
		return c
	}
	f := encode(g)
	back, err := FromCache(m, spec, f.knobs, f.blobs)
	if err != nil {
		t.Fatal(err)
	}
	sameBytes(t, g, back)
	if back.BytesAfter != g.BytesAfter || back.BytesBefore != g.BytesBefore || back.String() != g.String() {
		t.Errorf("restored %s, built %s", back, g)
	}
	a, _ := m.NewStateOn(0, testBackend())
	b, _ := m.NewStateOn(0, testBackend())
	a.SetProjections(g)
	b.SetProjections(back)
	if d := maxLogitDiff(t, m, a, b, kjvTokens(16)); d != 0 {
		t.Errorf("restored GRC moves the logits by %g", d)
	}
	for _, other := range []Spec{
		{Slots: QKV, Alloc: AllocGP, K: 160},
		{Slots: QKV | O, Alloc: AllocGP, K: 160},
		{Slots: AllSlots, K: 160},
		{Slots: AllSlots, Alloc: AllocGP, K: 192},
		{Slots: AllSlots, Alloc: AllocGP, K: 160, Floor: 150},
	} {
		if _, err := FromCache(m, other, f.knobs, f.blobs); err == nil {
			t.Errorf("a cache of %+v was accepted for %+v", spec, other)
		}
	}
	// A basis that passes every shape check but not the depth-sink
	// spectrum (here: a recorded eigenvalue 1 % off) is refused.
	bad := *g
	bad.Check.Values = append([]float64(nil), g.Check.Values...)
	bad.Check.Values[2] *= 1.01
	f = encode(&bad)
	if _, err := FromCache(m, spec, f.knobs, f.blobs); err == nil {
		t.Error("a cache whose depth-sink spectrum does not match was accepted")
	}
	bad.Check.Values[2] = math.Inf(1) // JSON cannot hold NaN; ±Inf fails to encode too
	if _, _, err := bad.CacheSections(); err == nil {
		t.Error("an infinite check value was encoded")
	}
	bad.Check = Check{Layer: g.Check.Layer, Group: g.Check.Group}
	f = encode(&bad)
	if _, err := FromCache(m, spec, f.knobs, f.blobs); err == nil {
		t.Error("a cache without a depth-sink check was accepted")
	}
	other := openModel(t, "stories260k/stories260K-f32.gguf")
	if _, err := FromCache(other, Spec{Slots: AllSlots, Alloc: AllocGP, K: 48}, f.knobs, f.blobs); err == nil {
		t.Error("a kjv cache was accepted for stories260K")
	}
}

// TestDecodeAllocatesNothingGP: decoding with every slot compressed under
// GP allocation costs no heap allocation either.
func TestDecodeAllocatesNothingGP(t *testing.T) {
	m := openModel(t, "kjv/kjv-q8_0.gguf")
	gb, _ := NewBuilder(m, AllSlots)
	plan, err := gb.Plan(context.Background(), Spec{Slots: AllSlots, Alloc: AllocGP, K: 192}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	g, err := gb.BuildPlan(context.Background(), plan, nil)
	if err != nil {
		t.Fatal(err)
	}
	s, _ := m.NewStateOn(0, testBackend())
	if err := s.SetProjections(g); err != nil {
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
		t.Fatalf("%v allocations per decoded token with GP on every slot", n)
	}
}
