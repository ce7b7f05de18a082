package cuda

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/isagi-lab/isagi/engine/backend"
	"github.com/isagi-lab/isagi/engine/backend/cpu"
	"github.com/isagi-lab/isagi/engine/backend/cuda/internal/hostq"
	"github.com/isagi-lab/isagi/engine/tensor"
)

// mmfCases are TestGPUMMF's products: rows, columns, activation rows (a
// width of 100 has rows that are not 16-byte aligned).
var mmfCases = [][3]int{{200, 512, 2}, {200, 512, 37}, {200, 100, 67}, {130, 2048, 256}, {1000, 4096, 256}}

// mmfResult is one TestGPUMMF product's agreement, for the device check.
type mmfResult struct {
	Type     string  `json:"type"`
	Rows     int     `json:"rows"`
	Cols     int     `json:"cols"`
	N        int     `json:"n"`
	CPU      float64 `json:"max_err_cpu"`   // relative to Σ|w·x|
	Emulated float64 `json:"max_err_host"`  // against hostq.MMFProduct
	Float    float64 `json:"max_err_mm"`    // against mm_ (floatBatch)
	MMF      float64 `json:"mmf_us"`        // one launch, microseconds
	MM       float64 `json:"mm_us"`         // mm_'s
	Speedup  float64 `json:"speedup_vs_mm"` // mm_us / mmf_us
}

// TestGPUMMF runs the F16 and BF16 tile products (mmf_) on the GPU and
// compares every result with the CPU backend's product, the host
// harness's emulation of the launch and the float kernel (mm_), each to
// 4e-6 of the terms' magnitude Σ|w·x| (the three sum in different orders;
// the tensor cores round their sums their own way), and times one launch
// of each kernel (mmf.jsonl under ISAGI_DEVICE_OUT).
func TestGPUMMF(t *testing.T) {
	g := gpuDevice(t)
	if !hostq.Available {
		t.Skip("the host harness needs cgo")
	}
	b, err := g.NewBackend()
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	cb := cpu.New(nil)
	r := rand.New(rand.NewPCG(55, 57))
	for _, typ := range []tensor.Type{tensor.F16, tensor.BF16} {
		for _, c := range mmfCases {
			rows, cols, n := c[0], c[1], c[2]
			m := randomMatrix(t, typ, rows, cols, uint64(rows*cols)+5)
			data := m.Data
			gw, err := b.Matrix(m)
			if err != nil {
				t.Fatal(err)
			}
			cw, err := cb.Matrix(m)
			if err != nil {
				t.Fatal(err)
			}
			x := make([]float32, n*cols)
			for i := range x {
				x[i] = float32(r.NormFloat64() * math.Ldexp(1, r.IntN(17)-8))
			}
			gx, _ := b.Alloc(n, cols)
			gy, _ := b.Alloc(n, rows)
			b.Write(gx, 0, x)
			b.Linear(gy, gw, gx, n)
			got := append([]float32(nil), b.Host(gy, 0, n)...)
			// The host's emulation of the launch, but for the widest
			// case (seconds of the device machine's CPU).
			emu := make([]float32, n*rows)
			if rows*cols*n <= 200*2048*256 {
				if err := hostq.MMFProduct(typ, data, 2*cols, rows, cols, x, emu, n, 0, cols%8 == 0, cols%4 == 0, false); err != nil {
					t.Fatal(err)
				}
			} else {
				copy(emu, got)
			}
			cx, _ := cb.Alloc(n, cols)
			cy, _ := cb.Alloc(n, rows)
			cb.Write(cx, 0, x)
			cb.Linear(cy, cw, cx, n)
			ref := cb.Host(cy, 0, n)
			g.floatBatch = true
			b.Linear(gy, gw, gx, n)
			g.floatBatch = false
			flt := append([]float32(nil), b.Host(gy, 0, n)...)
			if err := b.Err(); err != nil {
				t.Fatal(err)
			}
			wf := make([]float64, rows*cols)
			for i := range wf {
				h := uint16(data[2*i]) | uint16(data[2*i+1])<<8
				if typ == tensor.F16 {
					wf[i] = float64(tensor.F16ToF32(h))
				} else {
					wf[i] = float64(tensor.BF16ToF32(h))
				}
			}
			res := mmfResult{Type: typ.String(), Rows: rows, Cols: cols, N: n}
			for tok := range n {
				for i := range rows {
					var mag float64
					for k := range cols {
						mag += math.Abs(wf[i*cols+k] * float64(x[tok*cols+k]))
					}
					at := tok*rows + i
					for _, w := range []struct {
						v   float32
						who string
						e   *float64
					}{{ref[at], "the CPU's", &res.CPU}, {emu[at], "the host emulation's", &res.Emulated}, {flt[at], "mm_'s", &res.Float}} {
						e := math.Abs(float64(got[at])-float64(w.v)) / (mag + 1e-30)
						if !(e <= 4e-6) {
							t.Fatalf("%v, %d×%d, %d rows: token %d row %d is %g on the tensor cores, %s %g (error %.2g of Σ|w·x|)",
								typ, rows, cols, n, tok, i, got[at], w.who, w.v, e)
						}
						*w.e = max(*w.e, e)
					}
				}
			}
			res.MMF = mmfTime(t, b, gy, func() { b.Linear(gy, gw, gx, n) })
			g.floatBatch = true
			res.MM = mmfTime(t, b, gy, func() { b.Linear(gy, gw, gx, n) })
			g.floatBatch = false
			res.Speedup = res.MM / res.MMF
			t.Logf("%+v", res)
			record(t, "mmf.jsonl", res)
			b.Release(gw)
		}
	}
}

// mmfTime is the mean wall time of f over 20 runs after a warm-up, in
// microseconds, the host waiting for the device (a copy of one row of
// y) before and after them.
func mmfTime(t *testing.T, b *Backend, y backend.Buffer, f func()) float64 {
	f()
	b.Host(y, 0, 1)
	start := time.Now()
	for range 20 {
		f()
	}
	b.Host(y, 0, 1)
	if err := b.Err(); err != nil {
		t.Fatal(err)
	}
	return float64(time.Since(start).Microseconds()) / 20
}
