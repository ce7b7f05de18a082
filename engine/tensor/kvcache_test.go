package tensor

import (
	"bytes"
	"math"
	"math/rand/v2"
	"testing"
)

// kvRows returns rows·n random values of about unit size, with a few zero
// and large ones so that blocks of every scale occur.
func kvRows(rng *rand.Rand, rows, n int) []float32 {
	x := make([]float32, rows*n)
	for i := range x {
		x[i] = float32(rng.NormFloat64())
		switch rng.IntN(50) {
		case 0:
			x[i] = 0
		case 1:
			x[i] *= 40
		}
	}
	return x
}

func TestEncodeF16MatchesF32ToF16(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	special := []float32{0, float32(math.Copysign(0, -1)), 1, -1, 65504, 65520, 1e6, -1e6, 6e-8, 3e-8, 1e-5, float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN())}
	for _, n := range []int{0, 1, 7, 8, 9, 31, 64, 100} {
		src := kvRows(rng, 1, n)
		for i := range src {
			if i < len(special) {
				src[i] = special[i]
			}
			if rng.IntN(4) == 0 {
				src[i] = math.Float32frombits(rng.Uint32()) // any bits: subnormals, huge, NaN payloads
			}
		}
		dst := make([]uint16, n)
		EncodeF16(dst, src)
		back := make([]float32, n)
		DecodeF16(back, dst)
		for i, v := range src {
			if want := F32ToF16(v); dst[i] != want {
				t.Fatalf("n=%d: EncodeF16(%g = %#x) = %#04x, F32ToF16 %#04x", n, v, math.Float32bits(v), dst[i], want)
			}
			if w := F16ToF32(dst[i]); math.Float32bits(back[i]) != math.Float32bits(w) {
				t.Fatalf("DecodeF16(%#04x) = %g, F16ToF32 %g", dst[i], back[i], w)
			}
		}
	}
}

func TestEncodeQ8_0MatchesWeightEncoder(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{32, 64, 96, 256} {
		src := kvRows(rng, 1, n)
		clear(src[:QK]) // an all-zero block: scale 0
		got := make([]byte, Q8_0RowBytes(n))
		EncodeQ8_0(got, src)
		want := make([]byte, Q8_0RowBytes(n))
		if err := quantQ8_0(want, src); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("n=%d: EncodeQ8_0 differs from the weight encoder (ggml's reference)", n)
		}
		dec := make([]float32, n)
		DecodeQ8_0(dec, got)
		for b := range n / QK {
			var amax float64
			for _, v := range src[b*QK : (b+1)*QK] {
				amax = max(amax, math.Abs(float64(v)))
			}
			for i := b * QK; i < (b+1)*QK; i++ {
				if d := math.Abs(float64(dec[i] - src[i])); d > 0.57*amax/127 {
					t.Fatalf("n=%d: value %d decodes to %g from %g (block max %g)", n, i, dec[i], src[i], amax)
				}
			}
		}
	}
	// Non-finite values store, and do not panic: the store of a KV cache
	// cannot fail.
	src := make([]float32, 64)
	src[3], src[40] = float32(math.Inf(1)), float32(math.NaN())
	dst := make([]byte, Q8_0RowBytes(64))
	EncodeQ8_0(dst, src)
}

// refDots and refSum are the products in float64 over decoded rows.
func refDots(rows []float32, x []float32, n int) []float64 {
	out := make([]float64, len(rows)/n)
	for i := range out {
		for j := range n {
			out[i] += float64(rows[i*n+j]) * float64(x[j])
		}
	}
	return out
}

func refSum(rows []float32, w []float32, n int) []float64 {
	out := make([]float64, n)
	for j, a := range w {
		for c := range n {
			out[c] += float64(a) * float64(rows[j*n+c])
		}
	}
	return out
}

