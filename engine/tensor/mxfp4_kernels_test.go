package tensor

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// MXFP4's products (dot_legacy*.go, gemm_legacy_amd64.*, packmxfp4.go).
// The shared kernel tests cover it with the other types through
// kernelTypes (TestDotPathsAgree, TestMatMulEqualsMatVec, …),
// legacy32Types (the assembly against the portable dot, extreme sums) and
// the packed tests of pack_test.go; these pin what is MXFP4's own: the
// level tables, the E8M0 scales over their whole range on every path, and
// which matrices may be packed.

// TestMXFP4LevelTables: the packed kernels' unsigned tables are the signed
// levels plus 128.
func TestMXFP4LevelTables(t *testing.T) {
	for q := range 16 {
		if got, want := int(mxfp4LevelsU[q]), int(mxfp4Values[q])+128; got != want {
			t.Errorf("MXFP4 level %d: table %d, want %d", q, got, want)
		}
		if got, want := int(iq4nlLevelsU[q]), int(iq4nlValue(byte(q)))+128; got != want {
			t.Errorf("IQ4_NL level %d: table %d, want %d", q, got, want)
		}
	}
}

// TestMXFP4F16Scale: the packer's f16 scale is E8M0Half(e) exactly where
// an f16 holds it, e in 104…143, and refused elsewhere.
func TestMXFP4F16Scale(t *testing.T) {
	for e := range 256 {
		h, ok := mxfp4F16Scale(uint8(e))
		if want := e >= 104 && e <= 143; ok != want {
			t.Errorf("e=%d: representable %v, want %v", e, ok, want)
		}
		if ok && F16ToF32(h) != E8M0Half(uint8(e)) {
			t.Errorf("e=%d: f16 %#04x is %g, want %g", e, h, F16ToF32(h), E8M0Half(uint8(e)))
		}
	}
}

// mxfp4ScaleRows builds one row per exponent e in es and block position k
// in 0…nb−1: block k has exponent e and one nonzero weight, level 12 at
// weight 3; every other block has a different exponent and codes that are
// all ±0 (nibbles 0 and 8 at random). With an activation of 1 at weight 3
// of every block and 0 elsewhere, row (e, k)'s product is exactly
// (E8M0Half(e)·dx)·(12·127) in float32 on every path: one nonzero term,
// and everything else adds exact zeros.
func mxfp4ScaleRows(rng *rand.Rand, es []int, nb int) (data []byte, x []float32) {
	rb := nb * mxfp4Bytes
	rows := len(es) * nb
	data = make([]byte, rows*rb)
	for r := range rows {
		e, k := es[r/nb], r%nb
		for b := range nb {
			blk := data[r*rb+b*mxfp4Bytes:][:mxfp4Bytes]
			blk[0] = byte(e + 37*(b-k))
			for j := range blk[1:] {
				blk[1+j] = byte(rng.IntN(2)*8 | rng.IntN(2)*0x80)
			}
			if b == k {
				blk[1+3] = blk[1+3]&0xF0 | 7
			}
		}
	}
	x = make([]float32, nb*QK)
	for b := range nb {
		x[b*QK+3] = 1
	}
	return data, x
}

// TestMXFP4ScalesEveryPath runs every E8M0 exponent, 0 to 255 (the
// subnormal scales 2^−128 and 2^−127, and 2^127 whose products overflow
// to +Inf), through every path this CPU has: the portable dot, the AVX2
// row kernel (blocks in its four-block groups and in its tail), the AVX2
// four-token kernel, and the packed VNNI kernels for the exponents packing
// takes; each must give the float32 value of the scale's one product bit
// for bit.
func TestMXFP4ScalesEveryPath(t *testing.T) {
	pool := NewPool(2)
	defer pool.Close()
	rng := rand.New(rand.NewPCG(61, 62))
	const nb = 6 // four-block group, then a tail of two
	all := make([]int, 256)
	for e := range all {
		all[e] = e
	}
	packable := make([]int, 0, 40)
	for e := 104; e <= 143; e++ {
		packable = append(packable, e)
	}
	paths := []*Kernels{newKernels(pool, false), newKernelsVNNI(pool, true, false), newKernelsVNNI(pool, true, true)}
	for _, es := range [][]int{all, packable} {
		data, x := mxfp4ScaleRows(rng, es, nb)
		rows := len(es) * nb
		w := mustMatrix(t, MXFP4, rows, nb*QK, data)
		var buf actBuf
		buf.ensure(1, len(x))
		a := buf.row(0, len(x))
		quantizeAct(a, x)
		buf.roundScales(1, len(x)) // as MXFP4's products read them
		for _, k := range paths {
			p := k.Pack(w)
			if wantPacked := k.prows[MXFP4] != nil && len(es) == len(packable); (p.Packed() > 0) != wantPacked {
				t.Fatalf("%s/%s, %d exponents: %d rows packed", k.Path(), k.PrefillPath(), len(es), p.Packed())
			}
			xs := slices.Repeat(x, 4)
			y := make([]float32, 4*rows)
			k.MatMul(y, p, xs, 4)
			k.MatVec(y[3*rows:], p, x)
			for i, v := range y {
				r := i % rows
				e, b := es[r/nb], r%nb
				want := float32(E8M0Half(uint8(e))*a.d[b]) * (12 * 127)
				if math.Float32bits(v) != math.Float32bits(want) {
					t.Fatalf("%s/%s (%d rows packed) token %d: e=%d in block %d: %g, want %g", k.Path(), k.PrefillPath(), p.Packed(), i/rows, e, b, v, want)
				}
			}
		}
	}
}

