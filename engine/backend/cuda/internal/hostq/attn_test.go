//go:build cgo

package hostq

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/isagi-lab/isagi/engine/backend"
	"github.com/isagi-lab/isagi/engine/backend/cpu"
	"github.com/isagi-lab/isagi/engine/tensor"
)

// attnShape is one test's heads and cache.
type attnShape struct{ heads, kvh, hd, ctx int }

// newAttn makes a random cache of shape s (f16: rounded as the CPU's f16
// cache stores it) and n query rows at pos0.
func newAttn(r *rand.Rand, s attnShape, pos0, n int, o backend.AttendOptions, sinks []float32, f16 bool) Attn {
	a := Attn{Heads: s.heads, KVHeads: s.kvh, HeadDim: s.hd, Ctx: s.ctx, Pos0: pos0, N: n, Scale: o.Scale,
		SoftCap: o.SoftCap, Window: o.Window, Sinks: sinks, F16: f16}
	if a.Scale == 0 {
		a.Scale = float32(1 / math.Sqrt(float64(s.hd)))
	}
	w := s.kvh * s.ctx * s.hd
	a.K, a.V = randF(r, w, 1.5), randF(r, w, 1)
	a.Q = randF(r, n*s.heads*s.hd, 1.5)
	if f16 {
		a.KH, a.VH = make([]uint16, w), make([]uint16, w)
		tensor.EncodeF16(a.KH, a.K)
		tensor.EncodeF16(a.VH, a.V)
		tensor.DecodeF16(a.K, a.KH) // the reference reads what is stored
		tensor.DecodeF16(a.V, a.VH)
	}
	return a
}

func randF(r *rand.Rand, n int, scale float64) []float32 {
	v := make([]float32, n)
	for i := range v {
		v[i] = float32(r.NormFloat64() * scale)
	}
	return v
}

// attnRef is causal softmax attention in float64 over a's float32 cache
// (the widened f16 values for an f16 cache): window, soft-cap, sinks and
// grouped heads as engine/backend's AttendOptions say.
func attnRef(a Attn) []float64 {
	HD, G := a.HeadDim, a.Heads/a.KVHeads
	out := make([]float64, a.N*a.Heads*HD)
	for i := range a.N {
		p := a.Pos0 + i
		first := 0
		if a.Window > 0 {
			first = max(0, p-a.Window+1)
		}
		for h := range a.Heads {
			g := h / G
			q := a.Q[(i*a.Heads+h)*HD:][:HD]
			s := make([]float64, p+1-first)
			mx := math.Inf(-1)
			for j := range s {
				k := a.K[(g*a.Ctx+first+j)*HD:][:HD]
				var d float64
				for c := range HD {
					d += float64(q[c]) * float64(k[c])
				}
				d *= float64(a.Scale)
				if a.SoftCap > 0 {
					d = float64(a.SoftCap) * math.Tanh(d/float64(a.SoftCap))
				}
				s[j] = d
				mx = max(mx, d)
			}
			if a.Sinks != nil {
				mx = max(mx, float64(a.Sinks[h]))
			}
			var sum float64
			for j := range s {
				s[j] = math.Exp(s[j] - mx)
				sum += s[j]
			}
			if a.Sinks != nil {
				sum += math.Exp(float64(a.Sinks[h]) - mx)
			}
			o := out[(i*a.Heads+h)*HD:][:HD]
			for j := range s {
				v := a.V[(g*a.Ctx+first+j)*HD:][:HD]
				for c := range HD {
					o[c] += s[j] / sum * float64(v[c])
				}
			}
		}
	}
	return out
}

// maxDiff is the largest |got − want| (NaN counts as infinite).
func maxDiff[T float32 | float64](got []float32, want []T) float64 {
	d := 0.0
	for i := range got {
		e := math.Abs(float64(got[i]) - float64(want[i]))
		if math.IsNaN(e) {
			return math.Inf(1)
		}
		d = max(d, e)
	}
	return d
}

