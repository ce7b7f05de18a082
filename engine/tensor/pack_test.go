package tensor

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"time"
)

// packedRef is the packed kernels' arithmetic (pack.go, packlegacy.go) in
// Go, one row of type typ (Q4_0, Q8_0, IQ4_NL, MXFP4, Q5_0 or Q5_1) at a time
// from the GGUF bytes: exact integer block sums, taken straight from the
// codes (not through m8 or the +128 some kernels add and take back), a
// float32 scale product, one FMA per block on the even or odd chain, even
// + odd (Q5_1: packedQ5_1Ref). The FMA is float64's rounded to float32:
// the product is exact in float64, and a double rounding of the sum could
// only differ on a tie, which the fixed seeds below do not hit.
func packedRef(typ Type, row []byte, a act) float32 {
	if typ == Q5_1 {
		return packedQ5_1Ref(row, a)
	}
	var acc [2]float32
	for b := range len(a.d) {
		xq := a.qs[b*QK:][:QK]
		var i int32
		var s float32
		switch typ {
		case Q4_0:
			blk := row[b*q4_0Bytes:][:q4_0Bytes]
			i = a.m8[b]
			for j, q := range blk[2:] {
				i += int32(q&15)*int32(xq[j]) + int32(q>>4)*int32(xq[j+16])
			}
			s = f16At(blk, 0) * a.d[b]
		case Q8_0:
			blk := row[b*q8_0Bytes:][:q8_0Bytes]
			for j, q := range blk[2:] {
				i += int32(int8(q)) * int32(xq[j])
			}
			s = f16At(blk, 0) * a.d[b]
		case IQ4_NL:
			blk := row[b*iq4nlBytes:][:iq4nlBytes]
			for j, q := range blk[2:] {
				i += int32(iq4nlValue(q))*int32(xq[j]) + int32(iq4nlValue(q>>4))*int32(xq[j+16])
			}
			s = f16At(blk, 0) * a.d[b]
		case MXFP4:
			// The packed scale is E8M0Half(e) exactly, or 0 for a block
			// of zero codes, whose i is 0 (fma(s, 0, acc) = acc either
			// way).
			blk := row[b*mxfp4Bytes:][:mxfp4Bytes]
			for j, q := range blk[1:] {
				i += int32(mxfp4Value(q))*int32(xq[j]) + int32(mxfp4Value(q>>4))*int32(xq[j+16])
			}
			s = E8M0Half(blk[0]) * a.d[b]
		case Q5_0:
			blk := row[b*q5_0Bytes:][:q5_0Bytes]
			qh := legacyQH(blk[2:6])
			for j, q := range blk[6:] {
				lo := int32(q&15) | int32(qh>>j&1)<<4
				hi := int32(q>>4) | int32(qh>>(j+16)&1)<<4
				i += (lo-16)*int32(xq[j]) + (hi-16)*int32(xq[j+16])
			}
			s = f16At(blk, 0) * a.d[b]
		}
		acc[b%2] = float32(math.FMA(float64(s), float64(float32(i)), float64(acc[b%2])))
	}
	return acc[0] + acc[1]
}

// packedQ5_1Ref is packed Q5_1's arithmetic (packlegacy.go) in Go, one row
// at a time from the GGUF bytes: packed Q4_1's (packedQ4_1Ref) with codes
// 0…31.
func packedQ5_1Ref(row []byte, a act) float32 {
	var acc float32
	for b := range len(a.d) {
		blk := row[b*q5_1Bytes:][:q5_1Bytes]
		xq := a.qs[b*QK:][:QK]
		qh := legacyQH(blk[4:8])
		var i int32
		for j, q := range blk[8:] {
			lo := int32(q&15) | int32(qh>>j&1)<<4
			hi := int32(q>>4) | int32(qh>>(j+16)&1)<<4
			i += lo*int32(xq[j]) + hi*int32(xq[j+16])
		}
		acc = float32(math.FMA(float64(f16At(blk, 0)*a.d[b]), float64(float32(i)), float64(acc)))
		acc = float32(math.FMA(float64(f16At(blk, 2)), float64(a.s[b]), float64(acc)))
	}
	return acc
}

