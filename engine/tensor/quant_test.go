package tensor

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// ---------------------------------------------------------------------------
// Helpers shared by the quantisation tests.

// quantGauss returns n samples of N(mean, sigma²) from a fixed seed.
func quantGauss(seed uint64, n int, mean, sigma float64) []float32 {
	rng := rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))
	x := make([]float32, n)
	for i := range x {
		x[i] = float32(mean + sigma*rng.NormFloat64())
	}
	return x
}

// quantRoundTrip quantises x as t and dequantises it through the exported API.
func quantRoundTrip(t *testing.T, ty Type, x []float32) ([]float32, []byte) {
	t.Helper()
	n, err := ty.RowBytes(uint64(len(x)))
	if err != nil {
		t.Fatalf("RowBytes(%v, %d): %v", ty, len(x), err)
	}
	buf := make([]byte, n)
	if err := Quantize(ty, buf, x); err != nil {
		t.Fatalf("Quantize(%v): %v", ty, err)
	}
	y := make([]float32, len(x))
	if err := Dequantize(ty, y, buf); err != nil {
		t.Fatalf("Dequantize(%v): %v", ty, err)
	}
	return y, buf
}

// quantRelRMS is ‖got − want‖₂ / ‖want‖₂, computed in float64.
func quantRelRMS(got, want []float32) float64 {
	var se, sw float64
	for i := range want {
		d := float64(got[i]) - float64(want[i])
		se += d * d
		sw += float64(want[i]) * float64(want[i])
	}
	return math.Sqrt(se / sw)
}

// quantEdgeSets returns the edge-case inputs every block type is tested on,
// each 4 super-blocks (1024 values) long.
func quantEdgeSets() map[string][]float32 {
	const n = 4 * QKK
	zeros := make([]float32, n)
	constPos := make([]float32, n)
	constNeg := make([]float32, n)
	for i := range constPos {
		constPos[i] = 0.7
		constNeg[i] = -3.3
	}
	outlier := quantGauss(21, n, 0, 1)
	for i := 100; i < n; i += QKK { // one 50σ outlier per super-block
		outlier[i] = 50
	}
	negOnly := quantGauss(22, n, 0, 1)
	for i, v := range negOnly {
		negOnly[i] = -float32(math.Abs(float64(v))) - 0.5
	}
	return map[string][]float32{
		"zeros": zeros, "const+0.7": constPos, "const-3.3": constNeg,
		"outlier": outlier, "negative": negOnly,
	}
}

// ---------------------------------------------------------------------------
// API behaviour.

func TestQuantAPIErrors(t *testing.T) {
	f := make([]float32, 256)
	b := make([]byte, 1024)
	cases := []struct {
		name string
		err  error
		want string
	}{
		{"dequant unsupported", Dequantize(Q8_1, f[:32], b[:36]), "unsupported"},
		{"dequant unknown", Dequantize(Type(99), f[:32], b[:20]), "unsupported"},
		{"dequant partial block", Dequantize(Q8_0, f[:33], b[:34]), "multiple"},
		{"dequant short src", Dequantize(Q8_0, f[:32], b[:33]), "need 34 bytes, got 33"},
		{"dequant long src", Dequantize(Q4_K, f[:256], b[:145]), "need 144 bytes, got 145"},
		{"dequant f32 short", Dequantize(F32, f[:3], b[:11]), "need 12 bytes"},
		{"quant unsupported", Quantize(IQ2_XXS, b[:66], f[:256]), "unsupported"},
		{"quant partial block", Quantize(Q6_K, b[:210], f[:255]), "multiple"},
		{"quant wrong dst", Quantize(Q5_K, b[:175], f[:256]), "need 176 bytes, got 175"},
		{"quant NaN Q8_0", Quantize(Q8_0, b[:34], quantWith(32, 5, float32(math.NaN()))), "element 5"},
		{"quant Inf Q4_K", Quantize(Q4_K, b[:144], quantWith(256, 200, float32(math.Inf(-1)))), "element 200"},
		{"quant overflow Q8_0", Quantize(Q8_0, b[:34], quantWith(32, 0, 1e10)), "overflows float16"},
		{"quant overflow Q4_0", Quantize(Q4_0, b[:18], quantWith(32, 0, 6e5)), "overflows float16"},
		{"quant overflow Q6_K", Quantize(Q6_K, b[:210], quantWith(256, 0, 3e8)), "overflows float16"},
		{"quant NaN 2nd block", Quantize(Q4_0, b[:36], quantWith(64, 40, float32(math.NaN()))), "block 1"},
	}
	for _, c := range cases {
		if c.err == nil {
			t.Errorf("%s: no error", c.name)
		} else if !strings.Contains(c.err.Error(), c.want) {
			t.Errorf("%s: error %q does not mention %q", c.name, c.err, c.want)
		}
	}
	// Empty input is zero blocks: fine.
	if err := Dequantize(Q4_K, nil, nil); err != nil {
		t.Errorf("Dequantize of nothing: %v", err)
	}
	// Plain float types store non-finite values as they are.
	if err := Quantize(F16, b[:2], []float32{float32(math.NaN())}); err != nil {
		t.Errorf("Quantize(F16, NaN): %v", err)
	}
	// A failed Dequantize must not touch dst.
	dst := []float32{1, 2, 3}
	_ = Dequantize(F32, dst, b[:11])
	if !slices.Equal(dst, []float32{1, 2, 3}) {
		t.Errorf("failed Dequantize wrote dst: %v", dst)
	}
}

