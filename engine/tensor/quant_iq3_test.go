package tensor

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// Tests for IQ3_XXS and IQ3_S (quant_iq3.go, dot_iq3*.go). The shared
// kernel tests of kernels_test.go cover both through kernelTypes;
// kjv_iq3_test.go checks llama.cpp's own files.

// TestDequantIQ3XXSHand: d = 0x3800 = 0.5. Grid entries (iq3xxs_grid,
// byte k for weight k of the four): 0 → 4 4 4 4, 1 → 20 4 4 4,
// 5 → 62 12 4 4.
//
//	sub-block 0: aux = 3<<28 | 1 (sign field 0 = 1: ksigns 129, weights 0
//	    and 7 negative), dl = 0.5·3.5·0.5 = 0.875; qs[0] = 1, qs[1] = 5:
//	    w0..7 = −17.5 3.5 3.5 3.5 54.25 10.5 3.5 −3.5, w8..31 = 3.5
//	sub-block 7: aux = 15<<28 | 2<<14 (field 2 = 2: ksigns 130, weights
//	    16+1 and 16+7 negative), dl = 0.5·15.5·0.5 = 3.875: 15.5 each,
//	    w241 = w247 = −15.5
//	the rest: aux = 0, dl = 0.125: 0.5 each
func TestDequantIQ3XXSHand(t *testing.T) {
	b := make([]byte, iq3xxsBytes)
	b[0], b[1] = 0x00, 0x38
	b[2], b[3] = 1, 5
	binary.LittleEndian.PutUint32(b[66:], 3<<28|1)
	binary.LittleEndian.PutUint32(b[66+28:], 15<<28|2<<14)
	want := make([]float32, QKK)
	for i := range want {
		want[i] = 0.5
	}
	copy(want, []float32{-17.5, 3.5, 3.5, 3.5, 54.25, 10.5, 3.5, -3.5})
	for i := 8; i < 32; i++ {
		want[i] = 3.5
	}
	for i := 224; i < 256; i++ {
		want[i] = 15.5
	}
	want[241], want[247] = -15.5, -15.5
	y := make([]float32, QKK)
	if err := Dequantize(IQ3_XXS, y, b); err != nil {
		t.Fatal(err)
	}
	quantCompare(t, "IQ3_XXS", y, want)
}

// TestDequantIQ3SHand: d = 0x3800 = 0.5. Grid entries (iq3s_grid):
// 0 → 1 1 1 1, 3 → 11 1 1 1, 256 → 7 5 9 5, 511 → 1 1 15 15.
//
//	sub-block 0: scale 1 (scales[0] low nibble), dl = 0.5·3 = 1.5; group 0
//	    index qs[0] = 0 | qh[0] bit 0 = 256, group 1 qs[1] = 3; signs[0] =
//	    0x05: w0..7 = −10.5 7.5 −13.5 7.5 16.5 1.5 1.5 1.5, w8..31 = 1.5
//	sub-block 1: scale 2 (high nibble), dl = 2.5; group 7 index qs[15] =
//	    255 | qh[1] bit 7 = 511; signs[7] = 0x80 (weight 32+24+7):
//	    w60..63 = 2.5 2.5 37.5 −37.5, the others 2.5
//	sub-block 5: scale 15 (scales[2] high nibble), dl = 15.5: 15.5 each
//	the rest: scale 0, dl = 0.5: 0.5 each
func TestDequantIQ3SHand(t *testing.T) {
	b := make([]byte, iq3sBytes)
	b[0], b[1] = 0x00, 0x38
	b[2+1], b[2+15] = 3, 255
	b[66], b[67] = 0x01, 0x80
	b[74], b[74+7] = 0x05, 0x80
	b[106], b[108] = 0x21, 0xF0
	want := make([]float32, QKK)
	for i := range want {
		want[i] = 0.5
	}
	copy(want, []float32{-10.5, 7.5, -13.5, 7.5, 16.5, 1.5, 1.5, 1.5})
	for i := 8; i < 32; i++ {
		want[i] = 1.5
	}
	for i := 32; i < 64; i++ {
		want[i] = 2.5
	}
	want[62], want[63] = 37.5, -37.5
	for i := 160; i < 192; i++ {
		want[i] = 15.5
	}
	y := make([]float32, QKK)
	if err := Dequantize(IQ3_S, y, b); err != nil {
		t.Fatal(err)
	}
	quantCompare(t, "IQ3_S", y, want)
}

