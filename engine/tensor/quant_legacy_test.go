package tensor

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// Tests for Q4_1, Q5_0, Q5_1 and IQ4_NL (quant_legacy.go, dot_legacy*.go),
// and MXFP4's dot products beside them (quant_mxfp4.go has its codec).
// The shared kernel tests of kernels_test.go (TestDotPathsAgree against a
// float64 dot of the dequantised weights, TestMatMulEqualsMatVec,
// TestThreadCountInvariant, TestKernelsAllocateNothing) cover these types
// through kernelTypes; kjv_legacy_test.go checks real llama.cpp files.

// legacy32Types are the types this file is about.
var legacy32Types = []Type{Q4_1, Q5_0, Q5_1, IQ4_NL, MXFP4}

// TestIQ4NLTable pins the non-linear levels to ggml's kvalues_iq4nl.
func TestIQ4NLTable(t *testing.T) {
	want := []int8{-127, -104, -83, -65, -49, -35, -22, -10, 1, 13, 25, 38, 53, 69, 89, 113}
	for q, v := range want {
		if got := iq4nlValue(byte(q)); got != v {
			t.Errorf("level %d: %d, want %d", q, got, v)
		}
		if got := iq4nlValue(byte(q) | 0xF0); got != v {
			t.Errorf("level %d with high bits set: %d, want %d", q, got, v)
		}
	}
}

// ---------------------------------------------------------------------------
// Decoders on blocks built by hand.

// TestDequantQ4_1Hand: d = 0x3800 = 0.5, m = 0xc000 = −2, w = 0.5·q − 2.
//
//	qs[0]  = 0x3F: w[0]  = 0.5·15 − 2 = 5.5;  w[16] = 0.5·3 − 2 = −0.5
//	qs[15] = 0xA0: w[15] = 0.5·0 − 2 = −2;    w[31] = 0.5·10 − 2 = 3
//	other bytes 0: −2
func TestDequantQ4_1Hand(t *testing.T) {
	b := make([]byte, 20)
	b[0], b[1], b[2], b[3] = 0x00, 0x38, 0x00, 0xc0
	b[4+0], b[4+15] = 0x3F, 0xA0
	want := slices.Repeat([]float32{-2}, 32)
	want[0], want[16], want[31] = 5.5, -0.5, 3
	y := make([]float32, 32)
	if err := Dequantize(Q4_1, y, b); err != nil {
		t.Fatal(err)
	}
	quantCompare(t, "Q4_1", y, want)
}

// TestDequantQ5_0Hand: d = 0x3400 = 0.25, w = 0.25·(q − 16) with the fifth
// bit of weight j at bit j of qh (little-endian): qh = 01 01 01 80 sets the
// bits of weights 0, 8, 16 and 31.
//
//	qs[0]  = 0x21: w[0]  = 0.25·((1|16) − 16) = 0.25;  w[16] = 0.25·((2|16) − 16) = 0.5
//	qs[8]  = 0x00: w[8]  = 0.25·(16 − 16) = 0;         w[24] = 0.25·(0 − 16) = −4
//	qs[15] = 0xF0: w[15] = 0.25·(0 − 16) = −4;         w[31] = 0.25·((15|16) − 16) = 3.75
//	others: q = 0, −4
func TestDequantQ5_0Hand(t *testing.T) {
	b := make([]byte, 22)
	b[0], b[1] = 0x00, 0x34
	b[2], b[3], b[4], b[5] = 0x01, 0x01, 0x01, 0x80
	b[6+0], b[6+15] = 0x21, 0xF0
	want := slices.Repeat([]float32{-4}, 32)
	want[0], want[16], want[8], want[31] = 0.25, 0.5, 0, 3.75
	y := make([]float32, 32)
	if err := Dequantize(Q5_0, y, b); err != nil {
		t.Fatal(err)
	}
	quantCompare(t, "Q5_0", y, want)
}