// near checks got against want within tol times the row's scale (the sum
// of absolute terms bounds float32's rounding of a sum).
func near(t *testing.T, what string, got []float32, want, scale []float64, tol float64) {
	t.Helper()
	for i := range want {
		if d := math.Abs(float64(got[i]) - want[i]); d > tol*max(scale[i], 1e-30) {
			t.Fatalf("%s[%d] = %g, want %g (|diff| %g, scale %g)", what, i, got[i], want[i], d, scale[i])
		}
	}
}

func absDots(rows []float32, x []float32, n int) []float64 {
	a := make([]float32, len(rows))
	for i, v := range rows {
		a[i] = float32(math.Abs(float64(v)))
	}
	b := make([]float32, len(x))
	for i, v := range x {
		b[i] = float32(math.Abs(float64(v)))
	}
	return refDots(a, b, n)
}

func absSum(rows []float32, w []float32, n int) []float64 {
	a := make([]float32, len(rows))
	for i, v := range rows {
		a[i] = float32(math.Abs(float64(v)))
	}
	return refSum(a, w, n)
}

// TestKVRowKernels checks the compact rows' scores and weighted sums
// against float64 over the decoded rows — WeightedSumF16 also against
// WeightedSum on them, bit for bit on the AVX2 path, where they are the
// same arithmetic — for head sizes that are and are not multiples of 8,
// and row counts on and off the four-row blocks of the scores.
func TestKVRowKernels(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, n := range []int{4, 12, 32, 40, 64, 96, 128, 160, 256} {
		for _, rows := range []int{1, 3, 4, 8, 17} {
			src := kvRows(rng, rows, n)
			x := kvRows(rng, 1, n)
			w := make([]float32, rows)
			for i := range w {
				w[i] = rng.Float32()
			}

			h := make([]uint16, rows*n)
			EncodeF16(h, src)
			dec := make([]float32, rows*n)
			DecodeF16(dec, h)
			got := make([]float32, rows)
			DotRowsF16(h, x, got)
			gs, ws := make([]float32, n), make([]float32, n)
			WeightedSumF16(gs, h, w)
			WeightedSum(ws, dec, w)
			if hasAVX2 && n%8 == 0 {
				for c := range gs {
					if math.Float32bits(gs[c]) != math.Float32bits(ws[c]) {
						t.Fatalf("n=%d rows=%d: WeightedSumF16[%d] = %g, WeightedSum on the decoded rows %g", n, rows, c, gs[c], ws[c])
					}
				}
			}
			near(t, "DotRowsF16", got, refDots(dec, x, n), absDots(dec, x, n), 1e-5)
			near(t, "WeightedSumF16", gs, refSum(dec, w, n), absSum(dec, w, n), 1e-5)
			// The portable paths, which amd64 runs only for odd sizes.
			dotRowsF16Go(h, x, got)
			near(t, "dotRowsF16Go", got, refDots(dec, x, n), absDots(dec, x, n), 1e-5)
			clear(gs)
			weightedSumF16Go(gs, h, w)
			near(t, "weightedSumF16Go", gs, refSum(dec, w, n), absSum(dec, w, n), 1e-5)

			if n%QK != 0 {
				continue
			}
			q := make([]byte, rows*Q8_0RowBytes(n))
			EncodeQ8_0(q, src)
			DecodeQ8_0(dec, q)
			DotRowsQ8_0(q, x, got)
			near(t, "DotRowsQ8_0", got, refDots(dec, x, n), absDots(dec, x, n), 1e-5)
			WeightedSumQ8_0(gs, q, w)
			near(t, "WeightedSumQ8_0", gs, refSum(dec, w, n), absSum(dec, w, n), 1e-5)
			dotRowsQ8_0Go(q, x, got)
			near(t, "dotRowsQ8_0Go", got, refDots(dec, x, n), absDots(dec, x, n), 1e-5)
			clear(gs)
			weightedSumQ8_0Go(gs, q, w)
			near(t, "weightedSumQ8_0Go", gs, refSum(dec, w, n), absSum(dec, w, n), 1e-5)
		}
	}
}