// attnCases are the ragged lengths and options the emulations are run on:
// 1, 7, 255 and 1000 keys, windows inside and beyond the context, soft-cap,
// sinks, a scale, grouped heads of 6 and of 10 query heads a KV head (two
// groups of a split block), widths 64, 256, 40 and 16.
func attnCases() []struct {
	s     attnShape
	keys  int
	o     backend.AttendOptions
	sinks bool
} {
	type c = struct {
		s     attnShape
		keys  int
		o     backend.AttendOptions
		sinks bool
	}
	var cs []c
	shapes := []attnShape{{12, 2, 64, 1024}, {20, 2, 40, 1024}, {4, 1, 256, 1024}, {6, 3, 16, 1024}}
	opts := []struct {
		o     backend.AttendOptions
		sinks bool
	}{{backend.AttendOptions{}, false}, {backend.AttendOptions{Window: 5}, false},
		{backend.AttendOptions{Window: 2000}, true}, {backend.AttendOptions{SoftCap: 5}, true},
		{backend.AttendOptions{Scale: 0.3, Window: 100, SoftCap: 30}, true}}
	for i, keys := range []int{1, 7, 255, 1000} {
		for j, o := range opts {
			cs = append(cs, c{shapes[(i+j)%len(shapes)], keys, o.o, o.sinks})
		}
	}
	// A capacity whose splits are longer than ATT_CHUNK.
	cs = append(cs, c{attnShape{4, 2, 16, 70000}, 1000, backend.AttendOptions{Window: 300}, true})
	return cs
}

// TestAttnSplitMatchesReference: attn_split and attn_reduce, emulated,
// against float64 attention, for decode (1 row) and short batches, f32 and
// f16 caches; the threads of every phase in either order give the same bits.
func TestAttnSplitMatchesReference(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	worst := 0.0
	for _, c := range attnCases() {
		for _, f16 := range []bool{false, true} {
			for _, n := range []int{1, min(3, c.keys)} {
				name := fmt.Sprintf("%+v keys %d rows %d %+v sinks %v f16 %v", c.s, c.keys, n, c.o, c.sinks, f16)
				var sinks []float32
				if c.sinks {
					sinks = randF(r, c.s.heads, 2)
				}
				a := newAttn(r, c.s, c.keys-n, n, c.o, sinks, f16)
				got, err := AttnSplit(a, false)
				if err != nil {
					t.Fatal(err)
				}
				back, _ := AttnSplit(a, true)
				if !slices.Equal(got, back) {
					t.Errorf("%s: the threads' order changes the result", name)
				}
				d := maxDiff(got, attnRef(a))
				worst = max(worst, d)
				if d > 2e-5 {
					t.Errorf("%s: off the float64 reference by %g", name, d)
				}
			}
		}
	}
	t.Logf("largest difference from float64: %.3g", worst)
}

// TestAttnTileMatchesReference: attn_tile, emulated, against float64
// attention for prompts (every row of a short context, the last 160 of a
// longer one), f32 and f16 caches, threads in either order (f32).
func TestAttnTileMatchesReference(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	worst := 0.0
	for _, c := range attnCases() {
		for _, f16 := range []bool{false, true} {
			n := min(c.keys, 160)
			name := fmt.Sprintf("%+v keys %d rows %d %+v sinks %v f16 %v", c.s, c.keys, n, c.o, c.sinks, f16)
			var sinks []float32
			if c.sinks {
				sinks = randF(r, c.s.heads, 2)
			}
			a := newAttn(r, c.s, c.keys-n, n, c.o, sinks, f16)
			got, err := AttnTile(a, false)
			if err != nil {
				t.Fatal(err)
			}
			if back, _ := AttnTile(a, true); !f16 && !slices.Equal(got, back) {
				t.Errorf("%s: the threads' order changes the result", name)
			}
			d := maxDiff(got, attnRef(a))
			worst = max(worst, d)
			if d > 2e-5 {
				t.Errorf("%s: off the float64 reference by %g", name, d)
			}
		}
	}
	t.Logf("largest difference from float64: %.3g", worst)
}