// TestQuantExtremeMagnitudes quantises Gaussian data scaled far down (block
// scales in or below float16's subnormal range) and up (×1000). The formats
// lose precision at the bottom, as ggml's do, but every type must encode
// without error and decode to finite values, and at ×1000 keep its usual
// accuracy.
func TestQuantExtremeMagnitudes(t *testing.T) {
	base := quantGauss(13, 8*QKK, 0, 1)
	for _, ty := range []Type{F16, BF16, Q8_0, Q4_0, Q4_K, Q5_K, Q6_K} {
		for _, k := range []float32{1e-9, 1e-6, 1e-4, 1000} {
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
			r := quantRelRMS(y, x)
			t.Logf("%v scale %g: rel RMS %.3g", ty, k, r)
			if k == 1000 && r > 0.09 {
				t.Errorf("%v scale %g: rel RMS %.4f", ty, k, r)
			}
			// The K-quant search always has the all-zero codes on trial, so
			// no sub-block may decode worse than zeroing it.
			if w := map[Type]int{Q4_K: 32, Q5_K: 32, Q6_K: 16}[ty]; w != 0 {
				for sb := 0; sb < len(x)/w; sb++ {
					var se, sx float64
					for i := w * sb; i < w*sb+w; i++ {
						d := float64(y[i]) - float64(x[i])
						se += d * d
						sx += float64(x[i]) * float64(x[i])
					}
					if se > sx*(1+1e-9) {
						t.Fatalf("%v scale %g: sub-block %d decodes worse than zeros (%g > %g)", ty, k, sb, se, sx)
					}
				}
			}
		}
	}
}

// quantWith returns n zeros with x[i] = v.
func quantWith(n, i int, v float32) []float32 {
	x := make([]float32, n)
	x[i] = v
	return x
}

// ---------------------------------------------------------------------------
// F32, F16, BF16.

