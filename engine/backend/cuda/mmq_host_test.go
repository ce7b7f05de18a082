package cuda

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/isagi-lab/isagi/engine/backend"
	"github.com/isagi-lab/isagi/engine/backend/cuda/cu"
	"github.com/isagi-lab/isagi/engine/tensor"
)

// TestPrefillLaunchesMMQ: a prompt of MaxBatch (256) tokens on fixture models runs
// its quantised products as tile products on the tensor cores (mmq_), in
// one step of MaxBatch rows, each launch with the grid its product needs
// (token tiles along x, row tiles along y, within CUDA's limits) and its
// n, rows and cols matching the matrix; no batch product of an integer
// type falls back to the float kernels (mm_).
func TestPrefillLaunchesMMQ(t *testing.T) {
	for _, path := range []string{
		fixture(t, "kjv", "kjv-q8_0.gguf"),
		fixture(t, "quants", "qwen2-q4_k_m.gguf"),
	} {
		t.Run(filepath.Base(path), func(t *testing.T) {
			var mmq, full, mm int
			promptOnRecorder(t, path, func(f *fakeDriver, name string, grid, block [3]uint32, a *cu.Args) {
				switch {
				case strings.HasPrefix(name, "mmq_"):
					mmq++
					rows, n := int(int32(a.Value(2))), int(int32(a.Value(8)))
					if n == MaxBatch {
						full++
					}
					if n < 2 || n > MaxBatch || rows <= 0 {
						t.Errorf("%s: %d rows over %d tokens", name, rows, n)
					}
					if want := [3]uint32{blocks(n, mmqTile), blocks(rows, mmqTile), 1}; grid != want || block != [3]uint32{128, 1, 1} {
						t.Errorf("%s: grid %v block %v for %d rows over %d tokens; want grid %v, 128 threads", name, grid, block, rows, n, want)
					}
					if cols := int(int32(a.Value(3))); cols <= 0 || cols%32 != 0 {
						t.Errorf("%s: %d columns", name, cols)
					}
				case strings.HasPrefix(name, "mm_"):
					mm++
				}
			})
			if mmq == 0 || full == 0 {
				t.Errorf("a %d-token prompt launched %d tile products, %d of them over %d tokens", MaxBatch, mmq, full, MaxBatch)
			}
			if mm != 0 {
				t.Errorf("a prompt of integer-type weights launched %d float batch products (mm_)", mm)
			}
			t.Logf("%d tile products, %d of them over %d tokens", mmq, full, MaxBatch)
		})
	}
}