// TestPacked: every packed path of each packed type (Q4_0: AVX-512 VNNI
// where the CPU has it, AVX2; Q8_0, IQ4_NL, MXFP4, Q5_0, Q5_1: AVX-512 VNNI) gives the arithmetic of
// packedRef bit for bit, for packed rows and the unpacked tail alike
// close to the float64 reference, four tokens at once exactly what each
// gives alone, and packing leaves Data alone. Kernels without packed
// kernels for a type leave its matrices unpacked.
func TestPacked(t *testing.T) {
	pool := NewPool(2)
	defer pool.Close()
	paths := []*Kernels{newKernelsVNNI(pool, true, true), newKernelsVNNI(pool, true, false)}
	rng := rand.New(rand.NewPCG(41, 42))
	for _, typ := range []Type{Q4_0, Q8_0, IQ4_NL, MXFP4, Q5_0, Q5_1} {
		if paths[0].prows[typ] == nil {
			t.Logf("%s: no packed kernels on this CPU", typ)
			continue
		}
		for _, cols := range []int{32, 96, 512, 2048} {
			for _, rows := range []int{16, 35, 128} {
				data := randomWeights(rng, typ, rows, cols)
				orig := append([]byte(nil), data...)
				w, _ := NewMatrix(typ, rows, cols, data)
				x := randomVec(rng, 5*cols)
				var buf actBuf
				buf.ensure(1, cols)
				a := buf.row(0, cols)
				quantizeAct(a, x[:cols])
				if f16Scales(typ) {
					buf.roundScales(1, cols)
				}
				xseen := actValuesFor(typ, x[:cols])
				var first []float32
				for _, k := range paths {
					p := k.Pack(w)
					if k.prows[typ] == nil {
						if p != w {
							t.Fatalf("%s: packed by kernels without packed %s kernels", k.PrefillPath(), typ)
						}
						continue
					}
					if p == w || p.Packed() != rows&^15 || k.Pack(p) != p {
						t.Fatalf("%s %d×%d: Pack gave %d packed rows (same matrix %v)", typ, rows, cols, p.Packed(), p == w)
					}
					y := make([]float32, rows)
					k.MatVec(y, p, x[:cols])
					for r := range rows {
						if r < p.Packed() {
							if want := packedRef(typ, w.Row(r), a); y[r] != want {
								t.Fatalf("%s %d×%d row %d: packed %g, reference arithmetic %g", typ, rows, cols, r, y[r], want)
							}
						}
						want, mag := refDot(t, typ, w.Row(r), xseen)
						if d := math.Abs(float64(y[r]) - want); d > 1e-5*mag+1e-30 {
							t.Errorf("%s %d×%d row %d: got %g, want %g", typ, rows, cols, r, y[r], want)
						}
					}
					if first == nil {
						first = y
					} else {
						for r := range y {
							if y[r] != first[r] {
								t.Fatalf("%s %d×%d row %d: AVX2 %g, VNNI %g", typ, rows, cols, r, y[r], first[r])
							}
						}
					}
					// Four tokens and a padded three (n = 4, 5: the
					// packed prefill kernel, then decode's for the fifth;
					// n = 3: one group, padded).
					for _, n := range []int{3, 4, 5} {
						checkMatMulEqualsMatVec(t, k, p, x[:n*cols], n)
					}
				}
				for i := range data {
					if data[i] != orig[i] {
						t.Fatalf("%s %d×%d: packing changed Data at byte %d", typ, rows, cols, i)
					}
				}
			}
		}
	}
}