// TestPackMXFP4Range: a matrix is packed only when every block with a
// nonzero code has a scale an f16 holds; one block beyond, at either end,
// leaves it to the GGUF-layout kernels, which still compute it right; a
// block of zero codes may have any exponent.
func TestPackMXFP4Range(t *testing.T) {
	k := newKernelsVNNI(NewPool(1), true, true)
	defer k.pool.Close()
	if k.prows[MXFP4] == nil {
		t.Skip("no packed MXFP4 kernels on this CPU")
	}
	rng := rand.New(rand.NewPCG(63, 64))
	const rows, cols = 48, 256
	for _, c := range []struct {
		e      byte
		zero   bool // the block's codes are all ±0
		packed bool
	}{{104, false, true}, {143, false, true}, {103, false, false}, {144, false, false}, {0, false, false}, {255, false, false}, {0, true, true}, {255, true, true}} {
		data := randomWeights(rng, MXFP4, rows, cols)
		blk := data[37*cols/QK*mxfp4Bytes+5*mxfp4Bytes:][:mxfp4Bytes] // row 37, block 5
		blk[0] = c.e
		if c.zero {
			for j := range blk[1:] {
				blk[1+j] = 0x88
			}
		} else {
			blk[1] |= 0x11 // a nonzero code
		}
		w := mustMatrix(t, MXFP4, rows, cols, data)
		p := k.Pack(w)
		if (p != w) != c.packed || (p.Packed() > 0) != c.packed {
			t.Errorf("e=%d, zero codes %v: packed %v (%d rows), want %v", c.e, c.zero, p != w, p.Packed(), c.packed)
		}
		x := randomVec(rng, 5*cols)
		xseen := actValuesFor(MXFP4, x[:cols])
		y := make([]float32, rows)
		k.MatVec(y, p, x[:cols])
		for r := range rows {
			want, mag := refDot(t, MXFP4, w.Row(r), xseen)
			if math.IsInf(mag, 0) {
				continue // e = 255 with the largest levels and activations: beyond float32
			}
			if d := math.Abs(float64(y[r]) - want); !(d <= 1e-5*mag+1e-30) {
				t.Errorf("e=%d row %d: got %g, want %g", c.e, r, y[r], want)
			}
		}
		checkMatMulEqualsMatVec(t, k, p, x, 5)
	}
}

