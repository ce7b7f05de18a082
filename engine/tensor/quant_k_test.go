package tensor

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// ---------------------------------------------------------------------------
// Hand-built K-quant blocks. Every expected value below is worked out from the
// block definition in the comments and written as a literal.

// TestDequantQ4KHand decodes one Q4_K super-block built by hand.
//
// Header: d = 0x3800 = 0.5, dmin = 0x3400 = 0.25.
//
// Packed scales (sc, m per sub-block j):
//
//	j=0: sc 3,  m 2   → bytes[0] low 6 bits = 3,  bytes[4] low 6 bits = 2
//	j=1: sc 10, m 0   → bytes[1] low 6 bits = 10, bytes[5] low 6 bits = 0
//	j=4: sc 37 = 0b10_0101, m 20 = 0b01_0100
//	     → bytes[8] = 0x5 | 0x4<<4 = 0x45; top bits: bytes[0] |= 2<<6, bytes[4] |= 1<<6
//	j=5: sc 63 = 0b11_1111, m 63
//	     → bytes[9] = 0xF | 0xF<<4 = 0xFF; top bits: bytes[1] |= 3<<6, bytes[5] |= 3<<6
//	j=2,3,6,7: sc 0, m 0.
//
// So scales = 83 CA 00 00 42 C0 00 00 45 FF 00 00. Decoding j=4 back:
// sc = (0x45 & 0xF) | (0x83 >> 6)<<4 = 5 | 32 = 37, m = (0x45 >> 4) | (0x42 >> 6)<<4
// = 4 | 16 = 20; j=5: sc = 15 | 3<<4 = 63, m = 15 | 3<<4 = 63.
//
// Effective per sub-block (d·sc, dmin·m): j0 (1.5, 0.5), j1 (5, 0), j4 (18.5, 5),
// j5 (31.5, 15.75), the rest (0, 0). With all nibbles 0 the sub-blocks decode to
// −m·dmin: j0 −0.5, j4 −5, j5 −15.75, others 0.
//
// Nibbles (chunk c = qs[32c..32c+32), low → sub-block 2c, high → 2c+1):
//
//	qs[0]  = 0x7F: w[0]   = 1.5·15 − 0.5 = 22;    w[32]  = 5·7 − 0 = 35
//	qs[31] = 0x01: w[31]  = 1.5·1 − 0.5 = 1;      w[63]  = 5·0 − 0 = 0
//	qs[64] = 0xA3: w[128] = 18.5·3 − 5 = 50.5;    w[160] = 31.5·10 − 15.75 = 299.25
//	qs[70] = 0x0F: w[134] = 18.5·15 − 5 = 272.5;  w[166] = 31.5·0 − 15.75 = −15.75
func TestDequantQ4KHand(t *testing.T) {
	b := make([]byte, 144)
	copy(b, []byte{0x00, 0x38, 0x00, 0x34})
	copy(b[4:16], []byte{0x83, 0xCA, 0x00, 0x00, 0x42, 0xC0, 0x00, 0x00, 0x45, 0xFF, 0x00, 0x00})
	qs := b[16:]
	qs[0], qs[31], qs[64], qs[70] = 0x7F, 0x01, 0xA3, 0x0F

	want := make([]float32, 256)
	fill := func(lo, hi int, v float32) {
		for i := lo; i < hi; i++ {
			want[i] = v
		}
	}
	fill(0, 32, -0.5)      // sub-block 0 default
	fill(128, 160, -5)     // sub-block 4 default
	fill(160, 192, -15.75) // sub-block 5 default
	want[0], want[32], want[31], want[63] = 22, 35, 1, 0
	want[128], want[160], want[134], want[166] = 50.5, 299.25, 272.5, -15.75

	y := make([]float32, 256)
	if err := Dequantize(Q4_K, y, b); err != nil {
		t.Fatal(err)
	}
	quantCompare(t, "Q4_K", y, want)
}

