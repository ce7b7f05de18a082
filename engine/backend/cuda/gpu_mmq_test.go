package cuda

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"unsafe"

	"github.com/isagi-lab/isagi/engine/backend"
	"github.com/isagi-lab/isagi/engine/backend/cpu"
	"github.com/isagi-lab/isagi/engine/backend/cuda/internal/hostq"
	"github.com/isagi-lab/isagi/engine/tensor"
)

// mmqTypes are the types with tile products on tensor cores (dp4aType's).
var mmqTypes = []tensor.Type{tensor.Q8_0, tensor.Q4_0, tensor.Q5_0, tensor.Q4_K, tensor.Q5_K, tensor.Q6_K,
	tensor.Q4_1, tensor.Q5_1, tensor.IQ4_NL, tensor.IQ4_XS, tensor.Q2_K, tensor.Q3_K,
	tensor.TQ1_0, tensor.TQ2_0, tensor.IQ2_XXS, tensor.IQ2_XS, tensor.IQ2_S, tensor.IQ3_XXS, tensor.IQ3_S, tensor.IQ1_S, tensor.IQ1_M}

// mmqCases are TestGPUMMQ's products: rows, columns, activation rows.
var mmqCases = [][3]int{{200, 512, 2}, {200, 512, 8}, {200, 512, 37}, {200, 512, 256}, {1000, 4096, 37}, {130, 2048, 256}}

// TestGPUMMQ runs the tile products (mmq_) on the GPU for every type at
// n = 2, 8, 37 and 256 rows of activations, and compares quant_q8's codes
// with the host harness's (bit for bit), every product with the harness's
// emulation of the whole launch (bit for bit: the same integer sums and
// the same float operations in the same order), and a sample of tokens
// with the CPU backend's product (relative to the terms' magnitude, 1e-5)
// and with the float kernels (mm_, 1e-3: they read the activations
// rounded to floats). Then Gated and LinearAdd over a batch against their
// unfused operations.
func TestGPUMMQ(t *testing.T) {
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
	r := rand.New(rand.NewPCG(55, 55))
	for _, typ := range mmqTypes {
		for _, c := range mmqCases {
			rows, cols, n := c[0], c[1], c[2]
			rb, _ := typ.RowBytes(uint64(cols))
			m := randomMatrix(t, typ, rows, cols, uint64(rows*cols)+3)
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
				x[i] = float32(r.NormFloat64())
			}
			gx, _ := b.Alloc(n, cols)
			gy, _ := b.Alloc(n, rows)
			b.Write(gx, 0, x)
			b.Linear(gy, gw, gx, n)
			got := append([]float32(nil), b.Host(gy, 0, n)...)
			count := n * cols
			qb := make([]byte, count+8*(count/32))
			if err := b.g.with(func() error { return b.g.d.DtoH(unsafe.Pointer(&qb[0]), b.q8, uint64(len(qb))) }); err != nil {
				t.Fatal(err)
			}
			if err := b.Err(); err != nil {
				t.Fatal(err)
			}
			q, d, s := hostq.QuantAct8(x)
			for i := range q {
				if int8(qb[i]) != q[i] {
					t.Fatalf("%v, %d rows: quant_q8's code %d is %d, the harness's %d", typ, n, i, int8(qb[i]), q[i])
				}
			}
			for k := range d {
				gd := math.Float32frombits(binary.LittleEndian.Uint32(qb[count+4*k:]))
				gs := math.Float32frombits(binary.LittleEndian.Uint32(qb[count+4*(count/32)+4*k:]))
				if math.Float32bits(gd) != math.Float32bits(d[k]) || math.Float32bits(gs) != math.Float32bits(s[k]) {
					t.Fatalf("%v, %d rows: quant_q8's block %d has d %g s %g, the harness's %g %g", typ, n, k, gd, gs, d[k], s[k])
				}
			}
			emu := make([]float32, n*rows)
			if _, err := hostq.MMQProduct(typ, data, int(rb), rows, cols, q, d, s, emu, n, 0, false); err != nil {
				t.Fatal(err)
			}
			cx, _ := cb.Alloc(n, cols)
			cy, _ := cb.Alloc(n, rows)
			cb.Write(cx, 0, x)
			cb.Linear(cy, cw, cx, n)
			ref := cb.Host(cy, 0, n)
			g.floatBatch = true
			b.Linear(gy, gw, gx, n)
			g.floatBatch = false
			flt := b.Host(gy, 0, n)
			for at := range got {
				if math.Float32bits(got[at]) != math.Float32bits(emu[at]) {
					t.Fatalf("%v, %d×%d, %d rows: token %d row %d is %g on the GPU, %g in the harness's emulation", typ, rows, cols, n, at/rows, at%rows, got[at], emu[at])
				}
			}
			for _, tok := range []int{0, 1, n / 2, n - 1} {
				qt, dt, st := q[tok*cols:(tok+1)*cols], d[tok*cols/32:(tok+1)*cols/32], s[tok*cols/32:(tok+1)*cols/32]
				for i := range rows {
					at := tok*rows + i
					var mag float64
					for _, p := range hostq.Pieces(typ, data[i*int(rb):(i+1)*int(rb)], cols, qt, dt, st) {
						mag += math.Abs(float64(p.Acc)) + 16*math.Abs(float64(p.AccM))
					}
					if e := math.Abs(float64(got[at])-float64(ref[at])) / (mag + 1e-30); !(e <= 1e-5) {
						t.Fatalf("%v, %d×%d, %d rows: token %d row %d is %g on the GPU, %g on the CPU (error %.2g)", typ, rows, cols, n, tok, i, got[at], ref[at], e)
					}
					if e := math.Abs(float64(got[at])-float64(flt[at])) / (mag + 1e-30); !(e <= 1e-3) {
						t.Fatalf("%v, %d×%d, %d rows: token %d row %d is %g on the tensor cores, %g on the float kernel (error %.2g)", typ, rows, cols, n, tok, i, got[at], flt[at], e)
					}
				}
			}
			b.Release(gw)
		}
	}
	checkBatchFusions(t, b)
}

