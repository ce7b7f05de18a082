package cuda

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/isagi-lab/isagi/engine/backend"
	"github.com/isagi-lab/isagi/engine/backend/cuda/cu"
	"github.com/isagi-lab/isagi/engine/backend/cuda/internal/hostq"
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

// TestAttendScratchBounds: what the attention kernels index, computed from
// their launch arguments as the kernels compute it, lies inside the
// allocations the arguments name — the split scratch (att_dec_rec floats
// a row, query head and split) for caches of different capacities made on
// one backend (small, larger, smaller again, with other heads), for one to
// four rows, and for a cache made on another backend of the device (a
// Batcher's carrier makes none of its own: the split path must still be
// taken, its scratch grown); the cache up to the last layer's last head.
// Positions past a cache are refused before any launch.
func TestAttendScratchBounds(t *testing.T) {
	g, f := newFakeDevice(t)
	b, err := g.NewBackend()
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	carrier, err := g.NewBackend()
	if err != nil {
		t.Fatal(err)
	}
	defer carrier.Close()
	room := func(p uint64) int {
		buf, off, ok := f.find(cu.DevicePtr(p))
		if !ok {
			return -1
		}
		return len(buf) - off
	}
	launched := map[string]int{}
	f.inspect = func(name string, grid, block [3]uint32, a *cu.Args) {
		v, _ := a.AppendTo(nil, nil)
		i := func(k int) int { return int(int32(uint32(v[k]))) }
		es := 4
		if strings.HasSuffix(name, "_f16") {
			es = 2
		}
		launched[name]++
		switch {
		case strings.HasPrefix(name, "attn_split_"):
			// part, q, ldq, kc, vc, layer, heads, kvh, ctx, hd, pos0, scale, softcap, window, chunk, nsplit, posp
			layer, heads, kvh, ctx, hd, chunk, ns := i(5), i(6), i(7), i(8), i(9), i(14), i(15)
			if int(grid[1]) != ns || chunk*ns < ctx || ns > attMaxSplit || int(grid[2]) > attDecRows {
				t.Errorf("%s: grid %v for %d splits of %d over %d positions", name, grid, ns, chunk, ctx)
			}
			if need := 4 * int(grid[2]) * heads * ns * (hd + 2); room(v[0]) < need {
				t.Errorf("%s: the scratch has %d bytes, the kernel writes %d", name, room(v[0]), need)
			}
			for _, c := range []int{3, 4} {
				if need := (layer + 1) * kvh * ctx * hd * es; room(v[c]) < need {
					t.Errorf("%s: the cache has %d bytes, the kernel reads up to %d", name, room(v[c]), need)
				}
			}
		case name == "attn_reduce":
			// out, ldo, part, heads, hd, nsplit, chunk, pos0, window, sinks, posp, ctx
			heads, hd, ns := i(3), i(4), i(5)
			if need := 4 * int(grid[1]) * heads * ns * (hd + 2); room(v[2]) < need {
				t.Errorf("%s: the scratch has %d bytes, the kernel reads %d", name, room(v[2]), need)
			}
		case strings.HasPrefix(name, "attn_tile_"):
			// out, ldo, q, ldq, kc, vc, layer, heads, kvh, ctx, hd, pos0, scale, softcap, window, sinks, posp, n, rpb
			layer, heads, kvh, ctx, hd, n, rpb := i(6), i(7), i(8), i(9), i(10), i(17), i(18)
			if gx, want := tileGrid(hd, heads, kvh, n); int(grid[0]) != gx || rpb != want || int(grid[1])*rpb < n ||
				int(grid[1]-1)*rpb >= n || rpb*((heads/kvh+gx/kvh-1)/(gx/kvh)) > attTS {
				t.Errorf("%s: grid %v, %d rows a block, for %d rows of %d heads over %d", name, grid, rpb, n, heads, kvh)
			}
			if hd%4 == 0 && (v[4]|v[5])%16 != 0 {
				t.Errorf("%s: caches at %#x and %#x: att_kv4's float4 and 4-half loads need 16 bytes' alignment", name, v[4], v[5])
			}
			for _, c := range []int{4, 5} {
				if need := (layer + 1) * kvh * ctx * hd * es; room(v[c]) < need {
					t.Errorf("%s: the cache has %d bytes, the kernel reads up to %d", name, room(v[c]), need)
				}
			}
		}
	}
	type cache struct {
		c backend.KV
		a backend.Attention
		n int
	}
	var caches []cache
	for _, s := range []struct {
		ctx int
		a   backend.Attention
	}{{300, backend.Attention{Heads: 8, KVHeads: 2, HeadDim: 64}}, {5000, backend.Attention{Heads: 20, KVHeads: 2, HeadDim: 80, KV: backend.KVF16}},
		{70000, backend.Attention{Heads: 4, KVHeads: 4, HeadDim: 16}}, {1000, backend.Attention{Heads: 40, KVHeads: 4, HeadDim: 128}}} {
		c, err := b.NewKV(2, s.ctx, s.a)
		if err != nil {
			t.Fatal(err)
		}
		caches = append(caches, cache{c, s.a, s.ctx})
	}
	// The carrier's cache: made on b, attended on carrier, largest first.
	for _, on := range []*Backend{b, carrier} {
		for j := len(caches) - 1; j >= 0; j-- {
			c := caches[j]
			q, _ := on.Alloc(MaxBatch, c.a.Heads*c.a.HeadDim)
			out, _ := on.Alloc(MaxBatch, c.a.Heads*c.a.HeadDim)
			for _, n := range []int{1, 2, 4, 5, 40} {
				for _, pos0 := range []int{0, c.n/2 - n, c.n - n} {
					on.Attend(out, q, c.c, 1, pos0, n, backend.AttendOptions{Window: 100})
				}
			}
		}
		if err := on.Err(); err != nil {
			t.Fatal(err)
		}
	}
	for _, k := range []string{"attn_split_f32", "attn_split_f16", "attn_reduce", "attn_tile_f32", "attn_tile_f16"} {
		if launched[k] == 0 {
			t.Errorf("no %s launched", k)
		}
	}
	if carrier.npart == 0 {
		t.Errorf("the carrier's decode attention did not take the splits")
	}
	for _, e := range f.errs {
		t.Error(e)
	}
	// Past the capacity: refused, nothing launched.
	c := caches[0]
	k, _ := b.Alloc(2, c.a.KVHeads*c.a.HeadDim)
	before := len(launched)
	total := 0
	for _, n := range launched {
		total += n
	}
	b.StoreKV(c.c, 0, c.n-1, 2, k, k)
	if b.Err() == nil {
		t.Errorf("StoreKV of 2 rows at %d of a cache of %d was taken", c.n-1, c.n)
	}
	after := 0
	for _, n := range launched {
		after += n
	}
	if after != total || len(launched) != before {
		t.Errorf("a refused StoreKV launched")
	}
}

