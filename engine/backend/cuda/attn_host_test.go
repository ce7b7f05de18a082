package cuda

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/isagi-lab/isagi/engine/backend"
	"github.com/isagi-lab/isagi/engine/backend/cuda/cu"
	"github.com/isagi-lab/isagi/engine/model"
)

// exerciseRoPEStoreF16 runs RoPEStoreKV and StoreKV into an f16 cache on
// the recorder, so that their f16 kernels meet the launch checks.
func exerciseRoPEStoreF16(t *testing.T, b *Backend) {
	a := backend.Attention{Heads: 4, KVHeads: 2, HeadDim: 64, KV: backend.KVF16}
	c, err := b.NewKV(2, 16, a)
	if err != nil {
		t.Fatal(err)
	}
	q, _ := b.Alloc(2, 4*64)
	k, _ := b.Alloc(2, 2*64)
	v, _ := b.Alloc(2, 2*64)
	if !b.RoPEStoreKV(q, k, v, c, 1, 3, 5, 2, 4, 2, 64, backend.Rope{Base: 10000, Dim: 64}) {
		t.Fatal("RoPEStoreKV did not take an f16 cache of its heads")
	}
	b.StoreKV(c, 1, 7, 2, k, v)
	if err := b.Err(); err != nil {
		t.Fatal(err)
	}
}

// TestSplitPlan: the splits cover the capacity, at least ATT_CHUNK
// positions each and at most ATT_MAX_SPLIT of them; the values are those
// hostq's TestAttnSplitPlan wants of att_split_plan, the host build's.
func TestSplitPlan(t *testing.T) {
	for _, c := range []struct{ ctx, chunk, ns int }{{1, 128, 1}, {256, 128, 2}, {8192, 128, 64}, {65536, 128, 512},
		{65537, 129, 509}, {131072, 256, 512}} {
		if chunk, ns := splitPlan(c.ctx); chunk != c.chunk || ns != c.ns {
			t.Errorf("ctx %d: %d splits of %d, want %d of %d", c.ctx, ns, chunk, c.ns, c.chunk)
		}
	}
	for _, ctx := range []int{1, 127, 128, 129, 4096, 8192, 65536, 65537, 1 << 20, 1<<20 + 3} {
		chunk, ns := splitPlan(ctx)
		if chunk < attChunk || ns > attMaxSplit || ns < 1 || chunk*ns < ctx || chunk*(ns-1) >= ctx {
			t.Errorf("ctx %d: %d splits of %d", ctx, ns, chunk)
		}
	}
}

// stepLaunch is one launch of a decode step with its arguments.
type stepLaunch struct {
	name        string
	grid, block [3]uint32
	args        string
}

// TestDecodeLaunchesIgnoreLength: a decode step launches the same kernels
// with the same grids and arguments at every cache length (the position
// is read from device memory), so one CUDA graph serves the whole context;
// the attention of a decode step is split over the keys, and of a prompt
// tiled over its rows. For an f32 and an f16 cache.
func TestDecodeLaunchesIgnoreLength(t *testing.T) {
	for _, kvt := range []backend.KVType{backend.KVF32, backend.KVF16} {
		t.Run(kvt.String(), func(t *testing.T) {
			m, err := model.Open(fixture(t, "kjv", "kjv-q8_0.gguf"))
			if err != nil {
				t.Fatal(err)
			}
			defer m.Close()
			g, f := newFakeDevice(t)
			b, err := g.NewBackend()
			if err != nil {
				t.Fatal(err)
			}
			defer b.Close()
			st, err := m.NewStateWith(1024, b, model.StateOptions{KV: kvt})
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			var rec []stepLaunch
			f.inspect = func(name string, grid, block [3]uint32, a *cu.Args) {
				vals, kinds := a.AppendTo(nil, nil)
				rec = append(rec, stepLaunch{name, grid, block, fmt.Sprint(vals, string(kinds))})
			}
			logits := make([]float32, m.Config.Vocab)
			prompt := make([]int32, 40)
			for i := range prompt {
				prompt[i] = int32(1 + i%50)
			}
			if err := st.Forward(prompt, logits); err != nil {
				t.Fatal(err)
			}
			if !slices.ContainsFunc(rec, func(l stepLaunch) bool { return strings.HasPrefix(l.name, "attn_tile_"+kvt.String()) }) {
				t.Errorf("a prompt of %d rows did not launch attn_tile_%s", len(prompt), kvt)
			}
			step := func() []stepLaunch {
				rec = rec[:0]
				if err := st.Forward([]int32{7}, logits); err != nil {
					t.Fatal(err)
				}
				return slices.Clone(rec)
			}
			var steps [][]stepLaunch
			for range 3 {
				steps = append(steps, step())
			}
			// Far along the cache (kjv's window is 256): 175 more positions,
			// into the second split, then steps again.
			for range 5 {
				if err := st.Forward(prompt[:35], logits); err != nil {
					t.Fatal(err)
				}
			}
			for range 2 {
				steps = append(steps, step())
			}
			if st.Pos() < 200 {
				t.Fatalf("the state is at %d", st.Pos())
			}
			// The first decode step allocates decode's scratch (its
			// quantised activations), so the second is the reference.
			first := steps[1]
			if !slices.ContainsFunc(first, func(l stepLaunch) bool { return l.name == "attn_split_"+kvt.String() }) ||
				!slices.ContainsFunc(first, func(l stepLaunch) bool { return l.name == "attn_reduce" }) {
				t.Errorf("a decode step did not launch attn_split_%s and attn_reduce", kvt)
			}
			for i, s := range steps[2:] {
				if !slices.Equal(s, first) {
					t.Errorf("decode step %d launched differently from step 1", i+2)
					for j := range min(len(s), len(first)) {
						if s[j] != first[j] {
							t.Logf("launch %d: %+v, first step's %+v", j, s[j], first[j])
							break
						}
					}
				}
			}
			for _, e := range f.errs {
				t.Error(e)
			}
			if err := b.Err(); err != nil {
				t.Fatal(err)
			}
		})
	}
}
