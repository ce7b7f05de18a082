package tensor

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// Tests for IQ1_S, IQ1_M, TQ1_0 and TQ2_0 (quant_iq1.go, dot_iq1*.go);
// kjv_iq1_test.go checks llama.cpp's own files, and kernelTypes runs the
// products through TestDotPathsAgree and the rest.

var iq1Types = []Type{IQ1_S, IQ1_M, TQ1_0, TQ2_0}

// iq1Halves are the offsets of each type's float16 fields within a block
// (IQ1_M's d is spread over the scale words' top nibbles: none).
func iq1Halves(ty Type) []int {
	switch ty {
	case TQ1_0:
		return []int{52}
	case TQ2_0:
		return []int{64}
	case IQ1_M:
		return nil
	}
	return []int{0}
}

// The references decode element e from ggml's description with flat index
// arithmetic and float64 half decoding, not through the decoders' helpers;
// products are rounded in the same order, so the comparison is exact.

func quantRefIQ1S(src []byte, e int) float32 {
	b := src[(e/QKK)*iq1sBytes:]
	i := e % QKK
	ib, l := i/32, i%32/8
	d := float32(halfOracle(quantLE(b[0:])))
	qh := int(quantLE(b[34+2*ib:]))
	idx := int(b[2+4*ib+l]) + 256*(qh>>(3*l)&7)
	g := int8(byte(iq1s_grid[idx] >> (8 * (i % 8))))
	delta := float32(0.125)
	if qh&0x8000 != 0 {
		delta = -0.125
	}
	return float32(d*float32(2*(qh>>12&7)+1)) * (float32(g) + delta)
}

func quantRefIQ1M(src []byte, e int) float32 {
	b := src[(e/QKK)*iq1mBytes:]
	i := e % QKK
	ib, l := i/32, i%32/8
	var h uint16
	for k := range 4 {
		h |= uint16(b[48+2*k+1]>>4) << (4 * k)
	}
	d := float32(halfOracle(h))
	qh := int(b[32+2*ib+l/2])
	if l%2 == 1 {
		qh >>= 4
	}
	idx := int(b[4*ib+l]) + 256*(qh&7)
	g := int8(byte(iq1s_grid[idx] >> (8 * (i % 8))))
	delta := float32(0.125)
	if qh&8 != 0 {
		delta = -0.125
	}
	sc := int(quantLE(b[48+2*(ib/2):])) >> (6*(ib%2) + 3*(i%32/16)) & 7
	return float32(d*float32(2*sc+1)) * (float32(g) + delta)
}

// tq1RefTrit is trit n of byte q by ggml's definition: the integer part of
// three times the fraction (q·3ⁿ mod 256)/256.
func tq1RefTrit(q byte, n int) int {
	frac := float64(int(q)*int(math.Pow(3, float64(n)))%256) / 256
	return int(math.Floor(3 * frac))
}

func quantRefTQ1(src []byte, e int) float32 {
	b := src[(e/QKK)*tq1Bytes:]
	i := e % QKK
	d := float32(halfOracle(quantLE(b[52:])))
	var t int
	switch {
	case i < 160: // five trits of qs[0:32], 32 weights per trit
		t = tq1RefTrit(b[i%32], i/32)
	case i < 240: // five trits of qs[32:48], 16 per trit
		t = tq1RefTrit(b[32+(i-160)%16], (i-160)/16)
	default: // four trits of qh[0:4], 4 per trit
		t = tq1RefTrit(b[48+(i-240)%4], (i-240)/4)
	}
	return float32(t-1) * d
}

func quantRefTQ2(src []byte, e int) float32 {
	b := src[(e/QKK)*tq2Bytes:]
	i := e % QKK
	d := float32(halfOracle(quantLE(b[64:])))
	q := int(b[32*(i/128)+i%32]>>(2*(i%128/32))) & 3
	return float32(q-1) * d
}

// iq1RandomBlocks is quantRandomBlocks with IQ1_M's spread d made finite.
func iq1RandomBlocks(seed uint64, ty Type, nb int) []byte {
	src := quantRandomBlocks(seed, ty, nb, iq1Halves(ty)...)
	if ty == IQ1_M {
		for o := 0; o < len(src); o += iq1mBytes {
			src[o+55] &^= 0x40 // bit 14 of d clear: finite, |d| < 2
		}
	}
	return src
}