// checkBatchFusions compares Gated and LinearAdd over a batch (the tile
// products' epilogue) with Linears and the activation, and with Linear and
// Add: bit for bit.
func checkBatchFusions(t *testing.T, b *Backend) {
	r := rand.New(rand.NewPCG(56, 56))
	const n, rows, cols = 37, 200, 1024
	for _, typ := range []tensor.Type{tensor.Q8_0, tensor.Q4_K, tensor.Q6_K} {
		mat := func(seed uint64) backend.Matrix {
			w, err := b.Matrix(randomMatrix(t, typ, rows, cols, seed))
			if err != nil {
				t.Fatal(err)
			}
			return w
		}
		wg, wu := mat(1), mat(2)
		x := make([]float32, n*cols)
		for i := range x {
			x[i] = float32(r.NormFloat64())
		}
		gx, _ := b.Alloc(n, cols)
		b.Write(gx, 0, x)
		res := make([]float32, n*rows)
		for i := range res {
			res[i] = float32(r.NormFloat64())
		}
		s1, _ := b.Alloc(n, rows)
		s2, _ := b.Alloc(n, rows)
		y1, _ := b.Alloc(n, rows)
		y2, _ := b.Alloc(n, rows)
		b.Write(s1, 0, res)
		b.Write(s2, 0, res)
		if !b.LinearAdd(s1, y1, wg, gx, n) {
			t.Fatalf("%v: LinearAdd did not take a batch", typ)
		}
		b.Linear(y2, wg, gx, n)
		b.Add(s2, y2, n)
		same := func(what string, p, q backend.Buffer) {
			got, want := append([]float32(nil), b.Host(p, 0, n)...), b.Host(q, 0, n)
			for i := range got {
				if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
					t.Fatalf("%v: %s's value %d is %g, the unfused operations' %g", typ, what, i, got[i], want[i])
				}
			}
		}
		same("LinearAdd", s1, s2)
		same("LinearAdd's product", y1, y2)
		for _, act := range []backend.GLU{backend.GLUSiLU, backend.GLUGELU} {
			g1, _ := b.Alloc(n, rows)
			u1, _ := b.Alloc(n, rows)
			g2, _ := b.Alloc(n, rows)
			u2, _ := b.Alloc(n, rows)
			if !b.Gated(g1, u1, wg, wu, gx, n, act) {
				t.Fatalf("%v: Gated did not take a batch", typ)
			}
			b.Linears(gx, n, backend.LinearOp{Dst: g2, W: wg}, backend.LinearOp{Dst: u2, W: wu})
			if act == backend.GLUGELU {
				b.GeGLU(g2, u2, n)
			} else {
				b.SwiGLU(g2, u2, n)
			}
			same("Gated", g1, g2)
			same("Gated's up product", u1, u2)
		}
		b.Release(wg)
		b.Release(wu)
		if err := b.Err(); err != nil {
			t.Fatal(err)
		}
	}
}