// TestDequantQ5_1Hand: d = 0x3c00 = 1, m = 0x3800 = 0.5, w = q + 0.5; qh =
// 02 00 02 40 sets the fifth bits of weights 1, 17 and 30.
//
//	qs[1]  = 0x5F: w[1]  = (15|16) + 0.5 = 31.5;  w[17] = (5|16) + 0.5 = 21.5
//	qs[14] = 0x00: w[14] = 0.5;                   w[30] = (0|16) + 0.5 = 16.5
//	qs[9]  = 0x07: w[9]  = 7.5 (bit 9 clear);     w[25] = 0.5
//	others: 0.5
func TestDequantQ5_1Hand(t *testing.T) {
	b := make([]byte, 24)
	b[0], b[1], b[2], b[3] = 0x00, 0x3c, 0x00, 0x38
	b[4], b[5], b[6], b[7] = 0x02, 0x00, 0x02, 0x40
	b[8+1], b[8+9] = 0x5F, 0x07
	want := slices.Repeat([]float32{0.5}, 32)
	want[1], want[17], want[30], want[9] = 31.5, 21.5, 16.5, 7.5
	y := make([]float32, 32)
	if err := Dequantize(Q5_1, y, b); err != nil {
		t.Fatal(err)
	}
	quantCompare(t, "Q5_1", y, want)
}

// TestDequantIQ4NLHand: d = 0xb800 = −0.5, w = −0.5·kvalues[q].
//
//	qs[0] = 0xF0: w[0] = −0.5·(−127) = 63.5;  w[16] = −0.5·113 = −56.5
//	qs[7] = 0x78: w[7] = −0.5·1 = −0.5;       w[23] = −0.5·(−10) = 5
//	others: level 0, 63.5
func TestDequantIQ4NLHand(t *testing.T) {
	b := make([]byte, 18)
	b[0], b[1] = 0x00, 0xb8
	b[2+0], b[2+7] = 0xF0, 0x78
	want := slices.Repeat([]float32{63.5}, 32)
	want[16], want[7], want[23] = -56.5, -0.5, 5
	y := make([]float32, 32)
	if err := Dequantize(IQ4_NL, y, b); err != nil {
		t.Fatal(err)
	}
	quantCompare(t, "IQ4_NL", y, want)
}

// ---------------------------------------------------------------------------
// Independent per-element reference decoders: element e of a block finds
// its nibble in byte e%16 (low for e < 16) and its fifth bit in bit e%8 of
// qh byte e/8.

func quantRefQ4_1(src []byte, e int) float32 {
	b := src[(e/32)*20:]
	d, m := float32(halfOracle(quantLE(b))), float32(halfOracle(quantLE(b[2:])))
	i := e % 32
	q := int(b[4+i%16]>>(4*(i/16))) & 0xF
	return float32(d*float32(q)) + m
}

func quantRefQ5_0(src []byte, e int) float32 {
	b := src[(e/32)*22:]
	d := float32(halfOracle(quantLE(b)))
	i := e % 32
	q := int(b[6+i%16]>>(4*(i/16)))&0xF | int(b[2+i/8]>>(i%8)&1)<<4
	return d * float32(q-16)
}

func quantRefQ5_1(src []byte, e int) float32 {
	b := src[(e/32)*24:]
	d, m := float32(halfOracle(quantLE(b))), float32(halfOracle(quantLE(b[2:])))
	i := e % 32
	q := int(b[8+i%16]>>(4*(i/16)))&0xF | int(b[4+i/8]>>(i%8)&1)<<4
	return float32(d*float32(q)) + m
}

func quantRefIQ4NL(src []byte, e int) float32 {
	levels := [16]float32{-127, -104, -83, -65, -49, -35, -22, -10, 1, 13, 25, 38, 53, 69, 89, 113}
	b := src[(e/32)*18:]
	d := float32(halfOracle(quantLE(b)))
	i := e % 32
	return d * levels[b[2+i%16]>>(4*(i/16))&0xF]
}