// TestDequantQ5KHand decodes one Q5_K super-block built by hand.
//
// Header: d = 0x3c00 = 1, dmin = 0x3800 = 0.5.
//
// Packed scales:
//
//	j=0: sc 2, m 1 → bytes[0] = 2, bytes[4] = 1
//	j=1: sc 1, m 0 → bytes[1] = 1, bytes[5] = 0
//	j=6: sc 17 = 0b01_0001, m 33 = 0b10_0001
//	     → bytes[10] = 0x1 | 0x1<<4 = 0x11; top bits: bytes[2] |= 1<<6 = 0x40,
//	       bytes[6] |= 2<<6 = 0x80
//	others 0.
//
// So scales = 02 01 40 00 01 00 80 00 00 00 11 00. Sub-block 2 reads
// sc = 0x40 & 63 = 0 and m = 0x80 & 63 = 0: the top bits belong to j=6 only.
// Sub-block 6 reads sc = 1 | 1<<4 = 17, m = 1 | 2<<4 = 33.
//
// Effective (d·sc, dmin·m): j0 (2, 0.5), j1 (1, 0), j6 (17, 16.5), rest (0, 0);
// all-zero quants decode to j0 −0.5, j6 −16.5, others 0.
//
// Quants: chunk c = qs[32c..), 5th bit of position l is bit 2c (low nibble)
// or 2c+1 (high nibble) of qh[l].
//
//	qs[0] = 0x3F, qh[0] = 0x01: w[0]  = 2·(15+16) − 0.5 = 61.5;  w[32] = 1·3 = 3
//	                            (bit 6 of qh[0] clear: w[192] stays −16.5)
//	qs[1] = 0x00, qh[1] = 0x02: w[1]  = 2·0 − 0.5 = −0.5;        w[33] = 1·(0+16) = 16
//	qs[2] = 0x00, qh[2] = 0x04: bit 2 is chunk 1's, so w[2] = −0.5 (31.5 if it leaked)
//	qs[101] = 0x0A, qh[5] = 0x40: chunk 3, l = 5: w[197] = 17·(10+16) − 16.5 = 425.5;
//	                            high nibble 0, bit 7 clear: w[229] = 0
func TestDequantQ5KHand(t *testing.T) {
	b := make([]byte, 176)
	copy(b, []byte{0x00, 0x3c, 0x00, 0x38})
	copy(b[4:16], []byte{0x02, 0x01, 0x40, 0x00, 0x01, 0x00, 0x80, 0x00, 0x00, 0x00, 0x11, 0x00})
	qh := b[16:48]
	qs := b[48:176]
	qs[0], qh[0] = 0x3F, 0x01
	qh[1] = 0x02
	qh[2] = 0x04
	qs[101], qh[5] = 0x0A, 0x40

	want := make([]float32, 256)
	for i := 0; i < 32; i++ {
		want[i] = -0.5 // sub-block 0 default
	}
	for i := 192; i < 224; i++ {
		want[i] = -16.5 // sub-block 6 default
	}
	want[0], want[32], want[1], want[33], want[2] = 61.5, 3, -0.5, 16, -0.5
	want[197], want[229] = 425.5, 0

	y := make([]float32, 256)
	if err := Dequantize(Q5_K, y, b); err != nil {
		t.Fatal(err)
	}
	quantCompare(t, "Q5_K", y, want)
}