// cpuAttend is the CPU backend's attention over a's cache (stored through
// its StoreKV, so an f16 cache holds the same bits as a.KH, a.VH).
func cpuAttend(t *testing.T, a Attn) []float32 {
	t.Helper()
	b := cpu.New(nil)
	HD := a.HeadDim
	kv, err := b.NewKV(1, a.Ctx, backend.Attention{Heads: a.Heads, KVHeads: a.KVHeads, HeadDim: HD, KV: map[bool]backend.KVType{false: backend.KVF32, true: backend.KVF16}[a.F16]})
	if err != nil {
		t.Fatal(err)
	}
	last := a.Pos0 + a.N
	// Rows of all KV heads for positions 0…last−1, from the float32
	// values (for f16, their rounding is what a.KH holds).
	kr, vr := make([]float32, last*a.KVHeads*HD), make([]float32, last*a.KVHeads*HD)
	for p := range last {
		for g := range a.KVHeads {
			copy(kr[(p*a.KVHeads+g)*HD:][:HD], a.K[(g*a.Ctx+p)*HD:][:HD])
			copy(vr[(p*a.KVHeads+g)*HD:][:HD], a.V[(g*a.Ctx+p)*HD:][:HD])
		}
	}
	kb, _ := b.Alloc(last, a.KVHeads*HD)
	vb, _ := b.Alloc(last, a.KVHeads*HD)
	b.Write(kb, 0, kr)
	b.Write(vb, 0, vr)
	b.StoreKV(kv, 0, 0, last, kb, vb)
	q, _ := b.Alloc(a.N, a.Heads*HD)
	out, _ := b.Alloc(a.N, a.Heads*HD)
	b.Write(q, 0, a.Q)
	o := backend.AttendOptions{Scale: a.Scale, SoftCap: a.SoftCap, Window: a.Window}
	if a.Sinks != nil {
		if o.Sinks, err = b.Vector(a.Sinks); err != nil {
			t.Fatal(err)
		}
	}
	b.Attend(out, q, kv, 0, a.Pos0, a.N, o)
	return slices.Clone(b.Host(out, 0, a.N))
}

// TestAttnF16MatchesCPU: with an f16 cache, the emulated kernels agree
// with the CPU backend's f16-cache attention (the same stored bits, the
// query in float32 on both) to float32 rounding.
func TestAttnF16MatchesCPU(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	worst := 0.0
	for _, c := range attnCases() {
		if c.s.ctx > 4096 {
			continue
		}
		var sinks []float32
		if c.sinks {
			sinks = randF(r, c.s.heads, 2)
		}
		for _, n := range []int{1, min(c.keys, 40)} {
			a := newAttn(r, c.s, c.keys-n, n, c.o, sinks, true)
			var got []float32
			var err error
			if n <= AttnDecRows() {
				got, err = AttnSplit(a, false)
			} else {
				got, err = AttnTile(a, false)
			}
			if err != nil {
				t.Fatal(err)
			}
			d := maxDiff(got, cpuAttend(t, a))
			worst = max(worst, d)
			if d > 3e-5 {
				t.Errorf("%+v keys %d rows %d %+v: off the CPU's f16 attention by %g", c.s, c.keys, n, c.o, d)
			}
		}
	}
	t.Logf("largest difference from the CPU's f16 attention: %.3g", worst)
}

// TestF2HMatchesEngine: the kernels' f16 rounding is engine/tensor's
// F32ToF16 (the CPU's f16 cache) on ties, subnormals, overflow and random
// values.
func TestF2HMatchesEngine(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	vals := []float32{0, float32(math.Copysign(0, -1)), 1, -1, 65504, 65519.99, 65520, 1e6, -1e6, 6.1035156e-05,
		5.9604645e-08, 2.9802322e-08, 2.9802326e-08, 8.940697e-08, 1.0009765625, 1.00048828125, 1.00146484375,
		float32(math.Inf(1)), float32(math.Inf(-1))}
	for range 200000 {
		vals = append(vals, math.Float32frombits(r.Uint32()))
	}
	bad := 0
	for _, v := range vals {
		if v != v {
			continue // NaN payloads are not a cache's concern
		}
		if got, want := F2H(v), tensor.F32ToF16(v); got != want && bad < 10 {
			bad++
			t.Errorf("f2h(%g) = %#04x, engine/tensor's %#04x", v, got, want)
		}
	}
}

