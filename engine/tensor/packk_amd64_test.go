package tensor

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// packedQ4KRef is packed Q4_K's arithmetic (packk.go) in Go, one row at a
// time from the GGUF bytes. The FMA is float64's rounded to float32, as in
// packedRef: the product is exact in float64, and a double rounding of the
// sum could only differ on a tie, which the fixed seeds below do not hit.
func packedQ4KRef(row []byte, a act) float32 {
	fma := func(x, y, z float32) float32 { return float32(math.FMA(float64(x), float64(y), float64(z))) }
	var acc float32
	for sb := range len(a.d) / 8 {
		blk := row[sb*q4KBytes:][:q4KBytes]
		d, dmin := f16At(blk, 0), f16At(blk, 2)
		sc, m := unpackK4(blk[4:16])
		for j := range 8 {
			J := sb*8 + j
			qs, shift := blk[16+32*(j/2):][:32], uint(4*(j%2))
			xq := a.qs[J*QK:][:QK]
			var i int32
			for l, q := range qs {
				i += int32(q>>shift&15) * int32(xq[l])
			}
			acc = fma(d*float32(sc[j])*a.d[J], float32(i), acc)
			acc = fma(-dmin*float32(m[j]), a.s[J], acc)
		}
	}
	return acc
}

// TestPackedQ4_1AndQ4K checks the packed Q4_1 and Q4_K kernels bit for
// bit: the decode kernel against the type's Go reference, the four-token
// kernel against the decode kernel per token, over several widths and
// group counts, and both close to the float64 dot of the dequantised row
// (the kernels' only freedom is float rounding).
func TestPackedQ4_1AndQ4K(t *testing.T) {
	if !hasZMM {
		t.Skip("no AVX-512 VNNI")
	}
	rng := rand.New(rand.NewPCG(43, 44))
	for _, c := range []struct {
		typ   Type
		cols  []int
		group func(cols int) int // packed bytes of a group of sixteen rows
		pack  func(dst, src []byte, nb, g0, g1 int)
		n     func(cols int) int // the packer's blocks per row
		ref   dotFn
		rows  packedRowsFn
		gemm4 packedGemm4Fn
	}{
		{Q4_1, []int{32, 96, 576, 2048}, func(c int) int { return c / QK * packRows * q4_1Bytes }, packQ4_1,
			func(c int) int { return c / QK }, func(w []byte, _ []float32, a act) float32 { return packedQ4_1Ref(w, a) },
			rowsPackedQ4_1, gemm4PackedQ4_1},
		{Q4_K, []int{256, 768, 2048}, func(c int) int { return c / QKK * packKBlockBytes }, packQ4K,
			func(c int) int { return c / QKK }, func(w []byte, _ []float32, a act) float32 { return packedQ4KRef(w, a) },
			rowsPackedQ4K, gemm4PackedQ4K},
	} {
		for _, cols := range c.cols {
			for _, groups := range []int{1, 2, 5} {
				t.Run(fmt.Sprintf("%s/%dx%d", c.typ, groups*16, cols), func(t *testing.T) {
					rows := groups * packRows
					data := randomWeights(rng, c.typ, rows, cols)
					p := make([]byte, groups*c.group(cols))
					c.pack(p, data, c.n(cols), 0, groups)
					var buf actBuf
					buf.ensure(4, cols)
					x := randomVec(rng, 4*cols)
					for tok := range 4 {
						quantizeAct(buf.row(tok, cols), x[tok*cols:(tok+1)*cols])
					}
					one := make([]float32, 4*rows)
					rb := len(data) / rows
					for tok := range 4 {
						a := buf.row(tok, cols)
						c.rows(p, a, one[tok*rows:(tok+1)*rows])
						xseen := actValues(x[tok*cols : (tok+1)*cols])
						for r := range rows {
							row := data[r*rb : (r+1)*rb]
							want := c.ref(row, nil, a)
							if got := one[tok*rows+r]; math.Float32bits(got) != math.Float32bits(want) {
								t.Fatalf("row %d token %d: kernel %v, reference %v", r, tok, got, want)
							}
							exact, mag := refDot(t, c.typ, row, xseen)
							if d := math.Abs(float64(one[tok*rows+r]) - exact); d > 1e-5*mag+1e-30 {
								t.Fatalf("row %d token %d: %v, float64 %v (|diff| %g > 1e-5·%g)", r, tok, one[tok*rows+r], exact, d, mag)
							}
						}
					}
					const ostride = 97
					four := make([]float32, 3*ostride+rows)
					nb := cols / QK
					a4 := act{qs: buf.qs[:4*cols], d: buf.d[:4*nb], s: buf.s[:4*nb]}
					c.gemm4(p, a4, groups, four, ostride)
					requireFourEqualsOne(t, four, one, rows, ostride)
				})
			}
		}
	}
}