// TestDequantQ6KHand decodes one Q6_K super-block built by hand.
//
// Layout: ql[0:128], qh[128:192], int8 scales[192:208], d[208:210].
// d = 0x3800 = 0.5. Scales: sc[0] = 2, sc[1] = 1, sc[2] = −3 (0xFD), sc[4] = 4,
// sc[6] = −1 (0xFF), sc[9] = 10, sc[15] = −128 (0x80), the rest 0.
// All-zero quants mean q−32 = −32, so sub-block k (elements 16k..16k+15)
// decodes to 0.5·sc[k]·(−32) = −16·sc[k]: sub 0 −32, sub 1 −16, sub 2 48,
// sub 4 −64, sub 6 16, sub 9 −160, sub 15 2048, others 0.
//
// Half 0, l = 0: ql[0] = 0x5A, ql[32] = 0xC3, qh[0] = 0xE4 = 0b11_10_01_00:
//
//	q1 = 0xA | 0<<4 = 10 → −22, y[0]  uses sc[0] =  2: 0.5·2·(−22)  = −22
//	q2 = 0x3 | 1<<4 = 19 → −13, y[32] uses sc[2] = −3: 0.5·(−3)·(−13) = 19.5
//	q3 = 0x5 | 2<<4 = 37 →   5, y[64] uses sc[4] =  4: 0.5·4·5      = 10
//	q4 = 0xC | 3<<4 = 60 →  28, y[96] uses sc[6] = −1: 0.5·(−1)·28  = −14
//
// Half 1 (ql += 64, qh += 32, sc += 8), l = 20: ql[84] = 0x0F, ql[116] = 0,
// qh[52] = 0x03:
//
//	q1 = 0xF | 3<<4 = 63 → 31, y[148] uses sc[8 + 20/16] = sc[9] = 10: 0.5·10·31 = 155
//	q2 = 0 → −32, y[180] uses sc[11] = 0: 0
//	q3 = 0 → −32, y[212] uses sc[13] = 0: 0
//	q4 = 0 → −32, y[244] uses sc[15] = −128: 0.5·(−128)·(−32) = 2048
func TestDequantQ6KHand(t *testing.T) {
	b := make([]byte, 210)
	ql, qh, sc := b[0:128], b[128:192], b[192:208]
	sc[0], sc[1], sc[2], sc[4], sc[6], sc[9], sc[15] = 2, 1, 0xFD, 4, 0xFF, 10, 0x80
	b[208], b[209] = 0x00, 0x38
	ql[0], ql[32], qh[0] = 0x5A, 0xC3, 0xE4
	ql[84], qh[52] = 0x0F, 0x03

	want := make([]float32, 256)
	for k, v := range map[int]float32{0: -32, 1: -16, 2: 48, 4: -64, 6: 16, 9: -160, 15: 2048} {
		for i := 16 * k; i < 16*k+16; i++ {
			want[i] = v
		}
	}
	want[0], want[32], want[64], want[96] = -22, 19.5, 10, -14
	want[148], want[180], want[212], want[244] = 155, 0, 0, 2048

	y := make([]float32, 256)
	if err := Dequantize(Q6_K, y, b); err != nil {
		t.Fatal(err)
	}
	quantCompare(t, "Q6_K", y, want)
}

func quantCompare(t *testing.T, name string, got, want []float32) {
	t.Helper()
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("%s element %d: got %v, want %v", name, i, got[i], want[i])
		}
	}
}

// ---------------------------------------------------------------------------
// Independent per-element reference decoders: for element e, locate its byte
// and bits directly from the layout description, instead of looping over
// chunks as the decoders under test do. They round products in the same order
// (d·sc first) so the comparison is exact.

func quantRefScaleMin(sc []byte, j int) (int, int) {
	if j < 4 {
		return int(sc[j] & 63), int(sc[j+4] & 63)
	}
	lo := sc[8+j-4]
	return int(lo&0xF) + int(sc[j-4]>>6)*16, int(lo>>4) + int(sc[j]>>6)*16
}

func quantRefQ4K(src []byte, e int) float32 {
	b := src[(e/256)*144:]
	i := e % 256
	d, dmin := float32(halfOracle(quantLE(b[0:]))), float32(halfOracle(quantLE(b[2:])))
	sc, m := quantRefScaleMin(b[4:16], i/32)
	q := int(b[16+32*(i/64)+i%32]>>(4*((i/32)%2))) & 0xF
	return float32(d*float32(sc))*float32(q) - dmin*float32(m)
}

