package cuda

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/isagi-lab/isagi/engine/backend"
	"github.com/isagi-lab/isagi/engine/backend/cuda/cu"
	"github.com/isagi-lab/isagi/engine/tensor"
)

// mmfExtents checks an mmf_ launch's arguments on the recording driver:
// the weights (rows of rowBytes), n rows of cols activations and n rows of
// `rows` results lie inside allocations, the grid is a block a tile, 128
// threads; it returns rows, cols and n.
func mmfExtents(t *testing.T, f *fakeDriver, name string, grid, block [3]uint32, a *cu.Args) (int, int, int) {
	t.Helper()
	rb, rows, cols, n := int(int32(a.Value(1))), int(int32(a.Value(2))), int(int32(a.Value(3))), int(int32(a.Value(6)))
	if rows <= 0 || cols <= 0 || n < 2 || n > MaxBatch || rb < 2*cols {
		t.Errorf("%s: %d rows of %d bytes, %d columns, over %d tokens", name, rows, rb, cols, n)
		return rows, cols, n
	}
	for _, e := range []struct{ i, need int }{{0, rb*(rows-1) + 2*cols}, {4, 4 * n * cols}, {5, 4 * n * rows}} {
		p := cu.DevicePtr(a.Value(e.i))
		if buf, off, ok := f.find(p); !ok || off+e.need > len(buf) {
			t.Errorf("%s: argument %d (%#x) does not hold %d bytes", name, e.i, p, e.need)
		}
	}
	if want := [3]uint32{blocks(n, mmfTile), blocks(rows, mmfTile), 1}; grid != want || block != [3]uint32{128, 1, 1} {
		t.Errorf("%s: grid %v block %v for %d rows over %d tokens; want grid %v, 128 threads", name, grid, block, rows, n, want)
	}
	return rows, cols, n
}

// TestPrefillLaunchesMMF: a prompt of MaxBatch (256) tokens on F16 fixture
// models runs its F16 products as tile products on the tensor cores
// (mmf_), in one step of MaxBatch rows, each launch with the grid its
// product needs and arguments that hold what the kernel reads; no batch
// product of F16 weights falls back to the float kernel (mm_f16).
func TestPrefillLaunchesMMF(t *testing.T) {
	for _, path := range []string{
		fixture(t, "kjv", "kjv-f16.gguf"),
		fixture(t, "archs", "qwen3-f16.gguf"),
	} {
		t.Run(filepath.Base(path), func(t *testing.T) {
			var mmf, full, mm int
			promptOnRecorder(t, path, func(f *fakeDriver, name string, grid, block [3]uint32, a *cu.Args) {
				switch {
				case strings.HasPrefix(name, "mmf_"):
					mmf++
					if _, _, n := mmfExtents(t, f, name, grid, block, a); n == MaxBatch {
						full++
					}
				case name == "mm_f16" || name == "mm_bf16":
					mm++
				}
			})
			if mmf == 0 || full == 0 {
				t.Errorf("a %d-token prompt launched %d F16 tile products, %d of them over %d tokens", MaxBatch, mmf, full, MaxBatch)
			}
			if mm != 0 {
				t.Errorf("a prompt of F16 weights launched %d float batch products (mm_f16)", mm)
			}
			t.Logf("%d tile products, %d of them over %d tokens", mmf, full, MaxBatch)
		})
	}
}

// TestFloatBatchProductsOnRecorder runs the batch products of F16 and BF16
// weights on the recording driver, at a width whose rows are 16-byte
// aligned and one whose are not: Linears launch one mmf_ a product over
// the activations as they are (no quant_act); a full batch one over 4 × 4
// tiles; decode (n = 1) stays on mv_, and the float kernels' flag (Device.floatBatch) puts a batch on mm_.
func TestFloatBatchProductsOnRecorder(t *testing.T) {
	for _, typ := range []tensor.Type{tensor.F16, tensor.BF16} {
		for _, cols := range []int{256, 100} {
			t.Run(fmt.Sprintf("%v/%d", typ, cols), func(t *testing.T) {
				g, f := newFakeDevice(t)
				b, err := g.NewBackend()
				if err != nil {
					t.Fatal(err)
				}
				defer g.Close()
				defer b.Close()
				mat := func(rows int) backend.Matrix {
					m, err := tensor.NewMatrix(typ, rows, cols, make([]byte, rows*2*cols))
					if err != nil {
						t.Fatal(err)
					}
					w, err := b.Matrix(m)
					if err != nil {
						t.Fatal(err)
					}
					return w
				}
				w1, w2 := mat(200), mat(70)
				x, _ := b.Alloc(MaxBatch, cols)
				y1, _ := b.Alloc(MaxBatch, 200)
				y2, _ := b.Alloc(MaxBatch, 70)
				s, _ := typeSuffix(typ)
				f.inspect = func(name string, grid, block [3]uint32, a *cu.Args) {
					if strings.HasPrefix(name, "mmf_") {
						mmfExtents(t, f, name, grid, block, a)
					}
				}
				names := func() string {
					var out []string
					for _, l := range f.launches {
						out = append(out, fmt.Sprintf("%s%v", l.name, l.grid))
					}
					f.launches = f.launches[:0]
					return strings.Join(out, " ")
				}
				f.record = true
				b.Linears(x, 37, backend.LinearOp{Dst: y1, W: w1}, backend.LinearOp{Dst: y2, W: w2})
				if got, want := names(), fmt.Sprintf("mmf_%[1]s[1 4 1] mmf_%[1]s[1 2 1]", s); got != want {
					t.Errorf("a batch's Linears launched %s, want %s", got, want)
				}
				b.Linear(y1, w1, x, MaxBatch)
				b.Linear(y1, w1, x, 1)
				if got, want := names(), fmt.Sprintf("mmf_%[1]s[4 4 1] mv_%[1]s[200 1 1]", s); got != want {
					t.Errorf("a full batch and a decode step launched %s, want %s", got, want)
				}
				g.floatBatch = true
				b.Linear(y1, w1, x, 37)
				g.floatBatch = false
				if got, want := names(), fmt.Sprintf("mm_%s[50 5 1]", s); got != want {
					t.Errorf("the float kernels' flag launched %s, want %s", got, want)
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
}