// TestAttnSplitPlan: the host build's plan is the one the backend uses
// (engine/backend/cuda's splitPlan tests the same bounds).
func TestAttnSplitPlan(t *testing.T) {
	for _, c := range []struct{ ctx, chunk, ns int }{{1, 128, 1}, {256, 128, 2}, {8192, 128, 64}, {65536, 128, 512},
		{65537, 129, 509}, {131072, 256, 512}} {
		if chunk, ns := AttnSplitPlan(c.ctx); chunk != c.chunk || ns != c.ns {
			t.Errorf("ctx %d: %d splits of %d, want %d of %d", c.ctx, ns, chunk, c.ns, c.chunk)
		}
	}
}

// TestAttnGroupsAndWidths: every grouped-query size 1…10 (one or two
// split blocks a KV head, the second partly idle) with the widths models
// use (40, 64, 80, 96, 112, 128, 256: one or two values a thread, some
// threads idle), decode and a prompt, f32 and f16, against float64, with
// keys over three splits and a tile boundary.
func TestAttnGroupsAndWidths(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	hds := []int{40, 64, 80, 96, 112, 128, 256}
	for G := 1; G <= 10; G++ {
		for i, hd := range hds {
			if (G+i)%2 == 1 && hd != 256 && G != 1 && G != 10 {
				continue // half the grid, every width and the ends of G kept
			}
			kvh := 1 + (G+i)%2
			s := attnShape{G * kvh, kvh, hd, 400}
			keys := 290 + G
			f16 := (G+i)%3 == 0
			o := backend.AttendOptions{Window: []int{0, 200}[i%2], SoftCap: []float32{0, 20}[G%2]}
			var sinks []float32
			if G%3 == 1 {
				sinks = randF(r, s.heads, 2)
			}
			for _, n := range []int{1, 3, 21} {
				a := newAttn(r, s, keys-n, n, o, sinks, f16)
				var got []float32
				var err error
				if n <= AttnDecRows() {
					got, err = AttnSplit(a, G%2 == 0)
				} else {
					got, err = AttnTile(a, G%2 == 0)
				}
				if err != nil {
					t.Fatal(err)
				}
				if d := maxDiff(got, attnRef(a)); d > 2e-5 {
					t.Errorf("G %d, %+v, %d rows, %+v, f16 %v: off the float64 reference by %g", G, s, n, o, f16, d)
				}
			}
		}
	}
}

// TestAttnNaNQuery: a query row of NaN comes out NaN, with and without a
// sink, from the splits and the tiles (a row of NaN scores is not a row
// of masked keys, which a sink would turn into zeros).
func TestAttnNaNQuery(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	s := attnShape{4, 2, 64, 300}
	for _, sinks := range [][]float32{nil, {0.5, -1, 2, 0}} {
		for _, n := range []int{1, 20} {
			a := newAttn(r, s, 250-n, n, backend.AttendOptions{}, sinks, false)
			HD, row := s.hd, (n-1)*s.heads*s.hd // the last row's head 1
			for i := range HD {
				a.Q[row+HD+i] = float32(math.NaN())
			}
			var got []float32
			if n <= AttnDecRows() {
				got, _ = AttnSplit(a, false)
			} else {
				got, _ = AttnTile(a, false)
			}
			for i, v := range got[row+HD : row+2*HD] {
				if v == v {
					t.Fatalf("sinks %v, %d rows: value %d of a NaN query's output is %g", sinks, n, i, v)
				}
			}
			if d := maxDiff(got[:row+HD], attnRef(a)[:row+HD]); d > 2e-5 {
				t.Errorf("sinks %v, %d rows: the other heads are off by %g", sinks, n, d)
			}
		}
	}
}

