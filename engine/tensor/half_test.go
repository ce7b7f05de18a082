package tensor

import (
	"math"
	"math/rand/v2"
	"testing"
)

// halfOracle decodes a binary16 bit pattern straight from the IEEE 754
// definition in float64 (independently of F16ToF32's bit shuffling):
// (−1)^s · m·2⁻²⁴ for subnormals, (−1)^s · (1024+m)·2^(e−25) for normals.
func halfOracle(h uint16) float64 {
	s := 1.0
	if h&0x8000 != 0 {
		s = -1
	}
	e := int(h>>10) & 0x1f
	m := float64(h & 0x3ff)
	switch {
	case e == 0x1f && m == 0:
		return math.Inf(int(s))
	case e == 0x1f:
		return math.NaN()
	case e == 0:
		return s * math.Ldexp(m, -24)
	}
	return s * math.Ldexp(1024+m, e-25)
}

func isHalfNaN(h uint16) bool { return h&0x7c00 == 0x7c00 && h&0x3ff != 0 }

// nearestHalfOracle rounds f to binary16 by searching the ordered positive
// halves for the bracketing pair and picking the nearer, the even one on a
// tie, with IEEE overflow: anything ≥ 65520 (the midpoint between 65504 and
// the next, unrepresentable, step 65536) becomes Inf.
func nearestHalfOracle(f float32) uint16 {
	var sign uint16
	a := float64(f)
	if math.Signbit(a) {
		sign, a = 0x8000, -a
	}
	if a >= 65520 {
		return sign | 0x7c00
	}
	// Largest h in 0..0x7bff with value ≤ a; positive halves sort like their bits.
	lo, hi := 0, 0x7bff
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if halfOracle(uint16(mid)) <= a {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	h := uint16(lo)
	below := halfOracle(h)
	if below == a {
		return sign | h
	}
	var above float64
	if h == 0x7bff {
		above = 65536 // the step past the largest finite half
	} else {
		above = halfOracle(h + 1)
	}
	switch da, db := above-a, a-below; {
	case db < da:
		return sign | h
	case da < db:
		return sign | (h + 1)
	case h&1 == 0:
		return sign | h
	}
	return sign | (h + 1)
}

// TestHalfDecodeExhaustive checks F16ToF32 on all 65536 patterns against the
// definition, and that F32ToF16 maps every non-NaN value back to its pattern
// (−0 and ±Inf included). NaNs must stay NaNs both ways.
func TestHalfDecodeExhaustive(t *testing.T) {
	for i := 0; i < 1<<16; i++ {
		h := uint16(i)
		f := F16ToF32(h)
		if isHalfNaN(h) {
			if !math.IsNaN(float64(f)) {
				t.Fatalf("F16ToF32(%#04x) = %v, want NaN", h, f)
			}
			if back := F32ToF16(f); !isHalfNaN(back) {
				t.Fatalf("F32ToF16(NaN from %#04x) = %#04x, want a NaN", h, back)
			}
			continue
		}
		if want := halfOracle(h); float64(f) != want || math.Signbit(float64(f)) != math.Signbit(want) {
			t.Fatalf("F16ToF32(%#04x) = %v, want %v", h, f, want)
		}
		if back := F32ToF16(f); back != h {
			t.Fatalf("F32ToF16(F16ToF32(%#04x) = %v) = %#04x", h, f, back)
		}
	}
}

// TestHalfTiesToEven rounds every midpoint between adjacent finite halves
// (subnormals included), and the float32 values just either side of it.
// Midpoints have 12 significant bits, so they are exact in float32.
func TestHalfTiesToEven(t *testing.T) {
	for _, sign := range []float32{1, -1} {
		for i := 0; i < 0x7bff; i++ {
			h := uint16(i)
			lo, hi := halfOracle(h), halfOracle(h+1)
			mid := float32((lo + hi) / 2)
			if float64(mid) != (lo+hi)/2 {
				t.Fatalf("midpoint of %#04x not exact in float32", h)
			}
			even := h
			if h&1 == 1 {
				even = h + 1
			}
			var sbit uint16
			if sign < 0 {
				sbit = 0x8000
			}
			m := sign * mid
			if got := F32ToF16(m); got != sbit|even {
				t.Fatalf("F32ToF16(%v) (tie between %#04x and %#04x) = %#04x, want %#04x", m, h, h+1, got, sbit|even)
			}
			// One float32 ulp towards zero rounds down, away from zero rounds up.
			down := math.Float32frombits(math.Float32bits(m) - 1)
			up := math.Float32frombits(math.Float32bits(m) + 1)
			if got := F32ToF16(down); got != sbit|h {
				t.Fatalf("F32ToF16(%v) = %#04x, want %#04x", down, got, sbit|h)
			}
			if got := F32ToF16(up); got != sbit|(h+1) {
				t.Fatalf("F32ToF16(%v) = %#04x, want %#04x", up, got, sbit|(h+1))
			}
		}
	}
}

// TestHalfKnownValues pins values worked out by hand from the format.
func TestHalfKnownValues(t *testing.T) {
	cases := []struct {
		f float32
		h uint16
	}{
		{1, 0x3c00},              // exponent 15 (bias), mantissa 0
		{-2, 0xc000},             // sign, exponent 16
		{0.5, 0x3800},            // exponent 14
		{65504, 0x7bff},          // (2 − 2⁻¹⁰)·2¹⁵, largest finite
		{0x1p-14, 0x0400},        // smallest normal
		{0x1p-24, 0x0001},        // smallest subnormal
		{1023 * 0x1p-24, 0x03ff}, // largest subnormal
		{0x1p-25, 0x0000},        // half the smallest subnormal: tie, to even 0
		{-0x1p-25, 0x8000},       // …keeping the sign
		{3 * 0x1p-25, 0x0002},    // 1.5 ulps: tie between 1 and 2, to even 2
		{0x1p-25 * 1.0000001, 0x0001},
		{0x1p-26, 0x0000},         // below half an ulp: flushes to zero
		{65519.996, 0x7bff},       // just under the overflow midpoint
		{65520, 0x7c00},           // the midpoint rounds to even, which is Inf
		{1e10, 0x7c00},            // overflow
		{-1e10, 0xfc00},           // negative overflow
		{math.MaxFloat32, 0x7c00}, // largest float32
		{float32(math.Inf(1)), 0x7c00},
		{float32(math.Inf(-1)), 0xfc00},
		{float32(math.Copysign(0, -1)), 0x8000},
		{1.0009765625, 0x3c01},   // 1 + 2⁻¹⁰
		{1.00048828125, 0x3c00},  // 1 + 2⁻¹¹: tie, to even 0x3c00
		{1.00146484375, 0x3c02},  // 1 + 3·2⁻¹¹: tie, to even 0x3c02
		{0.1, 0x2e66},            // 0.0999755859375 is nearest
		{float32(1) / 3, 0x3555}, // 0.333251953125 is nearest
	}
	for _, c := range cases {
		if got := F32ToF16(c.f); got != c.h {
			t.Errorf("F32ToF16(%v) = %#04x, want %#04x", c.f, got, c.h)
		}
		if c.h&0x7fff != 0x7c00 && c.h&0x7fff != 0 {
			// Decoding the pattern must give back f when f was representable.
			if math.Abs(float64(c.f)) == halfOracle(c.h&0x7fff) && F16ToF32(c.h) != c.f {
				t.Errorf("F16ToF32(%#04x) = %v, want %v", c.h, F16ToF32(c.h), c.f)
			}
		}
	}
	if got := F16ToF32(0x3c00); got != 1 {
		t.Errorf("F16ToF32(0x3c00) = %v, want 1", got)
	}
	if got := F16ToF32(0x0001); got != 0x1p-24 {
		t.Errorf("F16ToF32(0x0001) = %v, want 2^-24", got)
	}
	if got := F16ToF32(0x7bff); got != 65504 {
		t.Errorf("F16ToF32(0x7bff) = %v, want 65504", got)
	}
	if got := F16ToF32(0xc000); got != -2 {
		t.Errorf("F16ToF32(0xc000) = %v, want -2", got)
	}
	for _, nan := range []float32{float32(math.NaN()), math.Float32frombits(0x7f800001), math.Float32frombits(0xffc00000)} {
		if got := F32ToF16(nan); !isHalfNaN(got) {
			t.Errorf("F32ToF16(NaN %#08x) = %#04x, want a NaN", math.Float32bits(nan), got)
		}
	}
}

// TestHalfRandomAgainstOracle compares F32ToF16 with the search-based oracle on
// random float32 patterns, most of them in and around the half range.
func TestHalfRandomAgainstOracle(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	n := 200000
	if testing.Short() || quantRace {
		n = 20000
	}
	for i := 0; i < n; i++ {
		var b uint32
		if i%4 == 0 {
			b = rng.Uint32() // anywhere, including NaNs
		} else {
			// exponent 95..145 covers below-subnormal to overflow
			b = rng.Uint32()&0x807fffff | uint32(95+rng.IntN(51))<<23
		}
		f := math.Float32frombits(b)
		got := F32ToF16(f)
		if math.IsNaN(float64(f)) {
			if !isHalfNaN(got) {
				t.Fatalf("F32ToF16(NaN %#08x) = %#04x", b, got)
			}
			continue
		}
		if want := nearestHalfOracle(f); got != want {
			t.Fatalf("F32ToF16(%v = %#08x) = %#04x, want %#04x", f, b, got, want)
		}
	}
}

// TestHalfBF16 checks bfloat16: exhaustive round trip, ties to even over all
// positive finite values, NaN handling and known values.
func TestHalfBF16(t *testing.T) {
	for i := 0; i < 1<<16; i++ {
		h := uint16(i)
		f := BF16ToF32(h)
		if math.Float32bits(f) != uint32(h)<<16 {
			t.Fatalf("BF16ToF32(%#04x) = %#08x, want %#08x", h, math.Float32bits(f), uint32(h)<<16)
		}
		nan := h&0x7f80 == 0x7f80 && h&0x7f != 0
		back := F32ToBF16(f)
		if nan {
			if back&0x7f80 != 0x7f80 || back&0x7f == 0 {
				t.Fatalf("F32ToBF16(NaN %#04x) = %#04x, want a NaN", h, back)
			}
			continue
		}
		if back != h {
			t.Fatalf("F32ToBF16(BF16ToF32(%#04x)) = %#04x", h, back)
		}
	}
	// Ties: the float32 halfway between bf16 patterns h and h+1 is h<<16|0x8000.
	for i := 0; i < 0x7f7f; i++ {
		h := uint16(i)
		for _, s := range []uint16{0, 0x8000} {
			mid := uint32(s|h)<<16 | 0x8000
			even := h
			if h&1 == 1 {
				even = h + 1
			}
			if got := F32ToBF16(math.Float32frombits(mid)); got != s|even {
				t.Fatalf("F32ToBF16(%#08x) = %#04x, want %#04x (tie to even)", mid, got, s|even)
			}
			if got := F32ToBF16(math.Float32frombits(mid - 1)); got != s|h {
				t.Fatalf("F32ToBF16(%#08x) = %#04x, want %#04x", mid-1, got, s|h)
			}
			if got := F32ToBF16(math.Float32frombits(mid + 1)); got != s|(h+1) {
				t.Fatalf("F32ToBF16(%#08x) = %#04x, want %#04x", mid+1, got, s|(h+1))
			}
		}
	}
	cases := []struct {
		f float32
		h uint16
	}{
		{1, 0x3f80},
		{-2, 0xc000},
		{math.Pi, 0x4049},         // 0x40490fdb: low half 0x0fdb < 0x8000, rounds down
		{math.MaxFloat32, 0x7f80}, // 0x7f7fffff rounds up past the largest bf16: Inf
		{float32(math.Inf(-1)), 0xff80},
		{0x1p-133, 0x0001}, // float32 subnormal with one bit in the bf16 part
	}
	for _, c := range cases {
		if got := F32ToBF16(c.f); got != c.h {
			t.Errorf("F32ToBF16(%v) = %#04x, want %#04x", c.f, got, c.h)
		}
	}
	// A NaN whose payload lies only in the low 16 bits must not become Inf.
	if got := F32ToBF16(math.Float32frombits(0x7f800001)); got&0x7f80 != 0x7f80 || got&0x7f == 0 {
		t.Errorf("F32ToBF16(0x7f800001) = %#04x, want a NaN", got)
	}
}