// FuzzMXFP4 decodes arbitrary MXFP4 blocks and multiplies them on every
// path: each weight must be its level times 2^(e−128), computed here in
// float64 from the format's definition (not through mxfp4Values or
// E8M0Half), and every kernel's product of the row (sixteen copies of it,
// so that the packed kernels run where packing takes it) must agree with
// the float64 dot of the decoded weights and the activations the kernels
// see, as TestDotPathsAgree requires.
func FuzzMXFP4(f *testing.F) {
	f.Add([]byte{128, 0x10, 0x32, 0x54, 0x76, 0x98, 0xba, 0xdc, 0xfe, 0, 0, 0, 0, 0, 0, 0, 0}, uint64(1))
	f.Add(make([]byte, 2*mxfp4Bytes), uint64(2))
	seed := make([]byte, 5*mxfp4Bytes)
	for i := range seed {
		seed[i] = byte(i*37 + 11)
	}
	f.Add(seed, uint64(3))
	pool := NewPool(1)
	defer pool.Close()
	paths := []*Kernels{newKernels(pool, false), newKernelsVNNI(pool, true, false), newKernelsVNNI(pool, true, true)}
	// E2M1 magnitudes by the format: 0, 0.5, 1, 1.5, 2, 3, 4, 6.
	e2m1 := [8]float64{0, 0.5, 1, 1.5, 2, 3, 4, 6}
	f.Fuzz(func(t *testing.T, row []byte, xseed uint64) {
		nb := min(len(row)/mxfp4Bytes, 64)
		if nb == 0 {
			return
		}
		row = row[:nb*mxfp4Bytes]
		cols := nb * QK
		w := make([]float32, cols)
		if err := Dequantize(MXFP4, w, row); err != nil {
			t.Fatal(err)
		}
		for i, v := range w {
			blk := row[i/QK*mxfp4Bytes:]
			j := i % QK
			q := blk[1+j%16] >> (4 * (j / 16)) & 15
			want := math.Ldexp(e2m1[q&7], int(blk[0])-127) // 2^(e−127): the undoubled scale
			if q&8 != 0 {
				want = 0 - want // ggml's table has +0 for the code −0 (8)
			}
			if math.Float32bits(v) != math.Float32bits(float32(want)) {
				t.Fatalf("weight %d (e=%d, code %d): %g, want %g", i, blk[0], q, v, float32(want))
			}
		}
		x := randomVec(rand.New(rand.NewPCG(xseed, 7)), cols)
		xseen := actValuesFor(MXFP4, x)
		m := mustMatrix(t, MXFP4, packRows, cols, slices.Repeat(row, packRows))
		var want, mag float64
		for i := range cols {
			p := float64(w[i]) * float64(xseen[i])
			want += p
			mag += math.Abs(p)
		}
		if !(mag <= math.MaxFloat32/4) {
			// Weights of ±Inf (e = 255) make the reference NaN, and
			// near the top of float32 products may overflow.
			return
		}
		for _, k := range paths {
			p := k.Pack(m)
			y := make([]float32, 4*packRows)
			k.MatMul(y, p, slices.Repeat(x, 4), 4)
			for i, v := range y {
				if d := math.Abs(float64(v) - want); !(d <= 1e-5*mag+1e-30) {
					t.Fatalf("%s/%s (%d rows packed) output %d: %g, want %g (Σ|w·x| %g)", k.Path(), k.PrefillPath(), p.Packed(), i, v, want, mag)
				}
			}
		}
	})
}

// BenchmarkMatVecMXFP4 is decode through a gpt-oss expert's 2880×2880
// MXFP4 matrix against an IQ4_NL one of the same shape (the type whose
// kernels MXFP4 shares), packed as the CPU backend runs them and as read
// from the file, on one thread. Each iteration times one IQ4_NL MatVec
// and one MXFP4 MatVec back to back; "x-IQ4_NL" is the median of their
// time ratios (below 1 is faster), "us" MXFP4's median time.
func BenchmarkMatVecMXFP4(b *testing.B) {
	k := NewKernels(NewPool(1))
	defer k.Close()
	const rows, cols = 2880, 2880
	rng := rand.New(rand.NewPCG(65, 66))
	ref := mustMatrixB(b, IQ4_NL, rows, cols, randomWeights(rng, IQ4_NL, rows, cols))
	w := mustMatrixB(b, MXFP4, rows, cols, randomWeights(rng, MXFP4, rows, cols))
	x := randomVec(rng, cols)
	y := make([]float32, rows)
	for _, packed := range []bool{true, false} {
		ref, w := ref, w
		if packed {
			ref, w = k.Pack(ref), k.Pack(w)
		}
		b.Run(fmt.Sprintf("packed=%v", w.Packed() > 0), func(b *testing.B) {
			for range 10 {
				k.MatVec(y, ref, x)
				k.MatVec(y, w, x)
			}
			var ratios, tw []float64
			for b.Loop() {
				t0 := time.Now()
				k.MatVec(y, ref, x)
				t1 := time.Now()
				k.MatVec(y, w, x)
				t2 := time.Now()
				r, s := t1.Sub(t0).Seconds(), t2.Sub(t1).Seconds()
				ratios = append(ratios, s/r)
				tw = append(tw, s*1e6)
			}
			b.ReportMetric(median(ratios), "x-IQ4_NL")
			b.ReportMetric(median(tw), "us")
		})
	}
}

func mustMatrixB(b *testing.B, ty Type, rows, cols int, data []byte) *Matrix {
	b.Helper()
	m, err := NewMatrix(ty, rows, cols, data)
	if err != nil {
		b.Fatal(err)
	}
	return m
}
