package tensor

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// TestPackedAMX checks the AMX packed prefill kernels (Q4_K, Q5_K, IQ4_XS)
// bit for bit against the VNNI decode kernels, token by token, over
// several widths and group counts, and through Kernels: MatMul of token
// counts that mix sixteen-token groups, four-token groups, a padded three
// and single tokens equals MatVec per token.
func TestPackedAMX(t *testing.T) {
	var gemm16 [typeSlots]packedGemm4Fn
	if !useAMX(&gemm16) {
		t.Skip("no AMX (or the OS does not grant it)")
	}
	rng := rand.New(rand.NewPCG(49, 50))
	for _, c := range []struct {
		typ  Type
		bb   int // packed bytes a super-block column of a group
		pack func(dst, src []byte, nsb, g0, g1 int)
		rows packedRowsFn
	}{
		{Q4_K, packKBlockBytes, packQ4K, rowsPackedQ4K},
		{Q5_K, packK5BlockBytes, packQ5K, rowsPackedQ5K},
		{IQ4_XS, packXSBlockBytes, packIQ4XS, rowsPackedIQ4XS},
	} {
		for _, cols := range []int{256, 768, 2048} {
			for _, groups := range []int{1, 2, 5} {
				t.Run(fmt.Sprintf("%s/%dx%d", c.typ, groups*16, cols), func(t *testing.T) {
					rows := groups * packRows
					data := randomWeights(rng, c.typ, rows, cols)
					nsb := cols / QKK
					p := make([]byte, groups*nsb*c.bb)
					c.pack(p, data, nsb, 0, groups)
					var buf actBuf
					buf.ensure(16, cols)
					x := randomVec(rng, 16*cols)
					for tok := range 16 {
						quantizeAct(buf.row(tok, cols), x[tok*cols:(tok+1)*cols])
					}
					const ostride = 101
					out := make([]float32, 15*ostride+rows)
					nb := cols / QK
					gemm16[c.typ](p, act{qs: buf.qs[:16*cols], d: buf.d[:16*nb], s: buf.s[:16*nb]}, groups, out, ostride)
					one := make([]float32, rows)
					for tok := range 16 {
						c.rows(p, buf.row(tok, cols), one)
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
		k := newKernelsVNNI(pool, true, true)
		for _, rows := range []int{16, 35, 128} {
			w, _ := NewMatrix(c.typ, rows, 512, randomWeights(rng, c.typ, rows, 512))
			p := k.Pack(w)
			for _, n := range []int{16, 19, 23, 37} {
				checkMatMulEqualsMatVec(t, k, p, randomVec(rng, n*512), n)
			}
		}
		pool.Close()
	}
}

// benchAMX16 adds the "gemm16/amx" case to a packed type's benchmark where
// the kernels have an AMX kernel for typ: the same 64-row tiles and tokens
// as its "gemm4/packed" case, sixteen tokens a call; gb is the packed
// bytes of a group.
func benchAMX16(b *testing.B, k *Kernels, typ Type, p []byte, gb int, buf *actBuf, rows, cols, n int, out []float32) {
	if k.pgemm16[typ] == nil {
		return
	}
	b.Run("gemm16/amx", func(b *testing.B) {
		nb := cols / QK
		for range b.N {
			for r0 := 0; r0 < rows; r0 += 64 {
				for i0 := 0; i0 < n; i0 += 16 {
					a := act{qs: buf.qs[i0*cols : (i0+16)*cols], d: buf.d[i0*nb : (i0+16)*nb], s: buf.s[i0*nb : (i0+16)*nb]}
					k.pgemm16[typ](p[r0/packRows*gb:(r0+64)/packRows*gb], a, 4, out[i0*rows+r0:], rows)
				}
			}
		}
		b.ReportMetric(float64(b.N)*float64(rows*cols*n*2)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
	})
}