// TestIQ3BadScale: a block whose float16 d is NaN or ±Inf decodes to NaN
// or ±Inf weights (no grid magnitude is 0), and every product path gives
// NaN or ±Inf, so the bad block shows instead of being rounded away.
func TestIQ3BadScale(t *testing.T) {
	rng := rand.New(rand.NewPCG(91, 92))
	pool := NewPool(1)
	defer pool.Close()
	paths := []*Kernels{newKernels(pool, false), newKernels(pool, true)}
	for _, typ := range []Type{IQ3_XXS, IQ3_S} {
		for _, h := range []uint16{0x7E00, 0x7C00, 0xFC00} {
			data := randomWeights(rng, typ, 1, 512)
			binary.LittleEndian.PutUint16(data[typ.BlockBytes():], h)
			y := make([]float32, 512)
			if err := Dequantize(typ, y, data); err != nil {
				t.Fatal(err)
			}
			for i, v := range y[256:] {
				if !math.IsNaN(float64(v)) && !math.IsInf(float64(v), 0) {
					t.Fatalf("%s d=%#x: weight %d = %g", typ, h, 256+i, v)
				}
			}
			w := mustMatrix(t, typ, 1, 512, data)
			for _, k := range paths {
				out := make([]float32, 1)
				k.MatVec(out, w, randomVec(rng, 512))
				if v := float64(out[0]); !math.IsNaN(v) && !math.IsInf(v, 0) {
					t.Errorf("%s %s d=%#x: product %g", k.Path(), typ, h, v)
				}
			}
		}
	}
}

