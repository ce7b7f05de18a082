package cuda

import (
	"math"
	"math/rand/v2"
	"testing"
	"unsafe"

	"github.com/isagi-lab/isagi/engine/backend"
	"github.com/isagi-lab/isagi/engine/backend/cuda/internal/hostq"
	"github.com/isagi-lab/isagi/engine/tensor"
)

// checkFusions compares each fused decode launch on the GPU with the
// unfused sequence it replaces, bit for bit: rmsnorm_q8 with rmsnorm then
// quant_q8 (the float row and the int8 codes, scales and sums), and the
// quantisation with the host harness's emulation of quant_q8; Gated with
// Linears then SwiGLU or GeGLU (g and u); LinearAdd with Linear then Add
// (the stream and the product's row); RoPEStoreKV with RoPE, RoPE and
// StoreKV (checkGated, checkRoPEStore).
func checkFusions(t *testing.T, b *Backend) {
	r := rand.New(rand.NewPCG(52, 52))
	for _, cols := range []int{576, 2048, 4096, 14336} {
		x, w := make([]float32, cols), make([]float32, cols)
		for i := range x {
			x[i], w[i] = float32(3*r.NormFloat64()), float32(1+0.2*r.NormFloat64())
		}
		x[7] = 0 // a block of small values next to large ones
		gx, _ := b.Alloc(1, cols)
		gf, _ := b.Alloc(1, cols)
		gu, _ := b.Alloc(1, cols)
		gw, err := b.Vector(w)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(gx, 0, x)
		qbytes := func() []byte {
			qb := make([]byte, cols+8*(cols/32))
			if err := b.g.with(func() error { return b.g.d.DtoH(unsafe.Pointer(&qb[0]), b.q8, uint64(len(qb))) }); err != nil {
				t.Fatal(err)
			}
			return qb
		}
		// Fused: the norm quantises its output.
		b.RMSNorm(gf, gx, gw, 1, 1e-5)
		fused := append([]float32(nil), b.Host(gf, 0, 1)...)
		fq := qbytes()
		// Unfused: rmsnorm (the float path's), then quant_q8 of its output.
		b.g.floatDecode = true
		b.RMSNorm(gu, gx, gw, 1, 1e-5)
		b.g.floatDecode = false
		if b.enter() {
			b.quantQ8(db(gu).p, cols)
			b.leave()
		}
		plain := append([]float32(nil), b.Host(gu, 0, 1)...)
		uq := qbytes()
		if err := b.Err(); err != nil {
			t.Fatal(err)
		}
		for i := range plain {
			if math.Float32bits(fused[i]) != math.Float32bits(plain[i]) {
				t.Fatalf("%d: rmsnorm_q8's value %d is %g, rmsnorm's %g", cols, i, fused[i], plain[i])
			}
		}
		for i := range uq {
			if fq[i] != uq[i] {
				t.Fatalf("%d: rmsnorm_q8's quantisation differs from quant_q8's at byte %d", cols, i)
			}
		}
		if hostq.Available {
			q, _, _ := hostq.QuantAct8(plain)
			for i := range q {
				if int8(fq[i]) != q[i] {
					t.Fatalf("%d: rmsnorm_q8's code %d is %d, the harness's %d", cols, i, int8(fq[i]), q[i])
				}
			}
		}
		b.ReleaseVector(gw)
	}
}

