package tensor

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// Tests for IQ2_XXS, IQ2_XS and IQ2_S (quant_iq2.go, dot_iq2*.go). The
// shared kernel tests of kernels_test.go cover them through kernelTypes;
// kjv_iq2_test.go checks llama.cpp's own files.

var iq2Types = []Type{IQ2_XXS, IQ2_XS, IQ2_S}

// ---------------------------------------------------------------------------
// Independent per-element reference decoders, from the element's point of
// view (which bytes and bits hold weight e) with float64 half decoding, and
// the eighth sign of IQ2_XXS and IQ2_XS worked out as the parity of the
// seven stored ones rather than read from ksigns_iq2xs.

// iq2RefWeight is ±scale·(grid byte j of entry): the sign bit j of the
// eight-bit signs, the scale d·(0.5 + ls)·0.25 rounded as ggml rounds it.
func iq2RefWeight(d float64, ls int, entry uint64, signs, j int) float32 {
	dl := float32(float32(d)*(0.5+float32(ls))) * 0.25
	v := dl * float32(entry>>(8*j)&0xFF)
	if signs>>j&1 == 1 {
		return -v
	}
	return v
}

// iq2RefSigns7 turns a 7-bit sign index into the eight signs: an even
// number of minus signs in all.
func iq2RefSigns7(s int) int { return s | (bits.OnesCount(uint(s))&1)<<7 }

func quantRefIQ2XXS(src []byte, e int) float32 {
	b := src[(e/QKK)*iq2xxsBytes:]
	i := e % QKK
	g, l, j := i/32, i%32/8, i%8
	aux := binary.LittleEndian.Uint32(b[2+8*g+4:])
	return iq2RefWeight(halfOracle(quantLE(b)), int(aux>>28), iq2xxs_grid[b[2+8*g+l]], iq2RefSigns7(int(aux>>(7*l))&127), j)
}

func quantRefIQ2XS(src []byte, e int) float32 {
	b := src[(e/QKK)*iq2xsBytes:]
	i := e % QKK
	q := int(quantLE(b[2+2*(i/8):]))
	ls := int(b[66+i/32]) >> (4 * (i % 32 / 16)) & 15
	return iq2RefWeight(halfOracle(quantLE(b)), ls, iq2xs_grid[q&511], iq2RefSigns7(q>>9), i%8)
}

func quantRefIQ2S(src []byte, e int) float32 {
	b := src[(e/QKK)*iq2sBytes:]
	i := e % QKK
	r := i / 8
	idx := int(b[2+r]) + 256*(int(b[66+r/4])>>(2*(r%4))&3)
	ls := int(b[74+i/32]) >> (4 * (i % 32 / 16)) & 15
	return iq2RefWeight(halfOracle(quantLE(b)), ls, iq2s_grid[idx], int(b[34+r]), i%8)
}

func iq2Ref(ty Type) func([]byte, int) float32 {
	switch ty {
	case IQ2_XXS:
		return quantRefIQ2XXS
	case IQ2_XS:
		return quantRefIQ2XS
	}
	return quantRefIQ2S
}

func TestDequantIQ2MatchesReference(t *testing.T) {
	for _, ty := range iq2Types {
		const nb = 64
		src := quantRandomBlocks(61, ty, nb, 0)
		y := make([]float32, nb*QKK)
		if err := Dequantize(ty, y, src); err != nil {
			t.Fatal(err)
		}
		ref := iq2Ref(ty)
		for e := range y {
			if want := ref(src, e); y[e] != want {
				t.Fatalf("%v element %d: got %v, want %v", ty, e, y[e], want)
			}
		}
	}
}