func TestQuantFloatTypes(t *testing.T) {
	x := quantGauss(1, 1<<14, 0, 1)
	x = append(x, 65504, -65504, 1e-4, 0x1p-14, math.MaxFloat32, 1e-30)
	// F32 is the identity, bit for bit, NaN payloads included.
	xf := append(slices.Clone(x), math.Float32frombits(0x7fa00001), float32(math.Inf(-1)))
	y, _ := quantRoundTrip(t, F32, xf)
	for i := range xf {
		if math.Float32bits(y[i]) != math.Float32bits(xf[i]) {
			t.Fatalf("F32 element %d: %#08x -> %#08x", i, math.Float32bits(xf[i]), math.Float32bits(y[i]))
		}
	}
	// F16: round to nearest with 11 significant bits, so the relative error
	// of a normal half (|x| in [2⁻¹⁴, 65504]) is at most 2⁻¹¹.
	y, _ = quantRoundTrip(t, F16, x)
	for i, v := range x {
		a := math.Abs(float64(v))
		if a < 0x1p-14 || a > 65504 {
			continue
		}
		if e := math.Abs(float64(y[i]) - float64(v)); e > a*0x1p-11 {
			t.Fatalf("F16 %v -> %v: error %g > 2^-11 relative", v, y[i], e)
		}
	}
	if !math.IsInf(float64(y[len(x)-2]), 1) || y[len(x)-1] != 0 {
		t.Errorf("F16 overflow/underflow: MaxFloat32 -> %v, 1e-30 -> %v", y[len(x)-2], y[len(x)-1])
	}
	// BF16: 8 significant bits, relative error at most 2⁻⁸ over float32's
	// normal range.
	y, _ = quantRoundTrip(t, BF16, x)
	for i, v := range x {
		a := math.Abs(float64(v))
		if a < 0x1p-126 || a >= math.MaxFloat32 {
			continue
		}
		if e := math.Abs(float64(y[i]) - float64(v)); e > a*0x1p-8 {
			t.Fatalf("BF16 %v -> %v: error %g > 2^-8 relative", v, y[i], e)
		}
	}
	t.Logf("Gaussian rel RMS: F16 %.2e", quantRelRMS(mustRT(t, F16, x[:1<<14]), x[:1<<14]))
	t.Logf("Gaussian rel RMS: BF16 %.2e", quantRelRMS(mustRT(t, BF16, x[:1<<14]), x[:1<<14]))
}

func mustRT(t *testing.T, ty Type, x []float32) []float32 {
	y, _ := quantRoundTrip(t, ty, x)
	return y
}

// TestDequantF16Exhaustive: the inline fast path of dequantF16 must give the
// same bits as F16ToF32 (checked exhaustively in half_test.go) for all 65536
// patterns, NaN payloads included.
func TestDequantF16Exhaustive(t *testing.T) {
	src := make([]byte, 2<<16)
	for i := 0; i < 1<<16; i++ {
		src[2*i], src[2*i+1] = byte(i), byte(i>>8)
	}
	y := make([]float32, 1<<16)
	if err := Dequantize(F16, y, src); err != nil {
		t.Fatal(err)
	}
	for i, v := range y {
		if want := F16ToF32(uint16(i)); math.Float32bits(v) != math.Float32bits(want) {
			t.Fatalf("F16 %#04x: got %#08x, want %#08x", i, math.Float32bits(v), math.Float32bits(want))
		}
	}
}

func TestDequantFloatHand(t *testing.T) {
	// F32 little-endian: 0x3fc00000 = 1.5, 0xc1200000 = -10.
	y := make([]float32, 2)
	if err := Dequantize(F32, y, []byte{0x00, 0x00, 0xc0, 0x3f, 0x00, 0x00, 0x20, 0xc1}); err != nil {
		t.Fatal(err)
	}
	if y[0] != 1.5 || y[1] != -10 {
		t.Errorf("F32: got %v, want [1.5 -10]", y)
	}
	// F16 little-endian: 0x3c00 = 1, 0xc500 = -(1+1/4)·2² = -5.
	if err := Dequantize(F16, y, []byte{0x00, 0x3c, 0x00, 0xc5}); err != nil {
		t.Fatal(err)
	}
	if y[0] != 1 || y[1] != -5 {
		t.Errorf("F16: got %v, want [1 -5]", y)
	}
	// BF16 little-endian: 0x3f80 = 1, 0x4049 = 3.140625.
	if err := Dequantize(BF16, y, []byte{0x80, 0x3f, 0x49, 0x40}); err != nil {
		t.Fatal(err)
	}
	if y[0] != 1 || y[1] != 3.140625 {
		t.Errorf("BF16: got %v, want [1 3.140625]", y)
	}
}

// ---------------------------------------------------------------------------
// Q8_0.