// checkGated compares Gated with Linears and the activation, and
// LinearAdd with Linear and Add, on the GPU.
func checkGated(t *testing.T, b *Backend) {
	r := rand.New(rand.NewPCG(53, 53))
	for _, typ := range []tensor.Type{tensor.Q8_0, tensor.Q4_K, tensor.Q6_K, tensor.IQ4_XS} {
		for _, shape := range [][2]int{{96, 512}, {mvqMinRows, 2048}} {
			rows, cols := shape[0], shape[1]
			mat := func(seed uint64) backend.Matrix {
				w, err := b.Matrix(randomMatrix(t, typ, rows, cols, seed))
				if err != nil {
					t.Fatal(err)
				}
				return w
			}
			wg, wu := mat(1), mat(2)
			x := make([]float32, cols)
			for i := range x {
				x[i] = float32(r.NormFloat64())
			}
			gx, _ := b.Alloc(1, cols)
			b.Write(gx, 0, x)
			// LinearAdd against Linear then Add, from the same stream.
			res := make([]float32, rows)
			for i := range res {
				res[i] = float32(r.NormFloat64())
			}
			s1, _ := b.Alloc(1, rows)
			s2, _ := b.Alloc(1, rows)
			y1, _ := b.Alloc(1, rows)
			y2, _ := b.Alloc(1, rows)
			b.Write(s1, 0, res)
			b.Write(s2, 0, res)
			if !b.LinearAdd(s1, y1, wg, gx, 1) {
				t.Fatalf("%v: LinearAdd did not take a decode", typ)
			}
			b.Linear(y2, wg, gx, 1)
			b.Add(s2, y2, 1)
			for _, p := range [][2]backend.Buffer{{s1, s2}, {y1, y2}} {
				got, want := append([]float32(nil), b.Host(p[0], 0, 1)...), b.Host(p[1], 0, 1)
				for i := range got {
					if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
						t.Fatalf("%v %d×%d: LinearAdd's row %d is %g, Linear and Add's %g", typ, rows, cols, i, got[i], want[i])
					}
				}
			}
			for _, act := range []backend.GLU{backend.GLUSiLU, backend.GLUGELU} {
				g1, _ := b.Alloc(1, rows)
				u1, _ := b.Alloc(1, rows)
				g2, _ := b.Alloc(1, rows)
				u2, _ := b.Alloc(1, rows)
				if !b.Gated(g1, u1, wg, wu, gx, 1, act) {
					t.Fatalf("%v: Gated did not take a decode", typ)
				}
				b.Linears(gx, 1, backend.LinearOp{Dst: g2, W: wg}, backend.LinearOp{Dst: u2, W: wu})
				if act == backend.GLUGELU {
					b.GeGLU(g2, u2, 1)
				} else {
					b.SwiGLU(g2, u2, 1)
				}
				for _, p := range [][2]backend.Buffer{{g1, g2}, {u1, u2}} {
					got, want := append([]float32(nil), b.Host(p[0], 0, 1)...), b.Host(p[1], 0, 1)
					for i := range got {
						if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
							t.Fatalf("%v %d×%d act %d: Gated's row %d is %g, Linears and the activation's %g", typ, rows, cols, act, i, got[i], want[i])
						}
					}
				}
			}
			b.Release(wg)
			b.Release(wu)
			if err := b.Err(); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// checkRoPEStore compares RoPEStoreKV with RoPE, RoPE and StoreKV on the
// GPU: the turned queries and keys and the cached keys and values, for a
// full and a partial NEOX rotation with divisors.
func checkRoPEStore(t *testing.T, b *Backend) {
	r := rand.New(rand.NewPCG(54, 54))
	const heads, kvh, hd, n = 8, 2, 128, 3
	a := backend.Attention{Heads: heads, KVHeads: kvh, HeadDim: hd}
	freqs := make([]float32, 32)
	for i := range freqs {
		freqs[i] = 1 + float32(i)/8
	}
	for _, rope := range []backend.Rope{{Base: 500000, Dim: hd}, {Base: 10000, Dim: 64, Neox: true, Freqs: freqs}} {
		var caches [2]backend.KV
		var qs, ks [2]backend.Buffer
		rows := func(w int) []float32 {
			x := make([]float32, n*w)
			for i := range x {
				x[i] = float32(r.NormFloat64())
			}
			return x
		}
		q0, k0, v0 := rows(heads*hd), rows(kvh*hd), rows(kvh*hd)
		for i := range caches {
			c, err := b.NewKV(2, 64, a)
			if err != nil {
				t.Fatal(err)
			}
			caches[i] = c
			qs[i], _ = b.Alloc(n, heads*hd)
			ks[i], _ = b.Alloc(n, kvh*hd)
			v, _ := b.Alloc(n, kvh*hd)
			b.Write(qs[i], 0, q0)
			b.Write(ks[i], 0, k0)
			b.Write(v, 0, v0)
			if i == 0 {
				if !b.RoPEStoreKV(qs[i], ks[i], v, c, 1, 9, 40, n, heads, kvh, hd, rope) {
					t.Fatal("RoPEStoreKV did not take the call")
				}
				continue
			}
			b.RoPE(qs[i], n, heads, hd, 40, rope)
			b.RoPE(ks[i], n, kvh, hd, 40, rope)
			b.StoreKV(c, 1, 9, n, ks[i], v)
		}
		same := func(what string, x, y []float32) {
			for i := range x {
				if math.Float32bits(x[i]) != math.Float32bits(y[i]) {
					t.Fatalf("rope dim %d: %s %d is %g fused, %g unfused", rope.Dim, what, i, x[i], y[i])
				}
			}
		}
		same("q", append([]float32(nil), b.Host(qs[0], 0, n)...), b.Host(qs[1], 0, n))
		same("k", append([]float32(nil), b.Host(ks[0], 0, n)...), b.Host(ks[1], 0, n))
		for p := 9; p < 9+n; p++ {
			var kv [2][2][]float32
			for i := range caches {
				kv[i] = [2][]float32{make([]float32, kvh*hd), make([]float32, kvh*hd)}
				b.ReadKV(caches[i], 1, p, kv[i][0], kv[i][1])
			}
			same("cached k", kv[0][0], kv[1][0])
			same("cached v", kv[0][1], kv[1][1])
		}
		if err := b.Err(); err != nil {
			t.Fatal(err)
		}
	}
}
