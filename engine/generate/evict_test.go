package generate

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/isagi-lab/isagi/engine/backend/cpu"
	"github.com/isagi-lab/isagi/engine/kvpress"
	"github.com/isagi-lab/isagi/engine/model"
	"github.com/isagi-lab/isagi/engine/sample"
)

// evictGen is a greedy generator over the kjv model whose cache holds
// EvictCap(keep, window) entries and runs to window positions, evicting
// with a ManifoldKV policy.
func evictGen(t testing.TB, keep float64, window int, p sample.Params) (*Generator, *kvpress.Policy) {
	t.Helper()
	m, err := model.Open(fixture(t, "kjv/kjv-q8_0.gguf"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	st, err := m.NewStateOn(EvictCap(keep, window), cpu.New(nil))
	if err != nil {
		t.Fatal(err)
	}
	if err := st.SetMaxPos(window); err != nil {
		t.Fatal(err)
	}
	g, err := New(st, p)
	if err != nil {
		t.Fatal(err)
	}
	pol := &kvpress.Policy{Kind: kvpress.Manifold, Sinks: 4, Recent: 16}
	choose := func(_, _ int, keys []float32, n, hd int, pos []int32, keep []int32) {
		pol.Choose(keys, n, hd, pos, keep)
	}
	if err := g.SetEviction(&Eviction{Keep: keep, Interval: 16, Choose: choose}); err != nil {
		t.Fatal(err)
	}
	return g, pol
}

// TestEvictionRunsPastTheCache: with eviction a generation runs past the
// cache's size to the window, the cache never holding more than it can,
// and stops there with ErrContextFull.
func TestEvictionRunsPastTheCache(t *testing.T) {
	const window = 256
	g, _ := evictGen(t, 0.25, window, sample.Params{})
	st := g.State()
	if st.Cap() >= window {
		t.Fatalf("cache of %d entries for a window of %d: nothing to test", st.Cap(), window)
	}
	prompt := []int32{1, 300, 391, 394}
	most := 0
	_, err := g.Generate(context.Background(), prompt, Options{}, func(int32) error {
		most = max(most, st.Len())
		return nil
	})
	if !errors.Is(err, model.ErrContextFull) {
		t.Fatalf("err %v, want ErrContextFull at the window's end", err)
	}
	if st.Pos() != window || most > st.Cap() || st.Evicted() == 0 || st.Len()+st.Evicted() != st.Pos() {
		t.Fatalf("pos %d (window %d), at most %d entries (cache %d), %d kept + %d evicted", st.Pos(), window, most, st.Cap(), st.Len(), st.Evicted())
	}
}

// TestEvictionRewinds: after an eviction, rewinding the positions since
// it and generating again gives the same tokens; rewinding below it
// empties the state, and the regenerated prompt gives the first run's
// tokens again (the choices are deterministic).
func TestEvictionRewinds(t *testing.T) {
	g, _ := evictGen(t, 0.5, 256, sample.Params{})
	prompt := []int32{1, 300, 391, 394}
	first, _, err := collect(t, g, context.Background(), prompt, Options{MaxTokens: 150})
	if err != nil {
		t.Fatal(err)
	}
	st := g.State()
	if st.Evicted() == 0 {
		t.Fatal("150 tokens at keep 0.5 evicted nothing")
	}
	full := slices.Clone(g.History())
	floor := st.TruncateFloor()
	back := (st.Pos() + floor) / 2
	if back <= floor {
		t.Fatalf("no room after the last eviction (pos %d, floor %d)", st.Pos(), floor)
	}
	// Back to just before position back, then its token again: the same
	// cache, so the same continuation (evictions included).
	g.Truncate(back - 1)
	if st.Pos() != back-1 {
		t.Fatalf("truncated to %d, at %d (floor %d)", back-1, st.Pos(), floor)
	}
	k := len(full) - back - 1
	again, _, err := collect(t, g, context.Background(), full[back-1:back], Options{MaxTokens: k})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(again, full[back:back+k]) {
		t.Fatalf("after a rewind to %d (floor %d):\n got %v\nwant %v", back-1, floor, again, full[back:back+k])
	}
	g.Truncate(floor - 1)
	if st.Pos() != 0 || st.Len() != 0 || st.Evicted() != 0 || st.TruncateFloor() != 0 || len(g.History()) != 0 {
		t.Fatalf("below the floor: pos %d, %d entries, %d evicted, floor %d, history %d; want all empty", st.Pos(), st.Len(), st.Evicted(), st.TruncateFloor(), len(g.History()))
	}
	g.Reset(0)
	third, _, err := collect(t, g, context.Background(), prompt, Options{MaxTokens: 150})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(first, third) {
		t.Fatalf("a second run from an empty state differs:\n%v\n%v", first, third)
	}
}

// TestEvictionAllocatesNothing: generating with eviction on, evictions
// included, allocates nothing once the scratch space has grown.
func TestEvictionAllocatesNothing(t *testing.T) {
	g, _ := evictGen(t, 0.25, 256, sample.Params{Temperature: 0.8, TopK: 40, Seed: 1})
	prompt := []int32{1, 300, 391, 394}
	emit := func(int32) error { return nil }
	ctx := context.Background()
	o := Options{MaxTokens: 120}
	if _, err := g.Generate(ctx, prompt, o, emit); err != nil {
		t.Fatal(err)
	}
	if g.State().Evicted() == 0 {
		t.Fatal("nothing evicted: the test measures nothing")
	}
	if n := testing.AllocsPerRun(5, func() {
		g.Reset(1)
		if _, err := g.Generate(ctx, prompt, o, emit); err != nil {
			t.Fatal(err)
		}
	}); n != 0 {
		t.Fatalf("%v allocations per 120-token generation with eviction", n)
	}
}