// TestQuantQ8_0Bounds: with d = max|x|/127 per block and d' = float16(d) the
// stored scale, every element satisfies |x − d'q| ≤ d/2 + 127·|d − d'|
// ≤ d·(1/2 + 127·2⁻¹¹) (see quantQ8_0). The test allows 1e-6 relative slack
// for float32 rounding of x/d and d'q.
func TestQuantQ8_0Bounds(t *testing.T) {
	sets := quantEdgeSets()
	sets["gauss"] = quantGauss(2, 1<<16, 0, 1)
	for name, x := range sets {
		y, _ := quantRoundTrip(t, Q8_0, x)
		for b := 0; b < len(x)/QK; b++ {
			var amax float64
			for _, v := range x[b*QK : b*QK+QK] {
				amax = math.Max(amax, math.Abs(float64(v)))
			}
			d := amax / 127
			bound := d*(0.5+127*0x1p-11)*(1+1e-6) + 1e-30
			for j := b * QK; j < b*QK+QK; j++ {
				if e := math.Abs(float64(y[j]) - float64(x[j])); e > bound {
					t.Fatalf("%s: Q8_0 element %d: %v -> %v, error %g > bound %g", name, j, x[j], y[j], e, bound)
				}
			}
		}
		if name == "gauss" {
			// Uniform rounding error d/√12 with d ≈ E[max|x| of 32]/127 ≈ 2.2/127
			// gives ≈ 0.5 % of σ.
			r := quantRelRMS(y, x)
			t.Logf("Q8_0 Gaussian rel RMS %.4f%%", 100*r)
			if r > 0.006 {
				t.Errorf("Q8_0 Gaussian rel RMS %.4f > 0.6%%", r)
			}
		}
		if name == "zeros" {
			for i, v := range y {
				if v != 0 {
					t.Fatalf("zeros: element %d decoded as %v", i, v)
				}
			}
		}
	}
}

// TestQuantQ8_0Hand checks the encoder's bytes on a block worked by hand:
// max|x| = 127, so d = 1 exactly (float16 0x3c00) and q = roundf(x), with
// halves rounded away from zero as C's roundf does.
func TestQuantQ8_0Hand(t *testing.T) {
	x := make([]float32, 32)
	x[0], x[1], x[2], x[3], x[4], x[31] = 127, 2.5, -2.5, 0.49, -126.6, -0.5
	b := make([]byte, 34)
	if err := Quantize(Q8_0, b, x); err != nil {
		t.Fatal(err)
	}
	want := make([]byte, 34)
	want[0], want[1] = 0x00, 0x3c // d = 1.0
	want[2] = 127                 // 127
	want[3] = 3                   // 2.5 -> 3 (away from zero)
	want[4] = 0xfd                // -2.5 -> -3
	want[5] = 0                   // 0.49 -> 0
	want[6] = 0x81                // -126.6 -> -127
	want[33] = 0xff               // -0.5 -> -1 (away from zero)
	if !slices.Equal(b, want) {
		t.Errorf("Q8_0 bytes\n got % x\nwant % x", b, want)
	}
}

// TestDequantQ8_0Hand decodes a block built by hand.
func TestDequantQ8_0Hand(t *testing.T) {
	b := make([]byte, 34)
	// d = 0x3400: exponent field 13, mantissa 0 → 2^(13−15) = 0.25.
	b[0], b[1] = 0x00, 0x34
	b[2] = 0x7f  // q[0] = 127  → 0.25·127 = 31.75
	b[3] = 0x80  // q[1] = −128 → −32
	b[4] = 0xff  // q[2] = −1   → −0.25
	b[33] = 0x05 // q[31] = 5   → 1.25
	y := make([]float32, 32)
	if err := Dequantize(Q8_0, y, b); err != nil {
		t.Fatal(err)
	}
	want := make([]float32, 32)
	want[0], want[1], want[2], want[31] = 31.75, -32, -0.25, 1.25
	if !slices.Equal(y, want) {
		t.Errorf("Q8_0\n got %v\nwant %v", y, want)
	}
}

// ---------------------------------------------------------------------------
// Q4_0.

