package tensor

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// TestPackedQ6K checks that packing changes no Q6_K result: the packed
// decode kernel gives bit for bit what the GGUF-layout kernels give (the
// installed one-token kernel, the VNNI or the AVX2 one, and the four-token
// one), and the packed four-token kernel bit for bit the packed decode
// kernel per token, over several widths and group counts; both stay close
// to the float64 dot of the dequantised row.
func TestPackedQ6K(t *testing.T) {
	if !hasZMM {
		t.Skip("no AVX-512 VNNI")
	}
	rng := rand.New(rand.NewPCG(45, 46))
	k := newKernelsVNNI(NewPool(1), true, true)
	for _, cols := range []int{256, 768, 2048} {
		for _, groups := range []int{1, 2, 5} {
			t.Run(fmt.Sprintf("%dx%d", groups*16, cols), func(t *testing.T) {
				rows := groups * packRows
				data := randomWeights(rng, Q6_K, rows, cols)
				nsb := cols / QKK
				p := make([]byte, groups*nsb*packK6BlockBytes)
				packQ6K(p, data, nsb, 0, groups)
				var buf actBuf
				buf.ensure(4, cols)
				x := randomVec(rng, 4*cols)
				for tok := range 4 {
					quantizeAct(buf.row(tok, cols), x[tok*cols:(tok+1)*cols])
				}
				buf.prepM4(4, cols)
				nb := cols / QK
				a4 := act{qs: buf.qs[:4*cols], d: buf.d[:4*nb], s: buf.s[:4*nb], m4: buf.m4}
				const ostride = 97
				gguf4 := make([]float32, 3*ostride+rows)
				k.gemm4[Q6_K](data, nil, a4, rows, gguf4, ostride)
				one := make([]float32, 4*rows)
				gguf := make([]float32, rows)
				rb := len(data) / rows
				for tok := range 4 {
					a := buf.row(tok, cols)
					rowsPackedQ6K(p, a, one[tok*rows:(tok+1)*rows])
					k.rows[Q6_K](data, nil, a, gguf)
					xseen := actValues(x[tok*cols : (tok+1)*cols])
					for r := range rows {
						got := one[tok*rows+r]
						if want := gguf[r]; math.Float32bits(got) != math.Float32bits(want) {
							t.Fatalf("row %d token %d: packed %v, GGUF layout %v", r, tok, got, want)
						}
						if want := gguf4[tok*ostride+r]; math.Float32bits(got) != math.Float32bits(want) {
							t.Fatalf("row %d token %d: packed %v, GGUF four-token %v", r, tok, got, want)
						}
						exact, mag := refDot(t, Q6_K, data[r*rb:(r+1)*rb], xseen)
						if d := math.Abs(float64(got) - exact); d > 1e-5*mag+1e-30 {
							t.Fatalf("row %d token %d: %v, float64 %v (|diff| %g > 1e-5·%g)", r, tok, got, exact, d, mag)
						}
					}
				}
				four := make([]float32, 3*ostride+rows)
				gemm4PackedQ6K(p, a4, groups, four, ostride)
				requireFourEqualsOne(t, four, one, rows, ostride)
			})
		}
	}
}

// TestPackedQ6KProducts: through Kernels, a packed Q6_K matrix gives bit
// for bit what the same matrix gives unpacked, in MatVec and in MatMul of
// every token count the prefill splits differently (a padded three, whole
// groups of four, a one-token tail), packed rows and unpacked tail rows
// alike; fused with another product in MatVecs too.
func TestPackedQ6KProducts(t *testing.T) {
	if !hasZMM {
		t.Skip("no AVX-512 VNNI")
	}
	pool := NewPool(2)
	defer pool.Close()
	k := newKernelsVNNI(pool, true, true)
	rng := rand.New(rand.NewPCG(47, 48))
	for _, cols := range []int{256, 1536} {
		for _, rows := range []int{16, 35, 128} {
			w, _ := NewMatrix(Q6_K, rows, cols, randomWeights(rng, Q6_K, rows, cols))
			p := k.Pack(w)
			if p == w || p.Packed() != rows&^15 {
				t.Fatalf("%d×%d: Pack gave %d packed rows", rows, cols, p.Packed())
			}
			for _, n := range []int{1, 3, 4, 5, 9} {
				x := randomVec(rng, n*cols)
				want := make([]float32, n*rows)
				got := make([]float32, n*rows)
				k.MatMul(want, w, x, n)
				k.MatMul(got, p, x, n)
				for i := range want {
					if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
						t.Fatalf("%d×%d, %d tokens: token %d row %d packed %v, unpacked %v", rows, cols, n, i/rows, i%rows, got[i], want[i])
					}
				}
			}
			// Fused with an unpacked product of another type, which
			// leaves the corrections unread.
			o, _ := NewMatrix(Q8_0, 32, cols, randomWeights(rng, Q8_0, 32, cols))
			x := randomVec(rng, cols)
			want, got := make([]float32, rows), make([]float32, rows)
			y0, y1 := make([]float32, 32), make([]float32, 32)
			k.MatVecs(x, MatVecOp{Dst: want, W: w}, MatVecOp{Dst: y0, W: o})
			k.MatVecs(x, MatVecOp{Dst: y1, W: o}, MatVecOp{Dst: got, W: p})
			for r := range want {
				if math.Float32bits(got[r]) != math.Float32bits(want[r]) {
					t.Fatalf("%d×%d fused: row %d packed %v, unpacked %v", rows, cols, r, got[r], want[r])
				}
			}
		}
	}
}

// BenchmarkPackedQ6K times Q6_K's kernels, packed against the GGUF layout
// (benchPacked).
func BenchmarkPackedQ6K(b *testing.B) {
	benchPacked(b, Q6_K, q6KBytes, packK6BlockBytes, packQ6K, rowsPackedQ6K, gemm4PackedQ6K)
}