func TestDequantLegacy32MatchesReference(t *testing.T) {
	for _, c := range []struct {
		ty    Type
		ref   func([]byte, int) float32
		halfs []int
	}{
		{Q4_1, quantRefQ4_1, []int{0, 2}},
		{Q5_0, quantRefQ5_0, []int{0}},
		{Q5_1, quantRefQ5_1, []int{0, 2}},
		{IQ4_NL, quantRefIQ4NL, []int{0}},
	} {
		src := quantRandomBlocks(15, c.ty, 64, c.halfs...)
		y := make([]float32, 64*QK)
		if err := Dequantize(c.ty, y, src); err != nil {
			t.Fatal(err)
		}
		for e := range y {
			if want := c.ref(src, e); y[e] != want {
				t.Fatalf("%v element %d: got %v, want %v", c.ty, e, y[e], want)
			}
		}
	}
}

// ---------------------------------------------------------------------------
// Encoders (Q4_1, Q5_0, Q5_1; IQ4_NL has none).

// TestQuantQ4_1Hand: min −1 and max 14 give d = 15/15 = 1 (0x3c00) and
// m = −1 (0xbc00), so q = trunc(x + 1 + 0.5):
//
//	x[0]  = −1   → 0        x[1]  = 14 → 15
//	x[2]  = 0.5  → 2 (halves round up)
//	x[3]  = 0.49 → 1        x[16] = 6.2 → 7      x[17] = −0.6 → 0
//	zeros        → 1
//
// Byte j = q[j] | q[j+16]<<4.
func TestQuantQ4_1Hand(t *testing.T) {
	x := make([]float32, 32)
	x[0], x[1], x[2], x[3], x[16], x[17] = -1, 14, 0.5, 0.49, 6.2, -0.6
	want := append([]byte{0x00, 0x3c, 0x00, 0xbc, 0x70, 0x0f, 0x12, 0x11}, slices.Repeat([]byte{0x11}, 12)...)
	quantCheckHand(t, Q4_1, x, want)
}

// TestQuantQ5_1Hand: min 0 and max 31 give d = 1, m = 0 and q = trunc(x + 0.5):
// x[0] = 31 → 31, x[1] = 16.5 → 17, x[2] = 15.49 → 15, x[16] = 20 → 20,
// x[31] = 3 → 3, zeros → 0. The fifth bits of 31, 17 and 20 (weights 0, 1,
// 16) make qh = 0x00010003.
func TestQuantQ5_1Hand(t *testing.T) {
	x := make([]float32, 32)
	x[0], x[1], x[2], x[16], x[31] = 31, 16.5, 15.49, 20, 3
	want := make([]byte, 24)
	copy(want, []byte{0x00, 0x3c, 0x00, 0x00, 0x03, 0x00, 0x01, 0x00, 0x4f, 0x01, 0x0f})
	want[8+15] = 0x30
	quantCheckHand(t, Q5_1, x, want)
}

// TestQuantQ5_0Hand checks the encoder against ggml's rule worked by hand.
//
// Block A: the extreme is −16 (x[0]), so d = 1 (0x3c00) and
// q = min(31, trunc(x + 16.5)): x[0] = −16 → 0, x[1] = 0.5 → 17,
// x[2] = −0.5 → 16, x[3] = 15.6 → 32 → clamped to 31, x[16] = 3.2 → 19,
// x[17] = −15.7 → 0, zeros → 16. Every code but q[0] and q[17] is ≥ 16, so
// qh = 0xFFFDFFFE; the low nibbles give qs = 30 01 00 0F 00….
//
// Block B: the extreme is +16 (x[32]), so d = −1 (0xbc00): x[32] → 0, which
// decodes to −1·(0 − 16) = 16; x[33] = −16 → 32.5 → 31, decoding to −15 (the
// far side's |d| error); zeros → 16. qh = 0xFFFFFFFE, qs = 00 0F 00….
func TestQuantQ5_0Hand(t *testing.T) {
	x := make([]float32, 64)
	x[0], x[1], x[2], x[3], x[16], x[17] = -16, 0.5, -0.5, 15.6, 3.2, -15.7
	x[32], x[33] = 16, -16
	want := make([]byte, 44)
	copy(want, []byte{0x00, 0x3c, 0xfe, 0xff, 0xfd, 0xff, 0x30, 0x01, 0x00, 0x0f})
	copy(want[22:], []byte{0x00, 0xbc, 0xfe, 0xff, 0xff, 0xff, 0x00, 0x0f})
	y := quantCheckHand(t, Q5_0, x, want)
	if y[32] != 16 || y[33] != -15 || y[3] != 15 || y[1] != 1 || y[2] != 0 {
		t.Errorf("Q5_0 decode: y[1..3] = %v, y[32..33] = %v; want [1 0 15], [16 -15]", y[1:4], y[32:34])
	}
}