// TestAttnPastCapacity: rows at positions past the cache (a caller's
// error, or a bad position in device memory inside a graph) read no key at
// or past the capacity: the cache's slices carry NaN past it, and the
// outputs stay finite; the reduction merges only splits that exist.
func TestAttnPastCapacity(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	for _, ctx := range []int{200, 256, 70000} {
		s := attnShape{2, 1, 16, ctx}
		for _, c := range []struct{ pos0, n, window int }{{ctx - 1, 2, 0}, {ctx + 5, 3, 0}, {ctx + 200, 1, 50},
			{ctx - 10, 20, 0}, {ctx + 40, 17, 30}} {
			if c.n > AttnDecRows() && ctx > 4096 {
				continue // the tile walks every key: slow in the emulation
			}
			a := newAttn(r, attnShape{s.heads, s.kvh, s.hd, ctx}, 0, 1, backend.AttendOptions{}, nil, false)
			guard := make([]float32, 64*s.hd)
			for i := range guard {
				guard[i] = float32(math.NaN())
			}
			a.K, a.V = append(a.K, guard...), append(a.V, guard...)
			a.Pos0, a.N, a.Window = c.pos0, c.n, c.window
			a.Q = randF(r, c.n*s.heads*s.hd, 1)
			var got []float32
			if c.n <= AttnDecRows() {
				got = runSplit(a, false)
			} else {
				got = runTile(a, false)
			}
			for i, v := range got {
				if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
					t.Fatalf("ctx %d, %d rows at %d, window %d: output %d is %g", ctx, c.n, c.pos0, c.window, i, v)
				}
			}
		}
	}
}

// TestAttnSplitRange: the splits attn_reduce merges are those holding the
// row's keys, clamped to the splits there are (never more than
// ATT_MAX_SPLIT of them, the reduction's shared arrays).
func TestAttnSplitRange(t *testing.T) {
	for _, c := range []struct{ p, window, chunk, nsplit, s0, s1 int }{
		{0, 0, 128, 4, 0, 0}, {511, 0, 128, 4, 0, 3}, {300, 100, 128, 4, 1, 2}, {300, 45, 128, 4, 2, 2},
		{512, 0, 128, 4, 0, 3}, {10000, 0, 128, 4, 0, 3}, {10000, 100, 128, 4, 3, 3}, {131071, 0, 256, 512, 0, 511},
		{1 << 30, 0, 256, 512, 0, 511}, {-5, 0, 128, 4, 0, 0},
	} {
		if s0, s1 := AttnSplitRange(c.p, c.window, c.chunk, c.nsplit); s0 != c.s0 || s1 != c.s1 {
			t.Errorf("p %d window %d, %d splits of %d: splits %d…%d, want %d…%d", c.p, c.window, c.nsplit, c.chunk, s0, s1, c.s0, c.s1)
		}
	}
}

// tileErr is the largest difference of an attn_tile output from the
// float64 reference, and what is wrong when it passes tol.
func tileErr(a Attn, got []float32, tol float64) (float64, error) {
	d := maxDiff(got, attnRef(a))
	if d > tol {
		return d, fmt.Errorf("off the float64 reference by %g", d)
	}
	return d, nil
}