// BenchmarkGPUMMQ times one product of n = 256 rows at the shapes of an
// 8B model's layer (the attention's 4096 × 4096, the FFN's 14336 × 4096
// and 4096 × 14336) for the common types, on the tensor cores (mmq_, with
// its quant_q8) and on the float kernels (mm_, with its quant_act), and
// records the rate in multiply-adds (TOPS = 2·rows·cols·n a second) to
// ISAGI_DEVICE_OUT/mmq.jsonl: what issue 55 asks to tune on a GPU.
func BenchmarkGPUMMQ(b *testing.B) {
	g := gpuDevice(b)
	be, err := g.NewBackend()
	if err != nil {
		b.Fatal(err)
	}
	defer be.Close()
	const n = 256
	for _, typ := range []tensor.Type{tensor.Q4_K, tensor.Q6_K, tensor.Q8_0, tensor.Q4_0} {
		for _, sh := range [][2]int{{4096, 4096}, {14336, 4096}, {4096, 14336}} {
			rows, cols := sh[0], sh[1]
			w, err := be.Matrix(randomMatrix(b, typ, rows, cols, uint64(rows+cols)))
			if err != nil {
				b.Fatal(err)
			}
			x, _ := be.Alloc(n, cols)
			y, _ := be.Alloc(n, rows)
			xs := make([]float32, n*cols)
			for i := range xs {
				xs[i] = float32(i%29)/29 - 0.5
			}
			be.Write(x, 0, xs)
			for _, path := range []string{"mmq", "mm"} {
				b.Run(fmt.Sprintf("%v/%dx%d/%s", typ, rows, cols, path), func(b *testing.B) {
					g.floatBatch = path == "mm"
					defer func() { g.floatBatch = false }()
					be.Linear(y, w, x, n)
					be.Host(y, 0, 1) // waits for the device
					// The launches return before the device has run them:
					// each timed iteration waits for its products, so the
					// time is the device's (with -benchtime 1x, timing the
					// launches alone gave 2,760 "TOPS" on an H200, past
					// its int8 peak).
					const reps = 20
					for b.Loop() {
						for range reps {
							be.Linear(y, w, x, n)
						}
						be.Host(y, 0, 1)
					}
					if err := be.Err(); err != nil {
						b.Fatal(err)
					}
					us := b.Elapsed().Seconds() * 1e6 / float64(b.N*reps)
					tops := 2 * float64(rows) * float64(cols) * n / (us * 1e-6) / 1e12
					b.ReportMetric(us, "µs/product")
					b.ReportMetric(tops, "TOPS")
					record(b, "mmq.jsonl", map[string]any{"type": typ.String(), "rows": rows, "cols": cols, "n": n, "path": path,
						"us_per_product": us, "tops": tops, "device": g.Name()})
				})
			}
			be.Release(w)
		}
	}
}