// TestDequantIQ2XXSHand: d = 0x3800 = 0.5. Group 0: grid indices 0, 1, 2, 3,
// sign word 0x1000_0081: ls 1 (scale 0.5·1.5·0.25 = 0.1875), run 0's sign
// index 1 (weight 0 negative, and its parity sets weight 7's), run 1's 1
// likewise (bit 7 of the word). iq2xxs_grid[0] is all 8; [1] ends in 0x2b
// = 43 at byte 0; so weight 0 is −0.1875·8 = −1.5, weight 7 −1.5, weight 8
// −0.1875·43 = −8.0625, weight 15 −1.5, the other weights of runs 0 and 1
// 1.5. Every other group (zero bytes: ls 0, grid 0, no signs) is 0.5·0.5·
// 0.25·8 = 0.5.
func TestDequantIQ2XXSHand(t *testing.T) {
	b := make([]byte, iq2xxsBytes)
	b[0], b[1] = 0x00, 0x38
	copy(b[2:10], []byte{0, 1, 2, 3, 0x81, 0x00, 0x00, 0x10})
	y := make([]float32, QKK)
	if err := Dequantize(IQ2_XXS, y, b); err != nil {
		t.Fatal(err)
	}
	want := make([]float32, QKK)
	for i := range want {
		want[i] = 0.5
	}
	for i := range 16 {
		want[i] = 1.5
	}
	want[0], want[7], want[8], want[15] = -1.5, -1.5, -8.0625, -1.5
	for i := 16; i < 32; i++ {
		want[i] = float32(0.1875 * float64(iq2xxs_grid[i/8]>>(8*(i%8))&0xFF))
	}
	quantCompare(t, "IQ2_XXS", y, want)
}

// TestDequantIQ2NaNScale: a NaN or infinite d decodes to NaN or infinite
// weights (the block is malformed; nothing rounds it away).
func TestDequantIQ2NaNScale(t *testing.T) {
	for _, ty := range iq2Types {
		for _, h := range []uint16{0x7e00, 0x7c00, 0xfc00} {
			b := quantRandomBlocks(62, ty, 1, 0)
			binary.LittleEndian.PutUint16(b, h)
			y := make([]float32, QKK)
			if err := Dequantize(ty, y, b); err != nil {
				t.Fatal(err)
			}
			for i, v := range y {
				if !math.IsNaN(float64(v)) && !math.IsInf(float64(v), 0) {
					t.Fatalf("%v d=%#04x weight %d: %v", ty, h, i, v)
				}
			}
		}
	}
}

func TestQuantIQ2Unsupported(t *testing.T) {
	x := make([]float32, QKK)
	for _, ty := range iq2Types {
		b := make([]byte, ty.BlockBytes())
		if err := Quantize(ty, b, x); err == nil {
			t.Errorf("Quantize(%v) succeeded: there is no encoder", ty)
		}
		if err := Dequantize(ty, x, b[:len(b)-1]); err == nil {
			t.Errorf("Dequantize(%v) accepted a short block", ty)
		}
	}
}

// ---------------------------------------------------------------------------
// Dot kernels.

// TestIQ2AsmMatchesPortable calls both row kernels directly on random
// super-blocks, for rows of 1 to 9 super-blocks and a few longer ones, and
// requires agreement to float32 summation order (both form the same exact
// int32 sums per activation block), relative to Σ|w·x|.
func TestIQ2AsmMatchesPortable(t *testing.T) {
	pool := NewPool(1)
	defer pool.Close()
	kg, ka := newKernels(pool, false), newKernels(pool, true)
	rng := rand.New(rand.NewPCG(63, 64))
	const rows = 3
	for _, ty := range iq2Types {
		for _, nsb := range []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 16, 23} {
			cols := nsb * QKK
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
				_, mag := refDot(t, ty, w[r*rb:(r+1)*rb], actValues(x))
				if d := math.Abs(float64(got[r]) - float64(want[r])); d > 1e-6*mag {
					t.Errorf("%v %d super-blocks row %d: %s %g, go %g (|diff| %g > 1e-6·%g)", ty, nsb, r, ka.Path(), got[r], want[r], d, mag)
				}
			}
		}
	}
}