// quantCheckHand quantises x as ty, requires the bytes want, and returns the
// decoded values.
func quantCheckHand(t *testing.T, ty Type, x []float32, want []byte) []float32 {
	t.Helper()
	y, b := quantRoundTrip(t, ty, x)
	if !slices.Equal(b, want) {
		t.Errorf("%v bytes\n got % x\nwant % x", ty, b, want)
	}
	return y
}

// TestQuantQ4_1Q5_1Bounds: with d = (max − min)/nmax per block, d' and m'
// the stored float16 roundings of d and min, every element satisfies
// |x − (d'q + m')| ≤ d/2 + nmax·|d − d'| + |min − m'|
// ≤ d·(1/2 + nmax·2⁻¹¹) + |min|·2⁻¹¹ (see quantQ4_1). The test allows 1e-6
// relative slack for the float32 rounding of (x − min)/d and d'q + m'.
func TestQuantQ4_1Q5_1Bounds(t *testing.T) {
	for _, c := range []struct {
		ty    Type
		nmax  float64
		gauss float64
	}{
		// Gaussian: a block of 32 spans E[max − min] ≈ 4.1σ, so the step is
		// ≈ 4.1σ/nmax and the uniform rounding error step/√12: 7.9 % for
		// Q4_1, 3.8 % for Q5_1 (measured 7.79 %, 3.77 %).
		{Q4_1, 15, 0.082},
		{Q5_1, 31, 0.040},
	} {
		sets := quantEdgeSets()
		sets["gauss"] = quantGauss(31, 1<<16, 0, 1)
		sets["shifted"] = quantGauss(32, 1<<12, 5, 1) // min far from 0: m carries the offset
		for name, x := range sets {
			y, _ := quantRoundTrip(t, c.ty, x)
			for b := 0; b < len(x)/QK; b++ {
				lo, hi := math.Inf(1), math.Inf(-1)
				for _, v := range x[b*QK : b*QK+QK] {
					lo, hi = math.Min(lo, float64(v)), math.Max(hi, float64(v))
				}
				d := (hi - lo) / c.nmax
				for j := b * QK; j < b*QK+QK; j++ {
					bound := (d*(0.5+c.nmax*0x1p-11)+math.Abs(lo)*0x1p-11)*(1+1e-6) + 1e-6*math.Abs(float64(x[j])) + 1e-30
					if e := math.Abs(float64(y[j]) - float64(x[j])); e > bound {
						t.Fatalf("%v %s: element %d: %v -> %v, error %g > bound %g", c.ty, name, j, x[j], y[j], e, bound)
					}
				}
			}
			switch name {
			case "gauss":
				r := quantRelRMS(y, x)
				t.Logf("%v Gaussian rel RMS %.3f%%", c.ty, 100*r)
				if r > c.gauss {
					t.Errorf("%v Gaussian rel RMS %.4f > %.3f", c.ty, r, c.gauss)
				}
			case "zeros":
				for i, v := range y {
					if v != 0 {
						t.Fatalf("%v zeros: element %d decoded as %v", c.ty, i, v)
					}
				}
			}
		}
	}
}

