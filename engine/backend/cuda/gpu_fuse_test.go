package cuda

import (
	"math"
	"math/rand/v2"
	"testing"
	"unsafe"

	"github.com/isagi-lab/isagi/engine/backend/cuda/internal/hostq"
)

// checkFusions compares each fused decode launch on the GPU with the
// unfused sequence it replaces, bit for bit: rmsnorm_q8 with rmsnorm then
// quant_q8 (the float row and the int8 codes, scales and sums), and the
// quantisation with the host harness's emulation of quant_q8.
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