// TestIQ2DotExtremes: every grid entry at its largest (43 everywhere: the
// entries that hold the most 43s, found by search), every scale 15, every
// sign minus or plus, activations ±1 (codes ±127): the largest sums the
// kernels form. Every path must give the exact product to float rounding.
func TestIQ2DotExtremes(t *testing.T) {
	pool := NewPool(1)
	defer pool.Close()
	paths := []*Kernels{newKernels(pool, false), newKernels(pool, true)}
	const nsb = 3
	for _, ty := range iq2Types {
		for _, neg := range []bool{false, true} {
			bs := ty.BlockBytes()
			w := make([]byte, nsb*bs)
			for s := range nsb {
				iq2FillExtreme(ty, w[s*bs:(s+1)*bs], neg)
			}
			for _, sign := range []float32{1, -1} {
				x := slices.Repeat([]float32{sign}, nsb*QKK)
				want, _ := refDot(t, ty, w, actValues(x))
				for _, k := range paths {
					got := make([]float32, 1)
					k.MatVec(got, mustMatrix(t, ty, 1, len(x), w), x)
					if d := math.Abs(float64(got[0]) - want); d > 1e-6*math.Abs(want) {
						t.Errorf("%v neg=%v x=%v %s: got %g, want %g", ty, neg, sign, k.Path(), got[0], want)
					}
				}
			}
		}
	}
}

// iq2MaxEntry is the index of the grid entry with the largest byte sum.
func iq2MaxEntry(grid []uint64) int {
	best, bestSum := 0, 0
	for i, g := range grid {
		s := 0
		for j := range 8 {
			s += int(g >> (8 * j) & 0xFF)
		}
		if s > bestSum {
			best, bestSum = i, s
		}
	}
	return best
}

// iq2FillExtreme writes one block of ty with d = 0.5, every scale 15, every
// run the largest grid entry, and every sign minus (neg; for IQ2_XXS and
// IQ2_XS the sign index 127, whose parity makes all eight minus) or plus.
func iq2FillExtreme(ty Type, blk []byte, neg bool) {
	clear(blk)
	binary.LittleEndian.PutUint16(blk, F32ToF16(0.5))
	switch ty {
	case IQ2_XXS:
		e := byte(iq2MaxEntry(iq2xxs_grid[:]))
		for g := range 8 {
			s := uint32(0xF) << 28
			if neg {
				s |= 1<<28 - 1
			}
			copy(blk[2+8*g:], []byte{e, e, e, e})
			binary.LittleEndian.PutUint32(blk[2+8*g+4:], s)
		}
	case IQ2_XS:
		e := uint16(iq2MaxEntry(iq2xs_grid[:]))
		if neg {
			e |= 127 << 9
		}
		for r := range 32 {
			binary.LittleEndian.PutUint16(blk[2+2*r:], e)
		}
		for g := range 8 {
			blk[66+g] = 0xFF
		}
	case IQ2_S:
		e := iq2MaxEntry(iq2s_grid[:])
		for r := range 32 {
			blk[2+r] = byte(e)
			if neg {
				blk[34+r] = 0xFF
			}
			blk[66+r/4] |= byte(e>>8) << (2 * (r % 4))
		}
		for g := range 8 {
			blk[74+g] = 0xFF
		}
	}
}

// TestIQ2MatVecsMixed: these types fuse with the others in one MatVecs call
// and give each product what a lone MatVec gives.
func TestIQ2MatVecsMixed(t *testing.T) {
	checkMatVecsMixed(t, rand.New(rand.NewPCG(65, 66)), 768, IQ2_XXS, Q8_0, IQ2_XS, IQ2_S)
}