// TestAttnTileGroups: attn_tile on its grid of (KV head × sub-group of
// query heads, run of rows) blocks, for every grouped-query size 1…10 and
// every width models use (each G three of 40, 64, 80, 96, 112, 128, 256,
// so that each width meets several G), one and three KV heads, ragged row
// counts (5 to 250, a block's rows not dividing them) at ragged
// positions, f32 and f16 caches, windows inside and beyond the rows,
// sinks, soft-cap and a scale; each on att_tile_rows' grid and on blocks
// of one row or of the plan's most (the grids a small and a large batch
// take), against float64, the threads (and warps) of every phase in
// reverse order giving the same bits.
func TestAttnTileGroups(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	hds := []int{40, 64, 80, 96, 112, 128, 256}
	opts := []struct {
		o     backend.AttendOptions
		sinks bool
	}{{backend.AttendOptions{}, false}, {backend.AttendOptions{Window: 20}, true},
		{backend.AttendOptions{SoftCap: 15}, false}, {backend.AttendOptions{Window: 1000, SoftCap: 30}, true},
		{backend.AttendOptions{Scale: 0.2, Window: 60}, false}}
	rows := []int{5, 37, 77, 250}
	worst, cases := 0.0, 0
	for G := 1; G <= 10; G++ {
		for k := range 3 {
			hd := hds[(G*3+k)%len(hds)]
			kvh := []int{1, 3}[(G+k)%2]
			n := rows[(G+k)%len(rows)]
			if hd == 256 && n > 77 {
				n = 45 // the widest heads are slow to emulate
			}
			s := attnShape{G * kvh, kvh, hd, 300}
			pos0 := (G*37 + k*11) % (s.ctx - n + 1)
			op := opts[(G+k)%len(opts)]
			var sinks []float32
			if op.sinks {
				sinks = randF(r, s.heads, 2)
			}
			f16 := (G+k)%2 == 0
			a := newAttn(r, s, pos0, n, op.o, sinks, f16)
			_, rmax := AttnTileGrid(hd, s.heads, s.kvh, 1<<20)
			for _, rpb := range []int{0, []int{1, rmax}[(G+k)%2]} {
				a.RowsPerBlock = rpb
				name := fmt.Sprintf("G %d %+v rows %d at %d %+v sinks %v f16 %v rpb %d", G, s, n, pos0, op.o, op.sinks, f16, rpb)
				got, err := AttnTile(a, false)
				if err != nil {
					t.Fatal(err)
				}
				d, err := tileErr(a, got, 2e-5)
				if err != nil {
					t.Errorf("%s: %v", name, err)
				}
				worst = max(worst, d)
				cases++
				if rpb == 0 {
					if back, _ := AttnTile(a, true); !slices.Equal(got, back) {
						t.Errorf("%s: the threads' order changes the result", name)
					}
				}
			}
		}
	}
	t.Logf("%d runs, largest difference from float64: %.3g", cases, worst)
}

// TestAttnTileWideGroups: groups wider than a block's slots (G up to 128:
// multi-query heads) are split into sub-groups of hb heads, the last one
// short; and head counts whose group does not fill a block's slots with
// whole rows; and widths that are not a multiple of 4.
func TestAttnTileWideGroups(t *testing.T) {
	r := rand.New(rand.NewPCG(23, 24))
	for _, c := range []struct {
		s    attnShape
		n    int
		f16  bool
		o    backend.AttendOptions
		sink bool
	}{
		{attnShape{40, 1, 256, 64}, 9, false, backend.AttendOptions{Window: 7}, true},    // S 16: 3 sub-groups of 14, 14, 12
		{attnShape{17, 1, 128, 64}, 11, true, backend.AttendOptions{SoftCap: 10}, false}, // S 32: one of 17, a row a block
		{attnShape{66, 2, 64, 80}, 13, false, backend.AttendOptions{}, true},             // S 64: 33 a KV head, a row a block
		{attnShape{128, 1, 64, 40}, 6, true, backend.AttendOptions{Window: 3}, false},    // 2 sub-groups of 64
		{attnShape{71, 1, 64, 40}, 7, false, backend.AttendOptions{}, false},             // Falcon-7B's 71 heads, one KV head
		{attnShape{21, 3, 112, 64}, 33, true, backend.AttendOptions{Window: 9}, true},    // G 7 at S 32: 4 rows, 28 slots
		{attnShape{6, 2, 18, 64}, 25, true, backend.AttendOptions{}, true},               // widths not a multiple of 4:
		{attnShape{4, 1, 250, 64}, 10, false, backend.AttendOptions{SoftCap: 20}, false}, // scalar loads, zeros padding
	} {
		var sinks []float32
		if c.sink {
			sinks = randF(r, c.s.heads, 2)
		}
		a := newAttn(r, c.s, c.s.ctx-c.n-3, c.n, c.o, sinks, c.f16)
		got, err := AttnTile(a, c.n%2 == 1)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tileErr(a, got, 2e-5); err != nil {
			gx, rpb := AttnTileGrid(c.s.hd, c.s.heads, c.s.kvh, c.n)
			t.Errorf("%+v, %d rows (grid %d × %d rows): %v", c.s, c.n, gx, rpb, err)
		}
	}
}