// TestPackLeavesOthers: only quantised matrices of at least one group are
// packed (F16 and BF16 ones are copied, not packed, and only from a mapped
// file), and never by kernels without packed kernels (all but Q4_0, TQ2_0
// and TQ1_0 have none without AVX-512 VNNI).
func TestPackLeavesOthers(t *testing.T) {
	rng := rand.New(rand.NewPCG(43, 44))
	k, kg := NewKernels(NewPool(1)), newKernels(nil, false)
	defer k.pool.Close()
	defer kg.Close()
	for _, c := range []struct {
		typ  Type
		rows int
	}{{F16, 64}, {BF16, 64}, {F32, 64}, {Q4_0, 15}, {Q8_0, 15}, {Q4_1, 15}, {Q5_0, 15}, {Q5_1, 15}, {IQ4_NL, 15}, {MXFP4, 15},
		{Q2_K, 15}, {Q3_K, 15}, {Q4_K, 15}, {Q5_K, 15}, {Q6_K, 15}, {IQ4_XS, 15},
		{IQ2_XXS, 15}, {IQ2_XS, 15}, {IQ2_S, 15}, {IQ3_XXS, 15}, {IQ3_S, 15}, {TQ2_0, 15}, {TQ1_0, 15}} {
		w, _ := NewMatrix(c.typ, c.rows, 256, randomWeights(rng, c.typ, c.rows, 256))
		if k.Pack(w) != w {
			t.Errorf("%s with %d rows was packed", c.typ, c.rows)
		}
	}
	kv := newKernelsVNNI(k.pool, true, false)
	// The types with AVX2 packed kernels (pack_amd64.go).
	avx2 := map[Type]bool{Q4_0: true, TQ2_0: true, TQ1_0: true, IQ3_XXS: true, IQ3_S: true, IQ2_XXS: true, IQ2_XS: true, IQ2_S: true, IQ1_S: true, IQ1_M: true}
	for _, typ := range []Type{Q4_0, Q8_0, Q4_1, Q5_0, Q5_1, IQ4_NL, Q2_K, Q3_K, Q4_K, Q5_K, Q6_K, IQ4_XS, MXFP4, IQ2_XXS, IQ2_XS, IQ2_S, IQ3_XXS, IQ3_S, TQ2_0, TQ1_0, IQ1_S, IQ1_M} {
		w, _ := NewMatrix(typ, 64, 256, randomWeights(rng, typ, 64, 256))
		if kg.Pack(w) != w {
			t.Errorf("the portable kernels packed a %s matrix", typ)
		}
		if !avx2[typ] && kv.Pack(w) != w {
			t.Errorf("kernels without the VNNI ones packed a %s matrix", typ)
		}
	}
}

// BenchmarkPacked times Q4_0 and Q8_0 decode (n=1) and prefill products
// on one thread, packed against as read from the file, alternating the two
// in each iteration so that a noisy machine slows both alike:
// "x-unpacked" is the median ratio of packed to unpacked time, "ms" the
// packed time.
func BenchmarkPacked(b *testing.B) {
	k := NewKernels(NewPool(1))
	defer k.pool.Close()
	for _, typ := range []Type{Q4_0, Q8_0} {
		for _, shape := range []struct{ rows, cols int }{{1536, 576}, {576, 1536}, {2048, 2048}, {8192, 2048}, {2048, 8192}} {
			rng := rand.New(rand.NewPCG(uint64(shape.rows), uint64(shape.cols)))
			w, _ := NewMatrix(typ, shape.rows, shape.cols, randomWeights(rng, typ, shape.rows, shape.cols))
			p := k.Pack(w)
			if p == w {
				b.Skipf("%s: no packed kernels on this CPU", typ)
			}
			for _, n := range []int{1, 4, 128} {
				x := randomVec(rng, n*shape.cols)
				y := make([]float32, n*shape.rows)
				b.Run(fmt.Sprintf("%s/%dx%d/n%d", typ, shape.rows, shape.cols, n), func(b *testing.B) {
					var ratios, tp []float64
					for b.Loop() {
						s0 := time.Now()
						k.MatMul(y, p, x, n)
						s1 := time.Now()
						k.MatMul(y, w, x, n)
						s2 := time.Now()
						a, c := s1.Sub(s0).Seconds(), s2.Sub(s1).Seconds()
						ratios = append(ratios, a/c)
						tp = append(tp, a*1e3)
					}
					b.ReportMetric(median(ratios), "x-unpacked")
					b.ReportMetric(median(tp), "ms")
				})
			}
		}
	}
}