func TestDequantIQ1MatchesReference(t *testing.T) {
	for _, c := range []struct {
		ty  Type
		ref func([]byte, int) float32
	}{{IQ1_S, quantRefIQ1S}, {IQ1_M, quantRefIQ1M}, {TQ1_0, quantRefTQ1}, {TQ2_0, quantRefTQ2}} {
		const nb = 64
		src := iq1RandomBlocks(61, c.ty, nb)
		y := make([]float32, nb*QKK)
		if err := Dequantize(c.ty, y, src); err != nil {
			t.Fatal(err)
		}
		for e := range y {
			if want := c.ref(src, e); y[e] != want || math.IsNaN(float64(y[e])) {
				t.Fatalf("%v element %d: got %v, want %v", c.ty, e, y[e], want)
			}
		}
	}
}

// TestDequantIQ1SHand: d = 0x3800 = 0.5; sub-block 0 has qs = 0, 1, 2, 3
// with no high bits, scale s = 3 (ls 7) and δ = +1/8; sub-block 1 has
// grid entry 2047 (qs 0xFF, high bits 7) for its first run, s = 0 and
// δ = −1/8. iq1s_grid[0] is eight −1; [1] ends in +1 (byte 0 is 0x01);
// [2047] is eight +1.
func TestDequantIQ1SHand(t *testing.T) {
	b := make([]byte, iq1sBytes)
	b[0], b[1] = 0x00, 0x38
	b[2], b[3], b[4], b[5] = 0, 1, 2, 3
	b[34], b[35] = 0x00, 0x30 // qh[0]: s = 3 (bits 12..14), δ sign clear
	b[6] = 0xFF
	b[36], b[37] = 0x07, 0x80 // qh[1]: run 0 high bits 7, s = 0, δ sign set
	y := make([]float32, QKK)
	if err := Dequantize(IQ1_S, y, b); err != nil {
		t.Fatal(err)
	}
	for j := range 8 {
		if want := float32(3.5 * (-1 + 0.125)); y[j] != want {
			t.Fatalf("weight %d = %v, want %v", j, y[j], want)
		}
	}
	if want := float32(3.5 * (1 + 0.125)); y[8] != want {
		t.Fatalf("weight 8 = %v, want %v (grid entry 1, byte 0 = +1)", y[8], want)
	}
	for j := 32; j < 40; j++ {
		if want := float32(0.5 * (1 - 0.125)); y[j] != want {
			t.Fatalf("weight %d = %v, want %v", j, y[j], want)
		}
	}
}

// TestTQ1EqualsTQ2: the same random trits packed both ways (TQ1_0 by
// ggml's encoding: five trits t₀…t₄ as the byte ⌈(Σ tₖ·3^(4−k))·256/243⌉)
// decode to the same values, so the two layouts agree weight for weight.
func TestTQ1EqualsTQ2(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	const nb = 16
	b1, b2 := make([]byte, nb*tq1Bytes), make([]byte, nb*tq2Bytes)
	pack := func(ts []int) byte {
		v := 0
		for _, x := range ts {
			v = 3*v + x
		}
		for range 5 - len(ts) {
			v *= 3
		}
		return byte((v*256 + 242) / 243)
	}
	for i := range nb {
		var tr [QKK]int
		for e := range tr {
			tr[e] = rng.IntN(3)
		}
		h := F32ToF16(float32(rng.NormFloat64()))
		p1, p2 := b1[i*tq1Bytes:], b2[i*tq2Bytes:]
		p1[52], p1[53], p2[64], p2[65] = byte(h), byte(h>>8), byte(h), byte(h>>8)
		for m := range 32 {
			p1[m] = pack([]int{tr[m], tr[32+m], tr[64+m], tr[96+m], tr[128+m]})
		}
		for m := range 16 {
			p1[32+m] = pack([]int{tr[160+m], tr[176+m], tr[192+m], tr[208+m], tr[224+m]})
		}
		for j := range 4 {
			p1[48+j] = pack([]int{tr[240+j], tr[244+j], tr[248+j], tr[252+j]})
		}
		for e, x := range tr {
			p2[32*(e/128)+e%32] |= byte(x) << (2 * (e % 128 / 32))
		}
	}
	y1, y2 := make([]float32, nb*QKK), make([]float32, nb*QKK)
	if err := Dequantize(TQ1_0, y1, b1); err != nil {
		t.Fatal(err)
	}
	if err := Dequantize(TQ2_0, y2, b2); err != nil {
		t.Fatal(err)
	}
	for e := range y1 {
		if y1[e] != y2[e] {
			t.Fatalf("weight %d: TQ1_0 %v, TQ2_0 %v", e, y1[e], y2[e])
		}
	}
}