// TestQuantQ4_0Bounds: with x_ext the signed element of largest magnitude,
// d = x_ext/−8 and d' = float16(d): elements with x/d ≤ 7.5 are within
// |d|/2 + 8|d − d'| of their decoded value; the few on the far side of the
// extreme (x/d in (7.5, 8], which clamp to level 15) within |d| + 8|d − d'|.
// So |err| ≤ |d|(1/2 + 2⁻⁸) resp. |d|(1 + 2⁻⁸), plus 1e-6 relative slack.
func TestQuantQ4_0Bounds(t *testing.T) {
	sets := quantEdgeSets()
	sets["gauss"] = quantGauss(3, 1<<16, 0, 1)
	sets["positive-extreme"] = quantGauss(4, 1<<12, 0.5, 1) // more blocks whose extreme is positive
	farSide := 0
	for name, x := range sets {
		y, _ := quantRoundTrip(t, Q4_0, x)
		for b := 0; b < len(x)/QK; b++ {
			var amax, ext float64
			for _, v := range x[b*QK : b*QK+QK] {
				if a := math.Abs(float64(v)); a > amax {
					amax, ext = a, float64(v)
				}
			}
			d := ext / -8
			for j := b * QK; j < b*QK+QK; j++ {
				bound := math.Abs(d)*(0.5+0x1p-8)*(1+1e-6) + 1e-30
				if d != 0 && float64(x[j])/d > 7.5 {
					bound = math.Abs(d)*(1+0x1p-8)*(1+1e-6) + 1e-30
					farSide++
				}
				if e := math.Abs(float64(y[j]) - float64(x[j])); e > bound {
					t.Fatalf("%s: Q4_0 element %d: %v -> %v, error %g > bound %g (d %g)", name, j, x[j], y[j], e, bound, d)
				}
			}
		}
		if name == "gauss" {
			// d ≈ E[max|x| of 32]/8 ≈ 2.2/8 = 0.27σ, uniform error d/√12 ≈ 8 % of σ.
			r := quantRelRMS(y, x)
			t.Logf("Q4_0 Gaussian rel RMS %.3f%%", 100*r)
			if r > 0.09 {
				t.Errorf("Q4_0 Gaussian rel RMS %.4f > 9%%", r)
			}
		}
	}
	if farSide == 0 {
		t.Errorf("no element exercised the far-side clamp")
	}
}

// TestQuantQ4_0Hand checks the encoder against ggml's rule worked by hand.
func TestQuantQ4_0Hand(t *testing.T) {
	// Block A: the extreme is −8 (x[0]), so d = −8/−8 = 1 (0x3c00), 1/d = 1 and
	// q = min(15, trunc(x + 8.5)):
	//   x[0]  = −8   → trunc(0.5)  = 0
	//   x[1]  = 0.5  → trunc(9.0)  = 9   (halves round up, as in ggml)
	//   x[2]  = −0.5 → trunc(8.0)  = 8
	//   x[3]  = 7.6  → trunc(16.1) = 16 → clamped to 15
	//   x[16] = 3.2  → trunc(11.7) = 11  (high nibble of byte 0)
	//   x[17] = −7.7 → trunc(0.8)  = 0   (high nibble of byte 1)
	//   zeros        → 8
	// Byte j = q[j] | q[j+16]<<4.
	x := make([]float32, 64)
	x[0], x[1], x[2], x[3], x[16], x[17] = -8, 0.5, -0.5, 7.6, 3.2, -7.7
	// Block B: the extreme is +8 (x[32]), so d = 8/−8 = −1 (0xbc00), 1/d = −1:
	//   x[32] = 8  → trunc(−8 + 8.5) = 0 → decodes to −1·(0−8) = 8
	//   x[33] = −8 → trunc(8 + 8.5) = 16 → 15 → decodes to −1·(15−8) = −7,
	//   the documented |d| error on the far side of the extreme.
	x[32], x[33] = 8, -8
	b := make([]byte, 36)
	if err := Quantize(Q4_0, b, x); err != nil {
		t.Fatal(err)
	}
	want := []byte{
		0x00, 0x3c, // d = 1
		0xb0, 0x09, 0x88, 0x8f, 0x88, 0x88, 0x88, 0x88, 0x88, 0x88, 0x88, 0x88, 0x88, 0x88, 0x88, 0x88,
		0x00, 0xbc, // d = −1
		0x80, 0x8f, 0x88, 0x88, 0x88, 0x88, 0x88, 0x88, 0x88, 0x88, 0x88, 0x88, 0x88, 0x88, 0x88, 0x88,
	}
	if !slices.Equal(b, want) {
		t.Errorf("Q4_0 bytes\n got % x\nwant % x", b, want)
	}
	y := make([]float32, 64)
	if err := Dequantize(Q4_0, y, b); err != nil {
		t.Fatal(err)
	}
	if y[32] != 8 || y[33] != -7 || y[3] != 7 || y[1] != 1 || y[2] != 0 {
		t.Errorf("Q4_0 decode: y[1..3] = %v, y[32..33] = %v; want [1 0 7], [8 -7]", y[1:4], y[32:34])
	}
}