// FuzzIQ2 decodes arbitrary blocks of the three types and multiplies them
// on every path: each weight must be the per-element reference's, and the
// kernels' products (four tokens of sixteen copies of the row, so that the
// four-token kernels run) must agree with the float64 dot of the decoded
// weights and the activations the kernels see.
func FuzzIQ2(f *testing.F) {
	f.Add(make([]byte, 2*iq2sBytes), uint64(1), uint8(0))
	seed := make([]byte, 3*iq2sBytes)
	for i := range seed {
		seed[i] = byte(i*37 + 11)
	}
	f.Add(seed, uint64(3), uint8(1))
	f.Add(seed, uint64(4), uint8(2))
	pool := NewPool(1)
	defer pool.Close()
	paths := []*Kernels{newKernels(pool, false), newKernels(pool, true)}
	f.Fuzz(func(t *testing.T, row []byte, xseed uint64, which uint8) {
		ty := iq2Types[int(which)%len(iq2Types)]
		bs := ty.BlockBytes()
		nb := min(len(row)/bs, 16)
		if nb == 0 {
			return
		}
		row = row[:nb*bs]
		cols := nb * QKK
		w := make([]float32, cols)
		if err := Dequantize(ty, w, row); err != nil {
			t.Fatal(err)
		}
		ref := iq2Ref(ty)
		for i, v := range w {
			if want := ref(row, i); math.Float32bits(v) != math.Float32bits(want) && !(v != v && want != want) {
				t.Fatalf("%v weight %d: %v, want %v", ty, i, v, want)
			}
		}
		x := randomVec(rand.New(rand.NewPCG(xseed, 7)), cols)
		xseen := actValues(x)
		var want, mag float64
		for i := range cols {
			p := float64(w[i]) * float64(xseen[i])
			want += p
			mag += math.Abs(p)
		}
		if !(mag <= math.MaxFloat32/4) {
			return // a NaN or infinite d, or products near float32's top
		}
		m := mustMatrix(t, ty, 16, cols, slices.Repeat(row, 16))
		for _, k := range paths {
			y := make([]float32, 4*16)
			k.MatMul(y, m, slices.Repeat(x, 4), 4)
			for i, v := range y {
				if d := math.Abs(float64(v) - want); !(d <= 1e-5*mag+1e-30) {
					t.Fatalf("%v %s output %d: %g, want %g (Σ|w·x| %g)", ty, k.Path(), i, v, want, mag)
				}
			}
		}
	})
}

// BenchmarkDequantizeIQ2 is BenchmarkDequantize for these types.
func BenchmarkDequantizeIQ2(b *testing.B) {
	const n = 4096 * 256
	for _, ty := range iq2Types {
		nb, _ := ty.RowBytes(n)
		src := quantRandomBlocks(67, ty, int(nb)/ty.BlockBytes(), 0)
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

// BenchmarkMatVecIQ2 is decode through a 2048×2048 matrix of each IQ2 type
// against a Q2_K one (the K-quant of about the same size, in the GGUF
// layout, unpacked), on one thread. Each iteration times one Q2_K MatVec and
// one of the type back to back; "x-Q2_K" is the median of their time ratios
// (below 1 is faster), "p10"/"p90" the ratios' spread, "us" the type's
// median time.
func BenchmarkMatVecIQ2(b *testing.B) {
	k := NewKernels(NewPool(1))
	defer k.Close()
	const rows, cols = 2048, 2048
	rng := rand.New(rand.NewPCG(69, 70))
	ref := mustMatrixB(b, Q2_K, rows, cols, randomWeights(rng, Q2_K, rows, cols))
	x := randomVec(rng, cols)
	y := make([]float32, rows)
	for _, ty := range iq2Types {
		w := mustMatrixB(b, ty, rows, cols, randomWeights(rng, ty, rows, cols))
		b.Run(fmt.Sprint(ty), func(b *testing.B) {
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
			b.ReportMetric(median(ratios), "x-Q2_K")
			b.ReportMetric(ratios[len(ratios)/10], "p10")
			b.ReportMetric(ratios[len(ratios)*9/10], "p90")
			b.ReportMetric(median(tw), "us")
		})
	}
}
