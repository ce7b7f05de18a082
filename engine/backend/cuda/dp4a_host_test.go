package cuda

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/isagi-lab/isagi/engine/backend"
	"github.com/isagi-lab/isagi/engine/backend/backendtest"
	"github.com/isagi-lab/isagi/engine/backend/cuda/cu"
	"github.com/isagi-lab/isagi/engine/tensor"
)

// TestIntDecodeOnRecorder runs decode's integer products (quant_q8, then
// mvq_/mvqk_) on the recording driver for every type that has them: one
// quantisation per input shared by the products that read it, the launch
// shape by row count, every argument's extent inside its allocation, the
// float path for batches, for an MXFP4 neighbour and when a test asks for
// it, and no host allocation once the scratch is grown.
func TestIntDecodeOnRecorder(t *testing.T) {
	const cols = 512
	for _, typ := range []tensor.Type{tensor.Q8_0, tensor.Q4_0, tensor.Q5_0, tensor.Q4_K, tensor.Q5_K, tensor.Q6_K,
		tensor.Q4_1, tensor.Q5_1, tensor.IQ4_NL, tensor.IQ4_XS, tensor.Q2_K, tensor.Q3_K,
		tensor.TQ1_0, tensor.TQ2_0, tensor.IQ2_XXS, tensor.IQ2_XS, tensor.IQ2_S, tensor.IQ3_XXS, tensor.IQ3_S, tensor.IQ1_S, tensor.IQ1_M} {
		t.Run(typ.String(), func(t *testing.T) {
			g, f := newFakeDevice(t)
			b, err := g.NewBackend()
			if err != nil {
				t.Fatal(err)
			}
			defer g.Close()
			defer b.Close()
			mat := func(typ tensor.Type, rows int) backend.Matrix {
				rb, _ := typ.RowBytes(cols)
				data := make([]byte, rows*int(rb))
				if err := tensor.FillRandom(typ, data, uint64(rows), 0.05); err != nil {
					t.Fatal(err)
				}
				m, err := tensor.NewMatrix(typ, rows, cols, data)
				if err != nil {
					t.Fatal(err)
				}
				w, err := b.Matrix(m)
				if err != nil {
					t.Fatal(err)
				}
				return w
			}
			big, small := mat(typ, mvqMinRows), mat(typ, 96)
			x, _ := b.Alloc(MaxBatch, cols)
			y1, _ := b.Alloc(MaxBatch, mvqMinRows)
			y2, _ := b.Alloc(MaxBatch, 96)
			s, _ := typeSuffix(typ)

			// extent checks that argument i of a launch points at need
			// bytes inside one allocation.
			extent := func(name string, a *cu.Args, i, need int) {
				p := cu.DevicePtr(a.Value(i))
				if buf, off, ok := f.find(p); !ok || off+need > len(buf) {
					t.Errorf("%s: argument %d (%#x) does not hold %d bytes", name, i, p, need)
				}
				if p%16 != 0 && (i == 4 || (i == 0 && strings.HasPrefix(name, "mvq"))) {
					t.Errorf("%s: argument %d (%#x) is not 16-byte aligned for the kernel's vector loads", name, i, p)
				}
			}
			f.inspect = func(name string, grid, block [3]uint32, a *cu.Args) {
				switch {
				case name == "quant_q8":
					n := int(a.Value(4))
					extent(name, a, 0, n)
					extent(name, a, 1, 4*n/32)
					extent(name, a, 2, 4*n/32)
					extent(name, a, 3, 4*n)
					if grid[0]*block[0] < uint32(n) || n%32 != 0 {
						t.Errorf("quant_q8: %v×%v threads for %d values", grid, block, n)
					}
				case name == "rmsnorm_q8":
					n := int(a.Value(3))
					extent(name, a, 0, 4*n)
					extent(name, a, 1, 4*n)
					extent(name, a, 2, 4*n)
					extent(name, a, 5, n)
					extent(name, a, 6, 4*n/32)
					extent(name, a, 7, 4*n/32)
					if grid != [3]uint32{1, 1, 1} || block[0]%32 != 0 || n%32 != 0 {
						t.Errorf("rmsnorm_q8: %v×%v threads for %d values", grid, block, n)
					}
				case strings.HasPrefix(name, "mvqn"):
					// A few rows on decode's kernels: mvq_'s arguments
					// with the row count n after y, every buffer n rows.
					rb, rows, c, n := int(a.Value(1)), int(a.Value(2)), int(a.Value(3)), int(int32(a.Value(8)))
					if n < 2 || n > mvqnMax {
						t.Errorf("%s: %d rows of activations", name, n)
					}
					extent(name, a, 0, rb*rows)
					extent(name, a, 4, n*c)
					extent(name, a, 5, 4*n*c/32)
					extent(name, a, 6, 4*n*c/32)
					extent(name, a, 7, 4*n*rows)
					if beta := math.Float32frombits(uint32(a.Value(9))); beta != 0 {
						t.Errorf("%s: beta %v", name, beta)
					}
					if glu := int32(a.Value(11)); glu != 0 {
						extent(name, a, 10, 4*n*rows)
						if glu < 1 || glu > 3 {
							t.Errorf("%s: glu %d", name, glu)
						}
					}
					want := [3]uint32{uint32(rows), 1, 1}
					if name == "mvqn_"+s {
						want = [3]uint32{blocks(rows, 4), 1, 1}
					}
					if grid != want || block != [3]uint32{128, 1, 1} {
						t.Errorf("%s: grid %v block %v for %d rows", name, grid, block, rows)
					}
				case strings.HasPrefix(name, "mvq"):
					rb, rows, c := int(a.Value(1)), int(a.Value(2)), int(a.Value(3))
					extent(name, a, 0, rb*rows)
					extent(name, a, 4, c)
					extent(name, a, 5, 4*c/32)
					extent(name, a, 6, 4*c/32)
					extent(name, a, 7, 4*rows)
					if math.Float32frombits(uint32(a.Value(8))) != 0 {
						t.Errorf("%s: beta %v", name, math.Float32frombits(uint32(a.Value(8))))
					}
					if glu := int32(a.Value(10)); glu != 0 {
						extent(name, a, 9, 4*rows)
						if glu < 1 || glu > 3 {
							t.Errorf("%s: glu %d", name, glu)
						}
					}
				}
			}
			names := func() string {
				var out []string
				for _, l := range f.launches {
					out = append(out, fmt.Sprintf("%s%v", l.name, l.grid))
				}
				return strings.Join(out, " ")
			}
			f.record = true

			// Decode: one quantisation for both products; a warp a row for
			// the tall matrix, four warps a row for the short one.
			b.Linears(x, 1, backend.LinearOp{Dst: y1, W: big}, backend.LinearOp{Dst: y2, W: small})
			want := fmt.Sprintf("quant_q8[2 1 1] mvq_%s[%d 1 1] mvqk_%s[96 1 1]", s, mvqMinRows/4, s)
			if got := names(); got != want {
				t.Errorf("decode's Linears launched %s, want %s", got, want)
			}
			f.launches = f.launches[:0]
			b.Linear(y2, small, x, 1)
			if got, want := names(), fmt.Sprintf("quant_q8[2 1 1] mvqk_%s[96 1 1]", s); got != want {
				t.Errorf("decode's Linear launched %s, want %s", got, want)
			}
			// A decode RMSNorm quantises its output in its own launch
			// (rmsnorm_q8), which the products that follow it read; an
			// operation in between drops that, and a batch's norm is
			// rmsnorm's.
			nw, err := b.Vector(make([]float32, cols))
			if err != nil {
				t.Fatal(err)
			}
			f.launches = f.launches[:0]
			b.RMSNorm(x, x, nw, 1, 1e-5)
			b.Linears(x, 1, backend.LinearOp{Dst: y1, W: big}, backend.LinearOp{Dst: y2, W: small})
			b.RMSNorm(x, x, nw, 1, 1e-5)
			b.Linear(y2, small, x, 1)
			b.Linear(y2, small, x, 1)
			b.RMSNorm(x, x, nw, 1, 1e-5)
			b.Scale(x, 1, 2)
			b.Linear(y2, small, x, 1)
			b.RMSNorm(x, x, nw, 2, 1e-5)
			b.Linear(y2, small, x, 1)
			want = fmt.Sprintf("rmsnorm_q8[1 1 1] mvq_%[1]s[%[2]d 1 1] mvqk_%[1]s[96 1 1] rmsnorm_q8[1 1 1] mvqk_%[1]s[96 1 1] "+
				"quant_q8[2 1 1] mvqk_%[1]s[96 1 1] rmsnorm_q8[1 1 1] scale[2 1 1] quant_q8[2 1 1] mvqk_%[1]s[96 1 1] "+
				"rmsnorm[2 1 1] quant_q8[2 1 1] mvqk_%[1]s[96 1 1]", s, mvqMinRows/4)
			if got := names(); got != want {
				t.Errorf("norms and products launched\n%s, want\n%s", got, want)
			}
			// Gated: the gate's product, then the up product with the
			// activation in its epilogue (argument 9 the gate's row, 10
			// the unit); after a fused norm, no quantisation at all.
			// Batches on the float path (mmq_host_test.go has the tile
			// products' own) and unequal shapes are not taken.
			g1, _ := b.Alloc(MaxBatch, 96)
			g.floatBatch = true
			var gl [][3]uint64 // each product's dst, gate row and unit
			inspect := f.inspect
			f.inspect = func(name string, grid, block [3]uint32, a *cu.Args) {
				inspect(name, grid, block, a)
				if strings.HasPrefix(name, "mvq") {
					gl = append(gl, [3]uint64{a.Value(7), a.Value(9), a.Value(10)})
				}
			}
			f.launches = f.launches[:0]
			b.RMSNorm(x, x, nw, 1, 1e-5)
			if !b.Gated(g1, y2, small, small, x, 1, backend.GLUGELU) {
				t.Error("Gated did not take a decode of two products of one shape")
			}
			if !b.Gated(g1, y2, small, small, x, 1, backend.GLUSiLU) ||
				b.Gated(g1, y2, small, small, x, 2, backend.GLUSiLU) || b.Gated(y1, y2, big, small, x, 1, backend.GLUSiLU) {
				t.Error("Gated took the wrong calls")
			}
			f.inspect = inspect
			want = fmt.Sprintf("rmsnorm_q8[1 1 1] mvqk_%[1]s[96 1 1] mvqk_%[1]s[96 1 1] quant_q8[2 1 1] mvqk_%[1]s[96 1 1] mvqk_%[1]s[96 1 1]", s)
			if got := names(); got != want {
				t.Errorf("Gated launched\n%s, want\n%s", got, want)
			}
			gp, up := uint64(db(g1).p), uint64(db(y2).p)
			if wantGL := [][3]uint64{{gp, 0, 0}, {up, gp, 2}, {gp, 0, 0}, {up, gp, 1}}; !slices.Equal(gl, wantGL) {
				t.Errorf("Gated's products (dst, gate row, unit): %#x, want %#x", gl, wantGL)
			}
			// LinearAdd: the product, then its row added to dst in the
			// epilogue (unit 3); a dst of another width is not taken.
			gl = gl[:0]
			f.inspect = func(name string, grid, block [3]uint32, a *cu.Args) {
				inspect(name, grid, block, a)
				if strings.HasPrefix(name, "mvq") {
					gl = append(gl, [3]uint64{a.Value(7), a.Value(9), a.Value(10)})
				}
			}
			f.launches = f.launches[:0]
			if !b.LinearAdd(g1, y2, small, x, 1) || b.LinearAdd(y1, y2, small, x, 1) || b.LinearAdd(g1, y2, small, x, 2) {
				t.Error("LinearAdd took the wrong calls")
			}
			f.inspect = inspect
			if got, want := names(), fmt.Sprintf("quant_q8[2 1 1] mvqk_%s[96 1 1]", s); got != want {
				t.Errorf("LinearAdd launched %s, want %s", got, want)
			}
			if wantGL := [][3]uint64{{up, gp, 3}}; !slices.Equal(gl, wantGL) {
				t.Errorf("LinearAdd's product (dst, stream, unit): %#x, want %#x", gl, wantGL)
			}
			// A batch on request keeps the float products; otherwise a
			// few rows run on decode's kernels (the same choice by the
			// row count as decode's), more on the tensor cores.
			f.launches = f.launches[:0]
			b.Linear(y2, small, x, 2)
			if got, want := names(), fmt.Sprintf("quant_act[4 1 1] mm_%s[24 1 1]", s); got != want {
				t.Errorf("a batch's Linear launched %s, want %s", got, want)
			}
			g.floatBatch = false
			f.launches = f.launches[:0]
			b.Linear(y2, small, x, 2)
			if got, want := names(), fmt.Sprintf("quant_q8[4 1 1] mvqnk_%s[96 1 1]", s); got != want {
				t.Errorf("a batch's Linear launched %s, want %s", got, want)
			}
			f.launches = f.launches[:0]
			b.Linears(x, mvqnMax, backend.LinearOp{Dst: y1, W: big}, backend.LinearOp{Dst: y2, W: small})
			if got, want := names(), fmt.Sprintf("quant_q8[%d 1 1] mvqn_%s[%d 1 1] mvqnk_%s[96 1 1]", blocks(mvqnMax*cols, 256), s, mvqMinRows/4, s); got != want {
				t.Errorf("a batch of %d rows' Linears launched %s, want %s", mvqnMax, got, want)
			}
			f.launches = f.launches[:0]
			b.Linear(y2, small, x, mvqnMax+1)
			if got, want := names(), fmt.Sprintf("quant_q8[%d 1 1] mmq_%s[1 2 1]", blocks((mvqnMax+1)*cols, 256), s); got != want {
				t.Errorf("a batch of %d rows' Linear launched %s, want %s", mvqnMax+1, got, want)
			}
			// An MXFP4 product among them gives all float16 scales: the
			// float path, as the CPU's.
			f.launches = f.launches[:0]
			b.Linears(x, 1, backend.LinearOp{Dst: y2, W: mat(tensor.MXFP4, 96)}, backend.LinearOp{Dst: y2, W: small})
			if got, want := names(), fmt.Sprintf("quant_act[2 1 1] mv_mxfp4[96 1 1] mv_%s[96 1 1]", s); got != want {
				t.Errorf("Linears with MXFP4 launched %s, want %s", got, want)
			}
			// The float path on request (the GPU tests compare the two).
			g.floatDecode = true
			f.launches = f.launches[:0]
			b.Linear(y2, small, x, 1)
			if got, want := names(), fmt.Sprintf("quant_act[2 1 1] mv_%s[96 1 1]", s); got != want {
				t.Errorf("the float path launched %s, want %s", got, want)
			}
			g.floatDecode = false
			// A decode product allocates nothing on the host or the device
			// once the scratch has its width.
			mem := len(f.mem)
			f.record = false // the recorder's own appends are not the backend's
			if n := testing.AllocsPerRun(20, func() {
				b.RMSNorm(x, x, nw, 1, 1e-5)
				b.Linears(x, 1, backend.LinearOp{Dst: y1, W: big}, backend.LinearOp{Dst: y2, W: small})
			}); n != 0 {
				t.Errorf("a decode product allocates %v times", n)
			}
			if len(f.mem) != mem {
				t.Errorf("decode products allocated %d times on the device", len(f.mem)-mem)
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

// exerciseIntDecode runs a decode product of a matrix tall enough for
// the mvq_ kernels (a warp a row) of every type that has them.
func exerciseIntDecode(t *testing.T, b *Backend) {
	const cols = 256
	x, _ := b.Alloc(1, cols)
	y, _ := b.Alloc(1, mvqMinRows)
	nw, err := b.Vector(make([]float32, cols))
	if err != nil {
		t.Fatal(err)
	}
	b.RMSNorm(x, x, nw, 1, 1e-5) // rmsnorm_q8, whose quantisation the first product reads
	for t0 := tensor.Type(0); t0 < 64; t0++ {
		if !dp4aType(t0) {
			continue
		}
		rb, _ := t0.RowBytes(cols)
		m, err := tensor.NewMatrix(t0, mvqMinRows, cols, make([]byte, mvqMinRows*int(rb)))
		if err != nil {
			t.Fatal(err)
		}
		w, err := b.Matrix(m)
		if err != nil {
			t.Fatal(err)
		}
		b.Linear(y, w, x, 1)
		b.Release(w)
	}
	if err := b.Err(); err != nil {
		t.Fatal(err)
	}
}

// floatDecodeConfig is the suite's configuration for the types whose
// decode products have an integer form, and F16 and BF16, whose batch
// products have a tensor-core form (mmf_), to run again on the float path.
func floatDecodeConfig(values bool) backendtest.Config {
	c := suiteConfig(values)
	c.Types = slices.DeleteFunc(slices.Clone(c.Types), func(t tensor.Type) bool {
		return !dp4aType(t) && t != tensor.F16 && t != tensor.BF16
	})
	return c
}

// exerciseRoPEStore runs rope_store_kv (RoPEStoreKV) with and without
// frequency divisors, and checks that a cache of other heads is not
// taken.
func exerciseRoPEStore(t *testing.T, b *Backend) {
	a := backend.Attention{Heads: 4, KVHeads: 2, HeadDim: 64}
	c, err := b.NewKV(2, 16, a)
	if err != nil {
		t.Fatal(err)
	}
	q, _ := b.Alloc(2, 4*64)
	k, _ := b.Alloc(2, 2*64)
	v, _ := b.Alloc(2, 2*64)
	freqs := make([]float32, 16)
	for i := range freqs {
		freqs[i] = 1
	}
	for _, r := range []backend.Rope{{Base: 10000, Dim: 64}, {Base: 10000, Dim: 32, Neox: true, Freqs: freqs}} {
		if !b.RoPEStoreKV(q, k, v, c, 1, 3, 5, 2, 4, 2, 64, r) {
			t.Fatal("RoPEStoreKV did not take a cache of its heads")
		}
	}
	if b.RoPEStoreKV(q, k, v, c, 1, 3, 5, 2, 4, 1, 128, backend.Rope{Base: 10000, Dim: 64}) {
		t.Error("RoPEStoreKV took a cache of other heads")
	}
	if err := b.Err(); err != nil {
		t.Fatal(err)
	}
}