// BenchmarkPackedQ4K times Q4_K's kernels, packed against the GGUF layout
// (benchPacked).
func BenchmarkPackedQ4K(b *testing.B) {
	benchPacked(b, Q4_K, q4KBytes, packKBlockBytes, packQ4K, rowsPackedQ4K, gemm4PackedQ4K)
}

// packedQ4_1Ref is packed Q4_1's arithmetic (packk.go) in Go, one row at a
// time from the GGUF bytes (the FMA as in packedQ4KRef).
func packedQ4_1Ref(row []byte, a act) float32 {
	fma := func(x, y, z float32) float32 { return float32(math.FMA(float64(x), float64(y), float64(z))) }
	var acc float32
	for b := range len(a.d) {
		blk := row[b*q4_1Bytes:][:q4_1Bytes]
		xq := a.qs[b*QK:][:QK]
		var i int32
		for j, q := range blk[4:] {
			i += int32(q&15)*int32(xq[j]) + int32(q>>4)*int32(xq[j+16])
		}
		acc = fma(f16At(blk, 0)*a.d[b], float32(i), acc)
		acc = fma(f16At(blk, 2), a.s[b], acc)
	}
	return acc
}

// benchPacked compares a type's four-token prefill kernel over the GGUF
// rows (the tensor's installed gemm4) with the packed one and, where the
// kernels have one, the sixteen-token AMX kernel, and the decode kernels
// likewise: one thread, 64-row tiles of a 4096×4096 matrix as runTile
// hands them out, 64 tokens. sb is the type's GGUF super-block bytes, bb
// its packed bytes a super-block column of a group.
func benchPacked(b *testing.B, typ Type, sb, bb int, pack func(dst, src []byte, nsb, g0, g1 int), rowsFn packedRowsFn, gemm4 packedGemm4Fn) {
	if !hasZMM {
		b.Skip("no AVX-512 VNNI")
	}
	benchPackedOn(b, typ, sb, bb, pack, rowsFn, gemm4)
}

// benchPackedOn is benchPacked for kernels the caller knows the CPU runs.
func benchPackedOn(b *testing.B, typ Type, sb, bb int, pack func(dst, src []byte, nsb, g0, g1 int), rowsFn packedRowsFn, gemm4 packedGemm4Fn) {
	const rows, cols, n = 4096, 4096, 64
	rng := rand.New(rand.NewPCG(1, 1))
	data := randomWeights(rng, typ, rows, cols)
	nsb := cols / QKK
	p := make([]byte, rows/packRows*nsb*bb)
	pack(p, data, nsb, 0, rows/packRows)
	var buf actBuf
	buf.ensure(n, cols)
	x := randomVec(rng, n*cols)
	for i := range n {
		quantizeAct(buf.row(i, cols), x[i*cols:(i+1)*cols])
	}
	buf.prepM4(n, cols)
	k := newKernelsVNNI(NewPool(1), true, true)
	defer k.pool.Close()
	out := make([]float32, n*rows)
	rb, gb := nsb*sb, nsb*bb
	group := func(i0 int) act {
		nb := cols / QK
		return act{qs: buf.qs[i0*cols : (i0+4)*cols], d: buf.d[i0*nb : (i0+4)*nb], s: buf.s[i0*nb : (i0+4)*nb],
			m8: buf.m8[i0*nb : (i0+4)*nb], m4: buf.m4M(i0, 4, cols)}
	}
	gflops := func(b *testing.B, tokens int) {
		b.ReportMetric(float64(b.N)*float64(rows*cols*tokens*2)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
	}
	b.Run("gemm4/gguf", func(b *testing.B) {
		for range b.N {
			for r0 := 0; r0 < rows; r0 += 64 {
				for i0 := 0; i0 < n; i0 += 4 {
					k.gemm4[typ](data[r0*rb:(r0+64)*rb], nil, group(i0), 64, out[i0*rows+r0:], rows)
				}
			}
		}
		gflops(b, n)
	})
	b.Run("gemm4/packed", func(b *testing.B) {
		for range b.N {
			for r0 := 0; r0 < rows; r0 += 64 {
				for i0 := 0; i0 < n; i0 += 4 {
					gemm4(p[r0/packRows*gb:(r0+64)/packRows*gb], group(i0), 4, out[i0*rows+r0:], rows)
				}
			}
		}
		gflops(b, n)
	})
	benchAMX16(b, k, typ, p, gb, &buf, rows, cols, n, out)
	b.Run("rows/gguf", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		for range b.N {
			k.rows[typ](data, nil, buf.row(0, cols), out[:rows])
		}
	})
	b.Run("rows/packed", func(b *testing.B) {
		b.SetBytes(int64(len(p)))
		for range b.N {
			rowsFn(p, buf.row(0, cols), out[:rows])
		}
	})
}