// TestQuantQ5_0Bounds: as Q4_0 with 32 levels. With x_ext the signed element
// of largest magnitude, d = x_ext/−16 and d' = float16(d): elements with
// x/d ≤ 15.5 are within |d|/2 + 16|d − d'| of their decoded value, the few
// on the far side of the extreme (x/d in (15.5, 16], clamped to 31) within
// |d| + 16|d − d'|: |d|·(1/2 + 2⁻⁷) resp. |d|·(1 + 2⁻⁷), plus 1e-6 relative
// slack.
func TestQuantQ5_0Bounds(t *testing.T) {
	sets := quantEdgeSets()
	sets["gauss"] = quantGauss(33, 1<<16, 0, 1)
	sets["positive-extreme"] = quantGauss(34, 1<<12, 0.5, 1)
	farSide := 0
	for name, x := range sets {
		y, _ := quantRoundTrip(t, Q5_0, x)
		for b := 0; b < len(x)/QK; b++ {
			var amax, ext float64
			for _, v := range x[b*QK : b*QK+QK] {
				if a := math.Abs(float64(v)); a > amax {
					amax, ext = a, float64(v)
				}
			}
			d := ext / -16
			for j := b * QK; j < b*QK+QK; j++ {
				bound := math.Abs(d)*(0.5+0x1p-7)*(1+1e-6) + 1e-30
				if d != 0 && float64(x[j])/d > 15.5 {
					bound = math.Abs(d)*(1+0x1p-7)*(1+1e-6) + 1e-30
					farSide++
				}
				if e := math.Abs(float64(y[j]) - float64(x[j])); e > bound {
					t.Fatalf("%s: Q5_0 element %d: %v -> %v, error %g > bound %g (d %g)", name, j, x[j], y[j], e, bound, d)
				}
			}
		}
		if name == "gauss" {
			// d ≈ E[max|x| of 32]/16 ≈ 2.4/16 = 0.15σ, uniform error
			// d/√12 ≈ 4.3 % of σ (measured 4.27 %).
			r := quantRelRMS(y, x)
			t.Logf("Q5_0 Gaussian rel RMS %.3f%%", 100*r)
			if r > 0.045 {
				t.Errorf("Q5_0 Gaussian rel RMS %.4f > 4.5%%", r)
			}
		}
	}
	if farSide == 0 {
		t.Errorf("no element exercised the far-side clamp")
	}
}

// TestQuantLegacy32Errors: non-finite input and block scales or minima beyond
// float16 fail with the block and element named, as for the other types.
func TestQuantLegacy32Errors(t *testing.T) {
	b := make([]byte, 64)
	minOverflow := slices.Repeat([]float32{-7e4}, 32) // d = 0, but m = −7e4 overflows
	cases := []struct {
		name string
		err  error
		want string
	}{
		{"NaN Q4_1", Quantize(Q4_1, b[:20], quantWith(32, 3, float32(math.NaN()))), "element 3"},
		{"Inf Q5_0", Quantize(Q5_0, b[:22], quantWith(32, 31, float32(math.Inf(1)))), "element 31"},
		{"NaN Q5_1 2nd block", Quantize(Q5_1, b[:48], quantWith(64, 40, float32(math.NaN()))), "block 1"},
		{"d overflow Q4_1", Quantize(Q4_1, b[:20], quantWith(32, 0, 1.2e6)), "overflows float16"},
		{"d overflow Q5_0", Quantize(Q5_0, b[:22], quantWith(32, 0, 1.2e6)), "overflows float16"},
		{"m overflow Q5_1", Quantize(Q5_1, b[:24], minOverflow), "overflows float16"},
		{"no IQ4_NL encoder", Quantize(IQ4_NL, b[:18], make([]float32, 32)), "unsupported"},
	}
	for _, c := range cases {
		if c.err == nil {
			t.Errorf("%s: no error", c.name)
		} else if !strings.Contains(c.err.Error(), c.want) {
			t.Errorf("%s: error %q does not mention %q", c.name, c.err, c.want)
		}
	}
}

// TestQuantLegacy32ExtremeMagnitudes is TestQuantExtremeMagnitudes for these
// encoders, down to float32 subnormals (where 1/d overflows and every code
// must still be valid) and up to ×1000, where the usual accuracy holds.
func TestQuantLegacy32ExtremeMagnitudes(t *testing.T) {
	base := quantGauss(35, 8*QK, 0, 1)
	for _, ty := range []Type{Q4_1, Q5_0, Q5_1} {
		for _, k := range []float32{1e-44, 1e-30, 1e-9, 1e-6, 1e-4, 1000} {
			x := make([]float32, len(base))
			for i := range x {
				x[i] = k * base[i]
			}
			y, _ := quantRoundTrip(t, ty, x)
			for i, v := range y {
				if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
					t.Fatalf("%v at scale %g: element %d decoded to %v", ty, k, i, v)
				}
			}
			if r := quantRelRMS(y, x); k == 1000 && r > 0.09 {
				t.Errorf("%v scale %g: rel RMS %.4f", ty, k, r)
			}
		}
	}
}