// TestBatchProductsOnRecorder runs the batch products of every type with
// tile products on the recording driver: one quant_q8 over all the rows,
// shared by the products of one input; mmq_ launches whose every argument
// holds what the kernel reads (the weights, n rows of codes, scales and
// sums, n rows of output and of the epilogue's row) with 16-byte aligned
// weights and codes; Gated and LinearAdd with their epilogues; the float
// path for an MXFP4 neighbour; and no device allocation once the scratch
// has grown for a batch of MaxBatch rows.
func TestBatchProductsOnRecorder(t *testing.T) {
	for _, typ := range []tensor.Type{tensor.Q8_0, tensor.Q4_0, tensor.Q5_0, tensor.Q4_K, tensor.Q5_K, tensor.Q6_K,
		tensor.Q4_1, tensor.Q5_1, tensor.IQ4_NL, tensor.IQ4_XS, tensor.Q2_K, tensor.Q3_K,
		tensor.TQ1_0, tensor.TQ2_0, tensor.IQ2_XXS, tensor.IQ2_XS, tensor.IQ2_S, tensor.IQ3_XXS, tensor.IQ3_S, tensor.IQ1_S, tensor.IQ1_M} {
		t.Run(typ.String(), func(t *testing.T) {
			cols := 512
			if typ.BlockLen() == 32 {
				cols = 288 // a last step of one block
			}
			g, f := newFakeDevice(t)
			b, err := g.NewBackend()
			if err != nil {
				t.Fatal(err)
			}
			defer g.Close()
			defer b.Close()
			mat := func(typ tensor.Type, rows int) backend.Matrix {
				rb, _ := typ.RowBytes(uint64(cols))
				m, err := tensor.NewMatrix(typ, rows, cols, make([]byte, rows*int(rb)))
				if err != nil {
					t.Fatal(err)
				}
				w, err := b.Matrix(m)
				if err != nil {
					t.Fatal(err)
				}
				return w
			}
			w1, w2 := mat(typ, 200), mat(typ, 200)
			x, _ := b.Alloc(MaxBatch, cols)
			y1, _ := b.Alloc(MaxBatch, 200)
			y2, _ := b.Alloc(MaxBatch, 200)
			wide, _ := b.Alloc(MaxBatch, 256)
			s, _ := typeSuffix(typ)
			// The weights' and codes' 16-byte alignment is cp.async's and
			// the 4-byte loads', the scales' and sums' 4 bytes their
			// cp.async's: a misaligned one is a device fault, not a slow
			// load.
			extent := func(name string, a *cu.Args, i, need, align int) {
				p := cu.DevicePtr(a.Value(i))
				if buf, off, ok := f.find(p); !ok || off+need > len(buf) {
					t.Errorf("%s: argument %d (%#x) does not hold %d bytes", name, i, p, need)
				}
				if p%cu.DevicePtr(align) != 0 {
					t.Errorf("%s: argument %d (%#x) is not %d-byte aligned", name, i, p, align)
				}
			}
			var gl [][3]uint64 // each tile product's y, z and epilogue
			f.inspect = func(name string, grid, block [3]uint32, a *cu.Args) {
				if !strings.HasPrefix(name, "mmq_") {
					return
				}
				rb, rows, c, n := int(a.Value(1)), int(a.Value(2)), int(a.Value(3)), int(a.Value(8))
				extent(name, a, 0, rb*rows, 16)
				extent(name, a, 4, n*c, 16)
				extent(name, a, 5, 4*n*c/32, 4)
				extent(name, a, 6, 4*n*c/32, 4)
				extent(name, a, 7, 4*n*rows, 4)
				if epi := int32(a.Value(11)); epi != 0 {
					extent(name, a, 10, 4*n*rows, 4)
				}
				// Every row's blocks keep the alignment of their loads
				// (mmq_chunk: 32-bit ones for Q4_K, Q5_K and Q2_K, 16-bit
				// ones elsewhere), every token's codes their 16 bytes.
				ra := 2
				if typ == tensor.Q4_K || typ == tensor.Q5_K || typ == tensor.Q2_K {
					ra = 4
				}
				if rb%ra != 0 || c%32 != 0 {
					t.Errorf("%s: rows of %d bytes and %d columns: a row's blocks or a token's codes lose their alignment", name, rb, c)
				}
				if want := [3]uint32{blocks(n, mmqTile), blocks(rows, mmqTile), 1}; grid != want {
					t.Errorf("%s: grid %v for %d rows over %d tokens, want %v", name, grid, rows, n, want)
				}
				gl = append(gl, [3]uint64{a.Value(7), a.Value(10), a.Value(11)})
			}
			names := func() string {
				var out []string
				for _, l := range f.launches {
					out = append(out, fmt.Sprintf("%s%v", l.name, l.grid))
				}
				return strings.Join(out, " ")
			}
			f.record = true
			// One quantisation of the 37 rows for both products.
			b.Linears(x, 37, backend.LinearOp{Dst: y1, W: w1}, backend.LinearOp{Dst: y2, W: w2})
			q8 := blocks(37*cols, 256)
			if got, want := names(), fmt.Sprintf("quant_q8[%d 1 1] mmq_%s[1 4 1] mmq_%s[1 4 1]", q8, s, s); got != want {
				t.Errorf("a batch's Linears launched %s, want %s", got, want)
			}
			p1, p2 := uint64(db(y1).p), uint64(db(y2).p)
			if want := [][3]uint64{{p1, 0, 0}, {p2, 0, 0}}; !slices.Equal(gl, want) {
				t.Errorf("Linears' tile products (y, z, epilogue): %#x, want %#x", gl, want)
			}
			// Gated: the gate's product, then the up product with the unit
			// in its epilogue; LinearAdd: the product added to dst.
			f.launches, gl = f.launches[:0], gl[:0]
			if !b.Gated(y1, y2, w1, w2, x, 37, backend.GLUGELU) {
				t.Error("Gated did not take a batch")
			}
			if !b.LinearAdd(y1, y2, w1, x, 37) || b.LinearAdd(wide, y2, w1, x, 37) {
				t.Error("LinearAdd took the wrong calls")
			}
			want := fmt.Sprintf("quant_q8[%[1]d 1 1] mmq_%[2]s[1 4 1] mmq_%[2]s[1 4 1] quant_q8[%[1]d 1 1] mmq_%[2]s[1 4 1]", q8, s)
			if got := names(); got != want {
				t.Errorf("Gated and LinearAdd launched\n%s, want\n%s", got, want)
			}
			if want := [][3]uint64{{p1, 0, 0}, {p2, p1, 2}, {p2, p1, 3}}; !slices.Equal(gl, want) {
				t.Errorf("the fused tile products (y, z, epilogue): %#x, want %#x", gl, want)
			}
			// An MXFP4 product among them: the float path for all, as the
			// CPU's.
			f.launches = f.launches[:0]
			b.Linears(x, 37, backend.LinearOp{Dst: y2, W: mat(tensor.MXFP4, 200)}, backend.LinearOp{Dst: y1, W: w1})
			if got, want := names(), fmt.Sprintf("quant_act[%[1]d 1 1] mm_mxfp4[50 5 1] mm_%[2]s[50 5 1]", blocks(37*cols, 256), s); got != want {
				t.Errorf("Linears with MXFP4 launched %s, want %s", got, want)
			}
			// A full batch: the scratch grown once, for MaxBatch rows.
			b.Linear(y1, w1, x, MaxBatch)
			mem := len(f.mem)
			for _, n := range []int{2, 255, MaxBatch} {
				b.Linear(y1, w1, x, n)
			}
			if len(f.mem) != mem {
				t.Errorf("batch products allocated %d times on the device", len(f.mem)-mem)
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