// TestDequantQ4_0Hand decodes a block built by hand, with a negative d.
func TestDequantQ4_0Hand(t *testing.T) {
	b := make([]byte, 18)
	// d = 0xb800: sign set, exponent field 14 → −2^(14−15) = −0.5.
	b[0], b[1] = 0x00, 0xb8
	for j := 2; j < 18; j++ {
		b[j] = 0x88 // q = 8 → −0.5·0 = 0 (negative zero, equal to 0)
	}
	b[2+0] = 0x1f  // w[0]  = −0.5·(15−8) = −3.5; w[16] = −0.5·(1−8) = 3.5
	b[2+5] = 0x80  // w[5]  = −0.5·(0−8)  = 4;    w[21] = −0.5·(8−8) = 0
	b[2+15] = 0x7a // w[15] = −0.5·(10−8) = −1;   w[31] = −0.5·(7−8) = 0.5
	y := make([]float32, 32)
	if err := Dequantize(Q4_0, y, b); err != nil {
		t.Fatal(err)
	}
	want := make([]float32, 32)
	want[0], want[16], want[5], want[15], want[31] = -3.5, 3.5, 4, -1, 0.5
	if !slices.Equal(y, want) {
		t.Errorf("Q4_0\n got %v\nwant %v", y, want)
	}
}

// ---------------------------------------------------------------------------
// Independent per-element reference decoders for the legacy quants, written
// from the element's point of view (which byte and bit holds element e), the
// opposite of the block-at-a-time loops under test.

func quantRefQ4_0(src []byte, e int) float32 {
	b := src[(e/32)*18:]
	d := halfOracle(uint16(b[0]) | uint16(b[1])<<8)
	i := e % 32
	q := int(b[2+i%16]>>(4*(i/16))) & 0xF
	return float32(d) * float32(q-8)
}

func quantRefQ8_0(src []byte, e int) float32 {
	b := src[(e/32)*34:]
	d := halfOracle(uint16(b[0]) | uint16(b[1])<<8)
	return float32(d) * float32(int8(b[2+e%32]))
}

// quantRandomBlocks returns nb random blocks of t with every float16 field
// (at the given offsets within a block) replaced by a random finite half,
// so decoded values are finite and comparable.
func quantRandomBlocks(seed uint64, ty Type, nb int, halfAt ...int) []byte {
	rng := rand.New(rand.NewPCG(seed, 99))
	bb := ty.BlockBytes()
	src := make([]byte, nb*bb)
	for i := range src {
		src[i] = byte(rng.Uint32())
	}
	for i := 0; i < nb; i++ {
		for _, off := range halfAt {
			h := uint16(rng.Uint32()) & 0xbfff // bit 14 clear: exponent field ≤ 15, so |d| < 2, finite
			src[i*bb+off], src[i*bb+off+1] = byte(h), byte(h>>8)
		}
	}
	return src
}

func TestDequantLegacyMatchesReference(t *testing.T) {
	for _, c := range []struct {
		ty  Type
		ref func([]byte, int) float32
	}{{Q4_0, quantRefQ4_0}, {Q8_0, quantRefQ8_0}} {
		src := quantRandomBlocks(5, c.ty, 64, 0)
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
// Benchmarks: dequantising 4096 rows of 256 weights. SetBytes counts the
// encoded (file) bytes, so MB/s is how fast a model file of that type turns
// into float32.

func BenchmarkDequantize(b *testing.B) {
	const n = 4096 * 256
	x := quantGauss(9, n, 0, 1)
	for _, ty := range []Type{F32, F16, BF16, Q8_0, Q4_0, Q4_K, Q5_K, Q6_K} {
		nb, _ := ty.RowBytes(n)
		src := make([]byte, nb)
		if err := Quantize(ty, src, x); err != nil {
			b.Fatal(err)
		}
		dst := make([]float32, n)
		b.Run(ty.String(), func(b *testing.B) {
			b.SetBytes(int64(nb))
			for b.Loop() {
				if err := Dequantize(ty, dst, src); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