// BenchmarkPack times packing a Llama-1B-shaped FFN matrix (8192×2048,
// 9 MiB of Q4_0, 17 MiB of Q8_0) of each packed type on one thread; "MB/s"
// counts the matrix's bytes.
func BenchmarkPack(b *testing.B) {
	k := NewKernels(NewPool(1))
	defer k.pool.Close()
	for _, typ := range []Type{Q4_0, Q8_0, Q4_1, Q5_0, Q5_1, IQ4_NL, Q2_K, Q3_K, Q4_K, Q5_K, Q6_K, IQ4_XS, MXFP4, TQ2_0, TQ1_0} {
		rng := rand.New(rand.NewPCG(45, 46))
		w, _ := NewMatrix(typ, 8192, 2048, randomWeights(rng, typ, 8192, 2048))
		if k.Pack(w) == w {
			b.Skipf("%s: no packed kernels on this CPU", typ)
		}
		b.Run(typ.String(), func(b *testing.B) {
			b.SetBytes(int64(len(w.Data)))
			for b.Loop() {
				k.Pack(w)
			}
		})
	}
}

// TestPackedNaN: a NaN in the input makes every packed output NaN, as it
// does on the unpacked kernels (its block's scale is NaN, its codes 0).
func TestPackedNaN(t *testing.T) {
	k := NewKernels(NewPool(1))
	defer k.pool.Close()
	rng := rand.New(rand.NewPCG(47, 48))
	for _, typ := range []Type{Q4_0, Q8_0, IQ4_NL, MXFP4, Q5_0, Q5_1} {
		w, _ := NewMatrix(typ, 32, 96, randomWeights(rng, typ, 32, 96))
		p := k.Pack(w)
		x := randomVec(rng, 4*96)
		x[40], x[96+40] = float32(math.NaN()), float32(math.NaN())
		y := make([]float32, 4*32)
		k.MatMul(y, p, x, 4)
		k.MatVec(y[2*32:3*32], p, x[:96])
		for i, v := range y {
			if t0 := i / 32; (t0 < 3) != math.IsNaN(float64(v)) {
				t.Fatalf("%s (%d rows packed) token %d row %d: %g", typ, p.Packed(), t0, i%32, v)
			}
		}
	}
}