// TestIQ1NaNScale: a NaN super-block scale decodes to NaN weights and
// NaN products on every path, rather than being rounded away.
func TestIQ1NaNScale(t *testing.T) {
	pool := NewPool(1)
	defer pool.Close()
	paths := []*Kernels{newKernels(pool, false), newKernels(pool, true)}
	for _, ty := range iq1Types {
		b := iq1RandomBlocks(3, ty, 2)
		switch ty {
		case IQ1_M:
			for k := range 4 { // d = 0x7E00, a NaN
				b[49+2*k] = b[49+2*k]&0x0F | byte(uint16(0x7E00)>>(4*k)&0xF)<<4
			}
		default:
			off := iq1Halves(ty)[0]
			b[off], b[off+1] = 0x00, 0x7E
		}
		y := make([]float32, 2*QKK)
		if err := Dequantize(ty, y, b); err != nil {
			t.Fatal(err)
		}
		for e := range QKK {
			if !math.IsNaN(float64(y[e])) {
				t.Fatalf("%v weight %d = %v with a NaN scale", ty, e, y[e])
			}
		}
		x := randomVec(rand.New(rand.NewPCG(1, 2)), 2*QKK)
		w := mustMatrix(t, ty, 1, 2*QKK, b)
		for _, k := range paths {
			out := make([]float32, 1)
			k.MatVec(out, w, x)
			if !math.IsNaN(float64(out[0])) {
				t.Errorf("%v on %s: %v with a NaN scale", ty, k.Path(), out[0])
			}
		}
	}
}

func TestQuantIQ1Unsupported(t *testing.T) {
	x := make([]float32, QKK)
	for _, ty := range iq1Types {
		b := make([]byte, ty.BlockBytes())
		if err := Quantize(ty, b, x); err == nil {
			t.Errorf("Quantize(%v) succeeded: there is no encoder", ty)
		}
		if err := Dequantize(ty, x, b[:len(b)-1]); err == nil {
			t.Errorf("Dequantize(%v) accepted a short block", ty)
		}
	}
}

// FuzzIQ1 decodes arbitrary blocks of each type (the first byte picks it)
// and multiplies them on every path: each weight must be the reference's,
// and every kernel's product (sixteen copies of the row) must agree with
// the float64 dot of the decoded weights and the activations the kernels
// see, as TestDotPathsAgree requires.
func FuzzIQ1(f *testing.F) {
	f.Add(byte(0), make([]byte, 2*66), uint64(1))
	seed := make([]byte, 5*66)
	for i := range seed {
		seed[i] = byte(i*37 + 11)
	}
	for k := range byte(4) {
		f.Add(k, seed, uint64(k))
	}
	refs := []func([]byte, int) float32{quantRefIQ1S, quantRefIQ1M, quantRefTQ1, quantRefTQ2}
	pool := NewPool(1)
	defer pool.Close()
	paths := []*Kernels{newKernels(pool, false), newKernelsVNNI(pool, true, false), newKernelsVNNI(pool, true, true)}
	f.Fuzz(func(t *testing.T, kind byte, row []byte, xseed uint64) {
		ty := iq1Types[kind%4]
		bb := ty.BlockBytes()
		nb := min(len(row)/bb, 16)
		if nb == 0 {
			return
		}
		row = row[:nb*bb]
		cols := nb * QKK
		w := make([]float32, cols)
		if err := Dequantize(ty, w, row); err != nil {
			t.Fatal(err)
		}
		for i, v := range w {
			if want := refs[kind%4](row, i); math.Float32bits(v) != math.Float32bits(want) && !(v != v && want != want) {
				t.Fatalf("%v weight %d: %v, want %v", ty, i, v, want)
			}
		}
		x := randomVec(rand.New(rand.NewPCG(xseed, 7)), cols)
		xseen := actValues(x)
		m := mustMatrix(t, ty, packRows, cols, slices.Repeat(row, packRows))
		var want, mag float64
		for i := range cols {
			p := float64(w[i]) * float64(xseen[i])
			want += p
			mag += math.Abs(p)
		}
		if !(mag <= math.MaxFloat32/4) {
			return // NaN, Inf or near overflow: the orders of summation may part
		}
		for _, k := range paths {
			out := make([]float32, packRows)
			k.MatVec(out, m, x)
			for r, got := range out {
				if math.Abs(float64(got)-want) > 1e-5*mag+1e-30 {
					t.Fatalf("%v on %s row %d: %v, want %v (mag %g)", ty, k.Path(), r, got, want, mag)
				}
			}
		}
	})
}