// TestQuantLegacy32Deterministic: the encoders keep no state between calls.
func TestQuantLegacy32Deterministic(t *testing.T) {
	x := quantGauss(36, 4*QKK, 0, 1)
	for _, ty := range []Type{Q4_1, Q5_0, Q5_1} {
		_, b1 := quantRoundTrip(t, ty, x)
		_, b2 := quantRoundTrip(t, ty, x)
		if !slices.Equal(b1, b2) {
			t.Errorf("%v: quantising twice gave different bytes", ty)
		}
	}
}

// ---------------------------------------------------------------------------
// Dot kernels: the assembly against the portable definition.

// TestLegacy32AsmMatchesPortable calls both row kernels directly on random
// blocks, for every block count from 1 to 9 (both halves of the two-block
// loop and the odd tail) and a few longer rows, and requires agreement to
// float32 summation order: both sum exact int32 products per block, so
// only the order of the float accumulation differs. The bound is relative
// to the magnitude of the float terms each kernel adds, offset terms included.
func TestLegacy32AsmMatchesPortable(t *testing.T) {
	pool := NewPool(1)
	defer pool.Close()
	kg, ka := newKernels(pool, false), newKernels(pool, true)
	if ka.Path() == kg.Path() {
		t.Skip("no assembly kernels on this CPU: only the portable path exists")
	}
	rng := rand.New(rand.NewPCG(37, 38))
	const rows = 3
	for _, ty := range legacy32Types {
		for _, nb := range []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 18, 64, 75} {
			cols := nb * QK
			w := randomWeights(rng, ty, rows, cols)
			x := randomVec(rng, cols)
			var buf actBuf
			buf.ensure(1, cols)
			a := buf.row(0, cols)
			quantizeAct(a, x)
			got, want := make([]float32, rows), make([]float32, rows)
			ka.rows[ty](w, x, a, got)
			kg.rows[ty](w, x, a, want)
			rb := len(w) / rows
			for r := range rows {
				mag := legacy32TermMagnitude(ty, w[r*rb:(r+1)*rb], a)
				if d := math.Abs(float64(got[r]) - float64(want[r])); d > 1e-6*mag {
					t.Errorf("%v %d blocks row %d: asm %g, go %g (|diff| %g > 1e-6·%g)", ty, nb, r, got[r], want[r], d, mag)
				}
			}
		}
	}
}

// legacy32TermMagnitude is Σ over blocks of |d·dx·Σq·xq| + |offset·dx·Σxq|,
// the size of the float terms a kernel accumulates for one row.
func legacy32TermMagnitude(ty Type, row []byte, a act) float64 {
	bs := ty.BlockBytes()
	var mag float64
	for b := range a.d {
		blk := row[b*bs : b*bs+bs]
		ws := make([]float32, QK)
		if err := Dequantize(ty, ws, blk); err != nil {
			panic(err)
		}
		var dot float64
		for i, v := range ws {
			dot += math.Abs(float64(v)) * math.Abs(float64(a.qs[b*QK+i]))
		}
		d := math.Abs(float64(F16ToF32(quantLE(blk))))
		if ty == MXFP4 {
			d = float64(E8M0Half(blk[0]))
		}
		off := 0.0
		switch ty {
		case Q4_1, Q5_1:
			off = math.Abs(float64(F16ToF32(quantLE(blk[2:]))))
		case Q5_0:
			off = 16 * d
		}
		// |d·q| ≤ |w| + |off| and |Σxq| ≤ 32·127: the product term is at
		// most dx·(dot + |off|·32·127) and the offset term dx·|off|·32·127.
		mag += (dot + 2*off*QK*127) * float64(a.d[b])
	}
	return mag
}