// FuzzIQ3 decodes arbitrary IQ3_XXS and IQ3_S super-blocks (any bits,
// the scale included) and multiplies them on every path: each decoded
// weight must be the format's definition computed here in float64 from
// the tables (not through the decoders' helpers), and each kernel's
// product (sixteen rows, four tokens) the float64 dot of the decoded
// weights with the activations the kernels see, within TestDotPathsAgree's
// 1e-5.
func FuzzIQ3(f *testing.F) {
	seed := make([]byte, 3*iq3sBytes)
	for i := range seed {
		seed[i] = byte(i*37 + 11)
	}
	seed[1], seed[iq3sBytes+1] = 0x1c, 0x20 // sane scales
	f.Add(seed, uint64(1), false)
	f.Add(seed, uint64(2), true)
	pool := NewPool(1)
	defer pool.Close()
	paths := []*Kernels{newKernels(pool, false), newKernelsVNNI(pool, true, false), newKernelsVNNI(pool, true, true)}
	f.Fuzz(func(t *testing.T, row []byte, xseed uint64, s bool) {
		typ := IQ3_XXS
		if s {
			typ = IQ3_S
		}
		bs := typ.BlockBytes()
		nb := min(len(row)/bs, 8)
		if nb == 0 {
			return
		}
		row = row[:nb*bs]
		cols := nb * QKK
		w := make([]float32, cols)
		if err := Dequantize(typ, w, row); err != nil {
			t.Fatal(err)
		}
		for i, v := range w {
			blk := row[i/QKK*bs:]
			e := i % QKK
			j, m, k := e/32, e%32/4, e%4
			d := float64(F16ToF32(binary.LittleEndian.Uint16(blk)))
			var mag, dl float64
			var neg bool
			if typ == IQ3_XXS {
				aux := binary.LittleEndian.Uint32(blk[66+4*j:])
				mag = float64(iq3xxs_grid[blk[2+8*j+m]] >> (8 * k) & 0xFF)
				field := aux >> (7 * (e % 32 / 8)) & 127
				bit := e % 8
				if bit < 7 {
					neg = field>>bit&1 != 0
				} else {
					// The eighth sign makes the count of negatives even.
					neg = bitsOnes(field)%2 != 0
				}
				dl = float64(float32(float32(d)*(0.5+float32(aux>>28))) * 0.5)
			} else {
				idx := int(blk[2+8*j+m]) | int(blk[66+j]>>m&1)<<8
				mag = float64(iq3s_grid[idx] >> (8 * k) & 0xFF)
				neg = blk[74+e/8]>>(e%8)&1 != 0
				dl = float64(float32(d) * float32(1+2*(blk[106+j/2]>>(4*(j%2))&15)))
			}
			want := float32(dl * mag)
			if neg {
				want = -want
			}
			if math.Float32bits(v) != math.Float32bits(want) && !(math.IsNaN(float64(v)) && math.IsNaN(float64(want))) {
				t.Fatalf("%s weight %d: %g, want %g", typ, i, v, want)
			}
		}
		x := randomVec(rand.New(rand.NewPCG(xseed, 7)), cols)
		xseen := actValuesFor(typ, x)
		var want, mag float64
		for i := range cols {
			p := float64(w[i]) * float64(xseen[i])
			want += p
			mag += math.Abs(p)
		}
		if !(mag <= math.MaxFloat32/1024) {
			return // NaN or ±Inf weights, or products near float32's top
		}
		m := mustMatrix(t, typ, packRows, cols, slices.Repeat(row, packRows))
		for _, k := range paths {
			y := make([]float32, 4*packRows)
			k.MatMul(y, k.Pack(m), slices.Repeat(x, 4), 4)
			for i, v := range y {
				if d := math.Abs(float64(v) - want); !(d <= 1e-5*mag+1e-30) {
					t.Fatalf("%s/%s %s output %d: %g, want %g (Σ|w·x| %g)", k.Path(), k.PrefillPath(), typ, i, v, want, mag)
				}
			}
		}
	})
}

// bitsOnes counts the set bits of v.
func bitsOnes(v uint32) int {
	n := 0
	for ; v != 0; v &= v - 1 {
		n++
	}
	return n
}

// BenchmarkMatVecIQ3 is decode through a 2048×2048 matrix of IQ3_XXS and
// of IQ3_S against a Q3_K one of the same shape, as read from the file, on
// one thread. Each iteration times one Q3_K MatVec and one of the type
// back to back; "x-Q3_K" is the median of their time ratios (below 1 is
// faster), "x-Q3_K-iqr" the spread of the ratios (interquartile range),
// "us" the type's median time.
func BenchmarkMatVecIQ3(b *testing.B) {
	k := NewKernels(NewPool(1))
	defer k.Close()
	const rows, cols = 2048, 2048
	rng := rand.New(rand.NewPCG(93, 94))
	ref := mustMatrixB(b, Q3_K, rows, cols, randomWeights(rng, Q3_K, rows, cols))
	x := randomVec(rng, cols)
	y := make([]float32, rows)
	for _, typ := range []Type{IQ3_XXS, IQ3_S} {
		w := mustMatrixB(b, typ, rows, cols, randomWeights(rng, typ, rows, cols))
		b.Run(fmt.Sprintf("%s/%s", typ, k.Path()), func(b *testing.B) {
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
			slices.Sort(ratios)
			b.ReportMetric(median(ratios), "x-Q3_K")
			b.ReportMetric(ratios[len(ratios)*3/4]-ratios[len(ratios)/4], "x-Q3_K-iqr")
			b.ReportMetric(median(tw), "us")
		})
	}
}