func quantRefQ5K(src []byte, e int) float32 {
	b := src[(e/256)*176:]
	i := e % 256
	d, dmin := float32(halfOracle(quantLE(b[0:]))), float32(halfOracle(quantLE(b[2:])))
	sc, m := quantRefScaleMin(b[4:16], i/32)
	q := int(b[48+32*(i/64)+i%32]>>(4*((i/32)%2))) & 0xF
	q += 16 * int(b[16+i%32]>>(i/32)&1) // sub-block j's 5th bit is bit j of qh[l]
	return float32(d*float32(sc))*float32(q) - dmin*float32(m)
}

func quantRefQ6K(src []byte, e int) float32 {
	b := src[(e/256)*210:]
	i := e % 256
	h, r := i/128, i%128
	g, l := r/32, r%32                   // g: which of the four 32-wide groups of the half
	lowByte := b[64*h+l+32*(g%2)]        // groups 0,2 use ql[l]; 1,3 use ql[l+32]
	low := int(lowByte>>(4*(g/2))) & 0xF // groups 0,1 low nibble; 2,3 high
	high := int(b[128+32*h+l]>>(2*g)) & 3
	d := float32(halfOracle(quantLE(b[208:])))
	sc := float32(int8(b[192+i/16]))
	return float32(d*sc) * float32(low|high<<4-32)
}

// quantLE reads a little-endian uint16.
func quantLE(b []byte) uint16 { return uint16(b[0]) | uint16(b[1])<<8 }

func TestDequantKMatchesReference(t *testing.T) {
	for _, c := range []struct {
		ty    Type
		ref   func([]byte, int) float32
		halfs []int
	}{
		{Q4_K, quantRefQ4K, []int{0, 2}},
		{Q5_K, quantRefQ5K, []int{0, 2}},
		{Q6_K, quantRefQ6K, []int{208}},
	} {
		const nb = 16
		src := quantRandomBlocks(6, c.ty, nb, c.halfs...)
		y := make([]float32, nb*QKK)
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

// TestQuantKScalePacking round-trips kPackScaleMin/kScaleMin for random 6-bit
// values in every slot, and for the all-ones pattern that uses every bit.
func TestQuantKScalePacking(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 8))
	for it := 0; it < 2000; it++ {
		var ls, lm [8]uint8
		for j := range ls {
			ls[j], lm[j] = uint8(rng.IntN(64)), uint8(rng.IntN(64))
		}
		if it == 0 {
			for j := range ls {
				ls[j], lm[j] = 63, 63
			}
		}
		var s [12]byte
		kPackScaleMin(&s, &ls, &lm)
		for j := 0; j < 8; j++ {
			sc, m := kScaleMin(j, &s)
			if sc != ls[j] || m != lm[j] {
				t.Fatalf("slot %d: packed (%d,%d), unpacked (%d,%d), bytes % x", j, ls[j], lm[j], sc, m, s)
			}
			if rs, rm := quantRefScaleMin(s[:], j); rs != int(ls[j]) || rm != int(lm[j]) {
				t.Fatalf("slot %d: reference unpacks (%d,%d), want (%d,%d)", j, rs, rm, ls[j], lm[j])
			}
		}
	}
}