// TestLegacy32DotExtremes sets every code of every block to the level of
// largest magnitude and every activation to ±127 (x = ±1): the int16 pair
// sums of VPMADDUBSW then reach 2·15·127, 2·31·127 and, for IQ4_NL's −127
// level against −127, 32258, just under saturation (MXFP4's −12: 3048). Both paths must give the
// exact product, 32·|w|·dx per block summed over the blocks, to float
// rounding.
func TestLegacy32DotExtremes(t *testing.T) {
	pool := NewPool(1)
	defer pool.Close()
	paths := []*Kernels{newKernels(pool, false), newKernels(pool, true)}
	const nb = 9
	for _, ty := range legacy32Types {
		for _, sign := range []float32{1, -1} {
			bs := ty.BlockBytes()
			w := make([]byte, nb*bs)
			for b := range nb {
				blk := w[b*bs : b*bs+bs]
				binary.LittleEndian.PutUint16(blk, F32ToF16(0.5)) // d
				for i := range blk[2:] {
					blk[2+i] = 0xFF // every nibble 15, every fifth bit set
				}
				switch ty {
				case Q4_1, Q5_1:
					binary.LittleEndian.PutUint16(blk[2:], F32ToF16(-0.25)) // m
				case IQ4_NL:
					clear(blk[2:]) // level 0: −127
				case MXFP4:
					blk[0], blk[1] = 127, 0xFF // 2^−1; level 15: −12
				}
			}
			x := slices.Repeat([]float32{sign}, nb*QK)
			var buf actBuf
			buf.ensure(1, len(x))
			a := buf.row(0, len(x))
			quantizeAct(a, x)
			if f16Scales(ty) {
				buf.roundScales(1, len(x))
			}
			want, _ := refDot(t, ty, w, actValuesFor(ty, x))
			for _, k := range paths {
				got := make([]float32, 1)
				k.MatVec(got, mustMatrix(t, ty, 1, len(x), w), x)
				if d := math.Abs(float64(got[0]) - want); d > 1e-6*math.Abs(want) {
					t.Errorf("%v %s x=%v: got %g, want %g", ty, k.Path(), sign, got[0], want)
				}
			}
		}
	}
}

func mustMatrix(t *testing.T, ty Type, rows, cols int, data []byte) *Matrix {
	t.Helper()
	m, err := NewMatrix(ty, rows, cols, data)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestLegacy32MatVecsMixed: these types fuse with the others in one
// MatVecs call and give each product what a lone MatVec gives.
func TestLegacy32MatVecsMixed(t *testing.T) {
	checkMatVecsMixed(t, rand.New(rand.NewPCG(39, 40)), 576, Q5_0, Q8_0, IQ4_NL, Q4_1)
}

// checkMatVecsMixed runs one fused MatVecs over matrices of the given types
// (cols wide, of different heights) and checks each product against a lone
// MatVec, bit for bit.
func checkMatVecsMixed(t *testing.T, rng *rand.Rand, cols int, types ...Type) {
	t.Helper()
	k := NewKernels(nil)
	defer k.Close()
	ops := make([]MatVecOp, len(types))
	for i, ty := range types {
		rows := 17 + 10*i
		ops[i] = MatVecOp{Dst: make([]float32, rows), W: mustMatrix(t, ty, rows, cols, randomWeights(rng, ty, rows, cols))}
	}
	x := randomVec(rng, cols)
	k.MatVecs(x, ops...)
	for _, op := range ops {
		want := make([]float32, op.W.Rows)
		k.MatVec(want, op.W, x)
		if !slices.Equal(op.Dst, want) {
			t.Errorf("%v: fused %v, alone %v", op.W.Type, op.Dst[:3], want[:3])
		}
	}
}

// BenchmarkDequantizeLegacy32 is BenchmarkDequantize for these types: the
// encoded (file) bytes turned into float32 per second.
func BenchmarkDequantizeLegacy32(b *testing.B) {
	const n = 4096 * 256
	for _, ty := range legacy32Types {
		nb, _ := ty.RowBytes(n)
		src := quantRandomBlocks(41, ty, int(nb)/ty.BlockBytes(), 0)
		dst := make([]float32, n)
		b.Run(fmt.Sprint(ty), func(b *testing.B) {
			b.SetBytes(int64(nb))
			for b.Loop() {
				if err := Dequantize(ty, dst, src); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