// TestKVRowsRefused: a cache operation at positions past the cache, or
// with a buffer of fewer rows or values than it addresses, fails the
// backend before any launch (the kernels have no bounds of their own).
func TestKVRowsRefused(t *testing.T) {
	a := backend.Attention{Heads: 4, KVHeads: 2, HeadDim: 32}
	for _, c := range []struct {
		name string
		op   func(b *Backend, c backend.KV, q, k, narrow backend.Buffer)
	}{
		{"StoreKV past the cache", func(b *Backend, c backend.KV, q, k, narrow backend.Buffer) { b.StoreKV(c, 0, 15, 2, k, k) }},
		{"StoreKV at -1", func(b *Backend, c backend.KV, q, k, narrow backend.Buffer) { b.StoreKV(c, 0, -1, 1, k, k) }},
		{"StoreKV of narrow rows", func(b *Backend, c backend.KV, q, k, narrow backend.Buffer) { b.StoreKV(c, 0, 0, 1, narrow, k) }},
		{"StoreKV of more rows than the buffer", func(b *Backend, c backend.KV, q, k, narrow backend.Buffer) { b.StoreKV(c, 0, 0, 3, k, k) }},
		{"Attend past the cache", func(b *Backend, c backend.KV, q, k, narrow backend.Buffer) {
			b.Attend(q, q, c, 0, 16, 1, backend.AttendOptions{})
		}},
		{"Attend with a narrow query", func(b *Backend, c backend.KV, q, k, narrow backend.Buffer) {
			b.Attend(q, k, c, 0, 3, 1, backend.AttendOptions{})
		}},
		{"RoPEStoreKV past the cache", func(b *Backend, c backend.KV, q, k, narrow backend.Buffer) {
			b.RoPEStoreKV(q, k, k, c, 0, 15, 15, 2, 4, 2, 32, backend.Rope{Base: 10000, Dim: 32})
		}},
		{"RoPEStoreKV with a narrow query", func(b *Backend, c backend.KV, q, k, narrow backend.Buffer) {
			b.RoPEStoreKV(k, k, k, c, 0, 3, 3, 1, 4, 2, 32, backend.Rope{Base: 10000, Dim: 32})
		}},
		{"ReadKV past the cache", func(b *Backend, c backend.KV, q, k, narrow backend.Buffer) {
			b.ReadKV(c, 0, 16, make([]float32, 64), make([]float32, 64))
		}},
		{"ReadKV into short rows", func(b *Backend, c backend.KV, q, k, narrow backend.Buffer) {
			b.ReadKV(c, 0, 3, make([]float32, 63), make([]float32, 64))
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			g, f := newFakeDevice(t)
			b, err := g.NewBackend()
			if err != nil {
				t.Fatal(err)
			}
			defer b.Close()
			kv, err := b.NewKV(1, 16, a)
			if err != nil {
				t.Fatal(err)
			}
			q, _ := b.Alloc(2, 4*32)
			k, _ := b.Alloc(2, 2*32)
			narrow, _ := b.Alloc(2, 2*32-1)
			launches := 0
			f.inspect = func(string, [3]uint32, [3]uint32, *cu.Args) { launches++ }
			c.op(b, kv, q, k, narrow)
			if b.Err() == nil {
				t.Errorf("taken")
			}
			if launches != 0 {
				t.Errorf("%d launches", launches)
			}
		})
	}
}