// ---------------------------------------------------------------------------
// Quantiser error bounds.
//
// Gaussian data, N(0,1), 64 super-blocks per type. Derivation of the bounds
// (a uniform quantiser with step Δ has RMS error Δ/√12):
//
//   - Q4_K: a sub-block of 32 samples spans E[max − min] ≈ 2·2.04σ = 4.1σ,
//     covered by 15 steps: Δ ≈ 0.27σ, Δ/√12 ≈ 7.9 %. The least-squares fit
//     of (scale, min) lets the extremes round inward and does better; we
//     measured 7.0 % and bound it at 7.5 %.
//   - Q5_K: same span over 31 steps: Δ ≈ 0.132σ, Δ/√12 ≈ 3.8 %; measured
//     3.5 %, bound 3.7 %.
//   - Q6_K: 16-sample sub-blocks, symmetric levels −32..31 from the signed
//     extreme, E[max|x|] ≈ 2.0σ: Δ ≈ 2.0σ/32 = 0.0625σ, Δ/√12 ≈ 1.8 %;
//     measured 1.79 %, bound 1.9 %.
//
// The 6- and 8-bit scale codes and float16 super-scales add little on top,
// because the quantiser re-fits the levels to the decoded scales (step 3 in
// quant_k.go). A wrong layout would give ~100 %.
func TestQuantKGaussianBounds(t *testing.T) {
	x := quantGauss(10, 64*QKK, 0, 1)
	for _, c := range []struct {
		ty    Type
		bound float64
	}{{Q4_K, 0.075}, {Q5_K, 0.037}, {Q6_K, 0.019}} {
		y, _ := quantRoundTrip(t, c.ty, x)
		r := quantRelRMS(y, x)
		t.Logf("%v Gaussian rel RMS %.3f%% (bound %.1f%%)", c.ty, 100*r, 100*c.bound)
		if r > c.bound {
			t.Errorf("%v Gaussian rel RMS %.4f > %.4f", c.ty, r, c.bound)
		}
		// Scaling the data must scale the error: relative RMS is scale free
		// (the float16 super-scales have the same relative precision across
		// their normal range).
		for _, k := range []float32{0.3, 300} {
			xs := make([]float32, len(x))
			for i := range x {
				xs[i] = k * x[i]
			}
			ys, _ := quantRoundTrip(t, c.ty, xs)
			if rs := quantRelRMS(ys, xs); math.Abs(rs-r) > 0.05*r {
				t.Errorf("%v: rel RMS %.4f at scale %g vs %.4f at 1", c.ty, rs, k, r)
			}
		}
	}
}

