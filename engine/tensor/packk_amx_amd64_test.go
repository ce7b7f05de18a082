package tensor

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// TestPackedQ4KAMX checks the AMX packed Q4_K prefill kernel bit for bit
// against the VNNI decode kernel, token by token, over several widths and
// group counts, and through Kernels: MatMul of token counts that mix
// sixteen-token groups, four-token groups, a padded three and single
// tokens equals MatVec per token.
func TestPackedQ4KAMX(t *testing.T) {
	var gemm16 [BF16 + 1]packedGemm4Fn
	if !useAMX(&gemm16) {
		t.Skip("no AMX (or the OS does not grant it)")
	}
	rng := rand.New(rand.NewPCG(49, 50))
	for _, cols := range []int{256, 768, 2048} {
		for _, groups := range []int{1, 2, 5} {
			t.Run(fmt.Sprintf("%dx%d", groups*16, cols), func(t *testing.T) {
				rows := groups * packRows
				data := randomWeights(rng, Q4_K, rows, cols)
				nsb := cols / QKK
				p := make([]byte, groups*nsb*packKBlockBytes)
				packQ4K(p, data, nsb, 0, groups)
				var buf actBuf
				buf.ensure(16, cols)
				x := randomVec(rng, 16*cols)
				for tok := range 16 {
					quantizeAct(buf.row(tok, cols), x[tok*cols:(tok+1)*cols])
				}
				const ostride = 101
				out := make([]float32, 15*ostride+rows)
				nb := cols / QK
				gemm16[Q4_K](p, act{qs: buf.qs[:16*cols], d: buf.d[:16*nb], s: buf.s[:16*nb]}, groups, out, ostride)
				one := make([]float32, rows)
				for tok := range 16 {
					rowsPackedQ4K(p, buf.row(tok, cols), one)
					for r := range rows {
						if got, want := out[tok*ostride+r], one[r]; math.Float32bits(got) != math.Float32bits(want) {
							t.Fatalf("row %d token %d: AMX %v, VNNI decode %v", r, tok, got, want)
						}
					}
				}
			})
		}
	}
	pool := NewPool(2)
	defer pool.Close()
	k := newKernelsVNNI(pool, true, true)
	for _, rows := range []int{16, 35, 128} {
		w, _ := NewMatrix(Q4_K, rows, 512, randomWeights(rng, Q4_K, rows, 512))
		p := k.Pack(w)
		for _, n := range []int{16, 19, 23, 37} {
			checkMatMulEqualsMatVec(t, k, p, randomVec(rng, n*512), n)
		}
	}
}