// TestKVRowKernelsEmpty: no keys give no scores and a zero sum.
func TestKVRowKernelsEmpty(t *testing.T) {
	out := []float32{1, 2, 3, 4, 5, 6, 7, 8}
	WeightedSumF16(out, nil, nil)
	for _, v := range out {
		if v != 0 {
			t.Fatalf("WeightedSumF16 over no keys left %v", out)
		}
	}
	out32 := make([]float32, 32)
	out32[5] = 1
	WeightedSumQ8_0(out32, nil, nil)
	if out32[5] != 0 {
		t.Fatal("WeightedSumQ8_0 over no keys left a value")
	}
	DotRowsF16(nil, make([]float32, 8), nil)
	DotRowsQ8_0(nil, make([]float32, 32), nil)
}

// FuzzKVRowKernels feeds any bits through the compact kernels: they must
// not panic, and on finite rows agree with the float64 reference.
func FuzzKVRowKernels(f *testing.F) {
	f.Add(uint64(1), uint8(64), uint8(3))
	f.Add(uint64(2), uint8(32), uint8(1))
	f.Add(uint64(3), uint8(8), uint8(9))
	f.Fuzz(func(t *testing.T, seed uint64, nb, rb uint8) {
		rng := rand.New(rand.NewPCG(seed, 7))
		n, rows := int(nb%9+1)*32, int(rb%20)+1
		src := kvRows(rng, rows, n)
		x := kvRows(rng, 1, n)
		w := make([]float32, rows)
		for i := range w {
			w[i] = rng.Float32()
		}
		q := make([]byte, rows*Q8_0RowBytes(n))
		EncodeQ8_0(q, src)
		dec := make([]float32, rows*n)
		DecodeQ8_0(dec, q)
		got := make([]float32, rows)
		DotRowsQ8_0(q, x, got)
		near(t, "DotRowsQ8_0", got, refDots(dec, x, n), absDots(dec, x, n), 1e-5)
		gs := make([]float32, n)
		WeightedSumQ8_0(gs, q, w)
		near(t, "WeightedSumQ8_0", gs, refSum(dec, w, n), absSum(dec, w, n), 1e-5)
		h := make([]uint16, rows*n)
		EncodeF16(h, src)
		DecodeF16(dec, h)
		DotRowsF16(h, x, got)
		near(t, "DotRowsF16", got, refDots(dec, x, n), absDots(dec, x, n), 1e-5)
	})
}

// BenchmarkKVRows times one query head's attention products over 1536
// cached rows of 64 values (SmolLM2-135M's head at a 1.5K context) in
// each cache type: the scores (DotRows*) and the weighted sum
// (WeightedSum*).
func BenchmarkKVRows(b *testing.B) {
	const n, rows = 64, 1536
	rng := rand.New(rand.NewPCG(1, 1))
	src := kvRows(rng, rows, n)
	x := kvRows(rng, 1, n)
	w := make([]float32, rows)
	for i := range w {
		w[i] = rng.Float32() / rows
	}
	h := make([]uint16, rows*n)
	EncodeF16(h, src)
	q := make([]byte, rows*Q8_0RowBytes(n))
	EncodeQ8_0(q, src)
	scores, out := make([]float32, rows), make([]float32, n)
	for _, c := range []struct {
		name  string
		bytes int
		run   func()
	}{
		{"f32/dots", 4 * rows * n, func() { DotRows(src, x, scores) }},
		{"f16/dots", 2 * rows * n, func() { DotRowsF16(h, x, scores) }},
		{"q8_0/dots", len(q), func() { DotRowsQ8_0(q, x, scores) }},
		{"f32/wsum", 4 * rows * n, func() { WeightedSum(out, src, w) }},
		{"f16/wsum", 2 * rows * n, func() { WeightedSumF16(out, h, w) }},
		{"q8_0/wsum", len(q), func() { WeightedSumQ8_0(out, q, w) }},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(c.bytes))
			for b.Loop() {
				c.run()
			}
		})
	}
}