// iq1Gemm4Types are the types of this file with a four-token prefill kernel
// on AVX2 CPUs.
var iq1Gemm4Types = []Type{IQ1_S, IQ1_M, TQ1_0, TQ2_0}

// TestIQ1Gemm4Wide checks MatMul against MatVec token by token, bit for
// bit, for every type of this file (those without a prefill kernel run the
// Rows kernel per token, which this checks too), over 1, 3 and 9
// super-blocks per row, batches with groups of four, a padded three and
// remainders, and tokens of zeros and of subnormal-scale values.
func TestIQ1Gemm4Wide(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	for _, vnni := range []bool{true, false} {
		k := newKernelsVNNI(nil, true, vnni)
		for _, typ := range iq1Types {
			if hasAVX2 && slices.Contains(iq1Gemm4Types, typ) && k.gemm4[typ] == nil {
				t.Errorf("%s: no prefill kernel on an AVX2 CPU", typ)
			}
			for _, cols := range []int{256, 768, 2304} {
				const rows = 70
				w := mustMatrix(t, typ, rows, cols, randomWeights(rng, typ, rows, cols))
				for _, n := range []int{3, 4, 7, 9} {
					x := randomVec(rng, n*cols)
					clear(x[1*cols : 2*cols])
					for i := 2 * cols; i < 3*cols; i++ {
						x[i] *= 1e-36
					}
					got := make([]float32, n*rows)
					k.MatMul(got, w, x, n)
					want := make([]float32, rows)
					for i := range n {
						k.MatVec(want, w, x[i*cols:(i+1)*cols])
						for r := range rows {
							if math.Float32bits(got[i*rows+r]) != math.Float32bits(want[r]) {
								t.Fatalf("%s %v cols %d n %d token %d row %d: matmul %g, matvec %g", k.PrefillPath(), typ, cols, n, i, r, got[i*rows+r], want[r])
							}
						}
					}
				}
			}
		}
		k.Close()
	}
}

// BenchmarkMatVecIQ1 times MatVec of a 2048×2048 matrix of each type of
// this file against one of Q2_K, alternated call by call on one thread
// (GGUF layouts, unpacked): "x-Q2_K" is the median time ratio (below 1 is
// faster), "lo" and "hi" its range, "us" and "Q2_K-us" the two medians.
func BenchmarkMatVecIQ1(b *testing.B) {
	const n = 2048
	pool := NewPool(1)
	defer pool.Close()
	k := NewKernels(pool)
	rng := rand.New(rand.NewPCG(1, 2))
	q2 := mustMatrixB(b, Q2_K, n, n, randomWeights(rng, Q2_K, n, n))
	x := randomVec(rng, n)
	y := make([]float32, n)
	for _, typ := range iq1Types {
		w := mustMatrixB(b, typ, n, n, randomWeights(rng, typ, n, n))
		b.Run(typ.String(), func(b *testing.B) {
			var ratios, t, tq []float64
			for b.Loop() {
				s0 := time.Now()
				k.MatVec(y, w, x)
				s1 := time.Now()
				k.MatVec(y, q2, x)
				s2 := time.Now()
				a, c := s1.Sub(s0).Seconds(), s2.Sub(s1).Seconds()
				ratios = append(ratios, a/c)
				t = append(t, a*1e6)
				tq = append(tq, c*1e6)
			}
			b.ReportMetric(median(ratios), "x-Q2_K")
			b.ReportMetric(slices.Min(ratios), "lo")
			b.ReportMetric(slices.Max(ratios), "hi")
			b.ReportMetric(median(t), "us")
			b.ReportMetric(median(tq), "Q2_K-us")
		})
	}
}