// TestAttnTilePlantedBugs: the checks above see the faults a grouped grid
// could make. Each plants one in the emulation's inputs or output and
// wants tileErr to refuse it: a group reading its neighbour KV head's keys
// and values, a head taking its neighbour's sink, a window one key short,
// a block's rows left unwritten, one value off by 1e-4, and the kernel
// without its barrier between the weighted values and the next keys (the
// threads in either order: the emulation's phases show a race).
func TestAttnTilePlantedBugs(t *testing.T) {
	r := rand.New(rand.NewPCG(25, 26))
	s := attnShape{12, 3, 64, 200}
	sinks := randF(r, s.heads, 2)
	a := newAttn(r, s, 100, 40, backend.AttendOptions{Window: 30}, sinks, false)
	good, err := AttnTile(a, false)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tileErr(a, good, 2e-5); err != nil {
		t.Fatalf("unplanted: %v", err)
	}
	w := s.ctx * s.hd
	bugs := map[string]func() []float32{
		"KV heads rotated": func() []float32 {
			b := a
			b.K = append(slices.Clone(a.K[w:]), a.K[:w]...)
			b.V = append(slices.Clone(a.V[w:]), a.V[:w]...)
			out, _ := AttnTile(b, false)
			return out
		},
		"sinks rotated": func() []float32 {
			b := a
			b.Sinks = append(slices.Clone(a.Sinks[1:]), a.Sinks[0])
			out, _ := AttnTile(b, false)
			return out
		},
		"window short": func() []float32 {
			b := a
			b.Window--
			out, _ := AttnTile(b, false)
			return out
		},
		"rows unwritten": func() []float32 {
			out := slices.Clone(good)
			_, rpb := AttnTileGrid(s.hd, s.heads, s.kvh, a.N)
			clear(out[(a.N-rpb)*s.heads*s.hd:])
			return out
		},
		"one value": func() []float32 {
			out := slices.Clone(good)
			out[r.IntN(len(out))] += 1e-4
			return out
		},
	}
	for _, rev := range []bool{false, true} {
		bugs[fmt.Sprintf("a barrier dropped (threads reversed %v)", rev)] = func() []float32 {
			b := a
			b.noBarrier = true
			out, _ := AttnTile(b, rev)
			return out
		}
	}
	for name, bug := range bugs {
		if _, err := tileErr(a, bug(), 2e-5); err == nil {
			t.Errorf("%s: not caught", name)
		}
	}
}

// TestAttnTileGrid: att_tile_plan and att_tile_rows give every head shape
// models have (GQA 1…10, heads 1…128, widths 16…256, batches 5…256) a grid
// whose blocks cover every (row, query head) once and fit their slots;
// and a step of 256 rows of an 8-KV-head model at least ATT_MIN_BLOCKS
// blocks where a block of 16 slots allows it.
func TestAttnTileGrid(t *testing.T) {
	for _, hd := range []int{16, 40, 64, 80, 96, 112, 128, 160, 256} {
		S := 64
		switch {
		case hd > 128:
			S = 16
		case hd > 64:
			S = 32
		}
		for kvh := 1; kvh <= 16; kvh++ {
			for G := 1; G*kvh <= 128; G++ {
				for _, n := range []int{5, 17, 100, 256} {
					gx, rpb := AttnTileGrid(hd, G*kvh, kvh, n)
					ngrp := gx / kvh
					hb := (G + ngrp - 1) / ngrp
					if gx%kvh != 0 || rpb < 1 || rpb*hb > S || ngrp*hb < G || (ngrp-1)*hb >= G {
						t.Fatalf("width %d, %d heads over %d, %d rows: grid %d, %d rows a block (%d heads)", hd, G*kvh, kvh, n, gx, rpb, hb)
					}
				}
			}
		}
	}
	for _, c := range []struct{ hd, heads, kvh, gx, rpb int }{{64, 32, 8, 8, 8}, {128, 32, 8, 8, 8}, {128, 64, 8, 8, 4}, {64, 32, 32, 32, 32}, {256, 8, 4, 4, 8}} {
		if gx, rpb := AttnTileGrid(c.hd, c.heads, c.kvh, 256); gx != c.gx || rpb != c.rpb {
			t.Errorf("width %d, %d heads over %d, 256 rows: grid %d, %d rows a block; want %d, %d", c.hd, c.heads, c.kvh, gx, rpb, c.gx, c.rpb)
		}
	}
}