// TestTileGridMatchesKernels: the backend's attn_tile grid is the one the
// kernels' own plan gives (att_tile_plan and att_tile_rows, built by the
// host C compiler in hostq), for every head shape models have (GQA 1…10
// and wider groups, heads up to 128, the widths of models) and batch sizes
// up to MaxBatch; the block's slots hold its rows of its heads.
func TestTileGridMatchesKernels(t *testing.T) {
	if !hostq.Available {
		t.Skip("hostq needs cgo")
	}
	for _, hd := range []int{16, 40, 64, 80, 96, 112, 128, 160, 256} {
		for kvh := 1; kvh <= 16; kvh++ {
			for G := 1; G*kvh <= 128; G++ {
				for _, n := range []int{attDecRows + 1, 16, 33, 100, MaxBatch} {
					gx, rpb := tileGrid(hd, G*kvh, kvh, n)
					if wx, wr := hostq.AttnTileGrid(hd, G*kvh, kvh, n); gx != wx || rpb != wr {
						t.Fatalf("width %d, %d heads over %d, %d rows: grid %d, %d rows a block; the kernels' %d, %d", hd, G*kvh, kvh, n, gx, rpb, wx, wr)
					}
					if ngrp := gx / kvh; rpb*((G+ngrp-1)/ngrp) > attTS {
						t.Fatalf("width %d, %d heads over %d: %d rows of %d heads a block", hd, G*kvh, kvh, rpb, (G+ngrp-1)/ngrp)
					}
				}
			}
		}
	}
}