// TestQuantKEdgeData checks the K-quantisers on degenerate inputs.
//
//   - zeros decode to exact zeros (all scales and mins 0).
//   - a constant c is one level: for c > 0 the sub-block fit is s = c/nmax
//     (resp. c/−32 for Q6_K) at the top level, for c < 0 it is s = 0 with
//     min −c. The 6-bit (8-bit) code lands on 63 (127) and the value is off
//     only by the float16 rounding of d or dmin: |err| ≤ |c|·2⁻¹¹ (+ float32
//     slack).
//   - one 50σ outlier per super-block (at element 100). Its own sub-block
//     (32 weights, 16 for Q6_K) must span it, so every element there is within
//     0.6 of a nominal step Δ = (max − min(min,0))/nmax (Q6_K: max|x|/32): half
//     a step of rounding plus 20 % for the scale code and float16 slack
//     (measured 0.50). The other
//     sub-blocks' scales become coarse codes of d = (largest scale)/63: a Q4_K
//     Gaussian sub-block's scale ≈ 0.27 is code ≈ 5 of d ≈ 3.5/63 = 0.055, so
//     ±10 % granularity, which the code search mostly absorbs: their relative
//     RMS stays within 1.15× the Gaussian bound (measured 7.95 %, 3.9 %,
//     2.08 % against 8.6 %, 4.3 %, 2.2 %).
//   - negative-only data −|N(0,1)| − 0.5 (RMS ≈ 1.3): Q4_K/Q5_K use the min, so
//     their levels span only the data's own spread, E[max − min] ≈ 2.1 over 32:
//     Δ/√12 ≈ 0.04 resp. 0.02, i.e. ≈ 3.1 % resp. 1.5 % of the RMS (measured
//     2.7 %, 1.3 %; bounds 3.3 %, 1.6 %). Q6_K has no min, so one-signed data
//     use only its 32 negative levels: Δ ≈ E[max|x| of 16] / 32 ≈ 2.4/32,
//     Δ/√12 ≈ 0.022 ≈ 1.7 % (measured 1.5 %, bound 2 %).
func TestQuantKEdgeData(t *testing.T) {
	for _, c := range []struct {
		ty                   Type
		sub, nmax            int
		gaussBound, negBound float64
	}{
		{Q4_K, 32, 15, 0.075, 0.033},
		{Q5_K, 32, 31, 0.037, 0.016},
		{Q6_K, 16, 32, 0.019, 0.020},
	} {
		sets := quantEdgeSets()
		for _, name := range []string{"zeros", "const+0.7", "const-3.3", "outlier", "negative"} {
			x := sets[name]
			y, _ := quantRoundTrip(t, c.ty, x)
			switch name {
			case "zeros":
				for i, v := range y {
					if v != 0 {
						t.Fatalf("%v zeros: element %d = %v", c.ty, i, v)
					}
				}
			case "const+0.7", "const-3.3":
				for i, v := range y {
					bound := math.Abs(float64(x[i])) * (0x1p-11 + 0x1p-20)
					if e := math.Abs(float64(v) - float64(x[i])); e > bound {
						t.Fatalf("%v %s: element %d = %v, error %g > %g", c.ty, name, i, v, e, bound)
					}
				}
			case "outlier":
				var se, sx, worst float64
				for sb := 0; sb < len(x)/c.sub; sb++ {
					xs, ys := x[sb*c.sub:(sb+1)*c.sub], y[sb*c.sub:(sb+1)*c.sub]
					if !slices.Contains(xs, 50) {
						for i := range xs {
							d := float64(ys[i]) - float64(xs[i])
							se += d * d
							sx += float64(xs[i]) * float64(xs[i])
						}
						continue
					}
					lo, hi := 0.0, 0.0
					for _, v := range xs {
						lo, hi = math.Min(lo, float64(v)), math.Max(hi, float64(v))
					}
					step := (hi - lo) / float64(c.nmax)
					if c.ty == Q6_K {
						step = math.Max(hi, -lo) / 32
					}
					for i := range xs {
						e := math.Abs(float64(ys[i]) - float64(xs[i]))
						worst = math.Max(worst, e/step)
						if e > 0.6*step {
							t.Errorf("%v outlier sub-block %d element %d: %v -> %v, error %g > 0.6·step %g", c.ty, sb, i, xs[i], ys[i], e, 0.6*step)
						}
					}
				}
				rg := math.Sqrt(se / sx)
				t.Logf("%v outlier: other sub-blocks rel RMS %.3f%%; outlier sub-blocks max error %.2f steps", c.ty, 100*rg, worst)
				if rg > 1.15*c.gaussBound {
					t.Errorf("%v outlier: other sub-blocks rel RMS %.4f > %.4f", c.ty, rg, 1.15*c.gaussBound)
				}
			case "negative":
				r := quantRelRMS(y, x)
				t.Logf("%v negative-only rel RMS %.3f%%", c.ty, 100*r)
				if r > c.negBound {
					t.Errorf("%v negative-only rel RMS %.4f > %.3f", c.ty, r, c.negBound)
				}
				for i, v := range y {
					if v > 0 {
						t.Fatalf("%v negative-only: element %d decoded positive %v", c.ty, i, v)
					}
				}
			}
		}
	}
}

// TestQuantKDeterministic: quantising the same data twice gives the same
// bytes (no map iteration order or other hidden state in the search).
func TestQuantKDeterministic(t *testing.T) {
	x := quantGauss(12, 8*QKK, 0, 1)
	for _, ty := range []Type{Q4_K, Q5_K, Q6_K} {
		_, b1 := quantRoundTrip(t, ty, x)
		_, b2 := quantRoundTrip(t, ty, x)
		if !slices.Equal(b1, b2) {
			t.Errorf("%v: quantising twice gave different bytes", ty)
		}
	}
}