// TestPackedRowsAnyGroups: a packed decode kernel gives each group of
// sixteen rows bit for bit the same sums whether it runs that group alone
// or within any run of groups, wherever the run starts. Most of them walk
// groups two at a time and a last odd one alone (the VNNI Q4_0, Q8_0,
// Q4_1, Q5_0, Q5_1, IQ4_NL, MXFP4, Q2_K, Q3_K, Q4_K, Q5_K, Q6_K and IQ4_XS
// kernels), and a pool's chunk may start on any group.
func TestPackedRowsAnyGroups(t *testing.T) {
	pool := NewPool(1)
	defer pool.Close()
	rng := rand.New(rand.NewPCG(47, 48))
	const groups, cols = 7, 512
	tested := 0
	for _, k := range []*Kernels{newKernelsVNNI(pool, true, true), newKernelsVNNI(pool, true, false)} {
		for _, typ := range []Type{Q4_0, Q8_0, Q4_1, Q5_0, Q5_1, IQ4_NL, Q2_K, Q3_K, Q4_K, Q5_K, Q6_K, IQ4_XS, MXFP4, TQ2_0, TQ1_0} {
			prows := k.prows[typ]
			if prows == nil {
				continue
			}
			tested++
			w, _ := NewMatrix(typ, groups*packRows, cols, randomWeights(rng, typ, groups*packRows, cols))
			p := k.Pack(w)
			if p.Packed() != groups*packRows {
				t.Fatalf("%s: %d packed rows, want %d", typ, p.Packed(), groups*packRows)
			}
			var buf actBuf
			buf.ensure(1, cols)
			quantizeAct(buf.row(0, cols), randomVec(rng, cols))
			if readsM4(prows, typ) {
				buf.prepM4(1, cols)
			}
			a := buf.row(0, cols)
			gb := p.packedGroup
			alone := make([]float32, groups*packRows)
			for g := range groups {
				prows(p.packed[g*gb:(g+1)*gb], a, alone[g*packRows:(g+1)*packRows])
			}
			for g0 := range groups {
				for g1 := g0 + 1; g1 <= groups; g1++ {
					out := make([]float32, (g1-g0)*packRows)
					prows(p.packed[g0*gb:g1*gb], a, out)
					for r, v := range out {
						if want := alone[g0*packRows+r]; math.Float32bits(v) != math.Float32bits(want) {
							t.Fatalf("%s (%s) groups %d…%d row %d: %v, alone %v", typ, k.PrefillPath(), g0, g1-1, r, v, want)
						}
					}
				}
			}
		}
	}
	if tested == 0 {
		t.Skip("no packed kernels on this CPU")
	}
	t.Logf("%d packed decode kernels", tested)
}

// TestPackedLegacyExtreme runs packed IQ4_NL, Q5_0, Q5_1 and MXFP4 where their
// integer sums are largest: every activation code 127 (x all 1) and every
// code of the largest magnitude (IQ4_NL's level −127; Q5_0's q−16 = −16
// and then +15; Q5_1's 31, every fifth bit set; MXFP4's −12), each decode output
// bit for bit packedRef's and each four-token output its decode output's.
func TestPackedLegacyExtreme(t *testing.T) {
	k := newKernelsVNNI(NewPool(1), true, true)
	defer k.pool.Close()
	const rows, cols = 48, 768
	for _, c := range []struct {
		typ   Type
		fill  byte // every byte after the f16 values
		heads int  // the f16 values' bytes
	}{{IQ4_NL, 0, 2}, {Q5_0, 0, 2}, {Q5_0, 0xff, 2}, {Q5_1, 0xff, 4}, {MXFP4, 0xff, 1}} {
		if k.prows[c.typ] == nil {
			t.Skipf("%s: no packed kernels on this CPU", c.typ)
		}
		bs := c.typ.BlockBytes()
		data := make([]byte, rows*cols/QK*bs)
		for b := 0; b < len(data); b += bs {
			for h := 0; h < c.heads; h += 2 {
				binary.LittleEndian.PutUint16(data[b+h:], F32ToF16(0.5))
			}
			if c.typ == MXFP4 {
				data[b] = 127 // 2^−1
			}
			for j := b + c.heads; j < b+bs; j++ {
				data[j] = c.fill
			}
		}
		w, _ := NewMatrix(c.typ, rows, cols, data)
		p := k.Pack(w)
		x := make([]float32, 4*cols)
		for i := range x {
			x[i] = 1
		}
		var buf actBuf
		buf.ensure(1, cols)
		a := buf.row(0, cols)
		quantizeAct(a, x[:cols])
		if f16Scales(c.typ) {
			buf.roundScales(1, cols)
		}
		y := make([]float32, rows)
		k.MatVec(y, p, x[:cols])
		for r, v := range y {
			if want := packedRef(c.typ, w.Row(r), a); math.Float32bits(v) != math.Float32bits(want) {
				t.Fatalf("%s fill %#x row %d: packed %v, reference arithmetic %v", c.typ, c.fill, r, v, want)
			}
		}
		checkMatMulEqualsMatVec(t, k, p, x, 4)
	}
}
