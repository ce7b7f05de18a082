package tensor

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// Tests for Q2_K, Q3_K and IQ4_XS (quant_k23.go, quant_iq4xs.go, dot_k23*.go).
// The shared kernel tests of kernels_test.go (TestDotPathsAgree against a
// float64 dot of the dequantised weights, TestMatMulEqualsMatVec bit for
// bit, TestThreadCountInvariant, TestKernelsAllocateNothing) cover these
// types through kernelTypes; kjv_k23_test.go checks llama.cpp's own files.

// k23Types are the types this file is about.
var k23Types = []Type{Q2_K, Q3_K, IQ4_XS}

// k23Halves are the offsets of each type's float16 fields within a block.
func k23Halves(ty Type) []int {
	switch ty {
	case Q2_K:
		return []int{80, 82}
	case Q3_K:
		return []int{108}
	}
	return []int{0}
}

// ---------------------------------------------------------------------------
// Decoders on blocks built by hand. Every expected value is worked out from
// the layout in the comments.

// TestDequantQ2KHand: d = 0x3800 = 0.5, dmin = 0x3400 = 0.25; scales[k]
// holds sc (low nibble) and m (high nibble) of sub-block k = e/16:
//
//	k0 0x21: sc 1,  m 2  → (d·sc, dmin·m) = (0.5, 0.5)
//	k1 0x0F: sc 15, m 0  → (7.5, 0)
//	k2 0x53: sc 3,  m 5  → (1.5, 1.25)
//	k9 0xF3: sc 3,  m 15 → (1.5, 3.75)
//	k15 0x1A: sc 10, m 1 → (5, 0.25)
//
// All other scales are 0, and with all codes 0 a sub-block decodes to
// −dmin·m: k0 −0.5, k2 −1.25, k9 −3.75, k15 −0.25, the rest 0.
//
// Code of weight e = 128h + 32j + l: bits 2j..2j+1 of qs[32h + l].
//
//	qs[0]  = 0x07: e0   (j0) q 3 → 0.5·3 − 0.5 = 1;   e32 (j1) q 1, k2 → 1.5 − 1.25 = 0.25
//	qs[17] = 0x02: e17  (j0) q 2, k1 (second half of the block) → 7.5·2 = 15
//	qs[48] = 0xC1: e144 (h1, l16) q 1, k9 → 1.5 − 3.75 = −2.25; e240 (j3) q 3, k15 → 15 − 0.25 = 14.75
//	qs[63] = 0x80: e159 q 0 → −3.75; e255 (j3) q 2, k15 → 10 − 0.25 = 9.75
func TestDequantQ2KHand(t *testing.T) {
	b := make([]byte, q2KBytes)
	b[0], b[1], b[2], b[9], b[15] = 0x21, 0x0F, 0x53, 0xF3, 0x1A
	qs := b[16:80]
	qs[0], qs[17], qs[48], qs[63] = 0x07, 0x02, 0xC1, 0x80
	b[80], b[81], b[82], b[83] = 0x00, 0x38, 0x00, 0x34

	want := make([]float32, QKK)
	for k, v := range map[int]float32{0: -0.5, 2: -1.25, 9: -3.75, 15: -0.25} {
		for i := 16 * k; i < 16*k+16; i++ {
			want[i] = v
		}
	}
	want[0], want[32], want[17] = 1, 0.25, 15
	want[144], want[240], want[159], want[255] = -2.25, 14.75, -3.75, 9.75

	y := make([]float32, QKK)
	if err := Dequantize(Q2_K, y, b); err != nil {
		t.Fatal(err)
	}
	quantCompare(t, "Q2_K", y, want)
}

// TestDequantQ3KHand: d = 0x3800 = 0.5. Sixteen 6-bit scales s with offset
// 32; s = 32 (scale 0) everywhere except
//
//	k0 33 → 1,   k1 40 → 8,   k5 0 → −32,   k8 63 → 31,   k14 20 → −12.
//
// Packing: the low nibble of s_k goes to byte k%8 (low nibble for k < 8,
// high for k ≥ 8), its top two bits to byte 8 + k%4 at bits 2·(k/4). The
// default s = 32 = 0b10_0000 puts 0 in the nibbles and 2 in every bit pair,
// so bytes 8..11 start as 0xAA. Then:
//
//	p0 = 0xF1 (k0 low 1, k8 low 15), p1 = 0x08 (k1 low 8), p6 = 0x40 (k14 low 4)
//	p8  = pairs k0 2, k4 2, k8 3, k12 2  = 0b10_11_10_10 = 0xBA
//	p9  = pairs k1 2, k5 0, k9 2, k13 2  = 0b10_10_00_10 = 0xA2
//	p10 = pairs k2 2, k6 2, k10 2, k14 1 = 0b01_10_10_10 = 0x6A
//	p11 = 0xAA
//
// d·scale: k0 0.5, k1 4, k5 −16, k8 15.5, k14 −6, others 0. A weight's code
// is low2 + 4·hbit − 4, low2 from bits 2j of qs[32h + l] and hbit = bit e/32
// of hmask[e%32]; all-zero codes are −4, so sub-blocks default to −4·d·scale:
// k0 −2, k1 −16, k5 64, k8 −62, k14 24.
//
//	e0   = (h0 j0 l0):  qs[0]  = 0x03, hmask[0] bit 0:  q 3  → 0.5·3 = 1.5
//	e17  = (h0 j0 l17): qs[17] = 0x01, no high bit:     q −3 → 4·−3 = −12
//	e85  = (h0 j2 l21): qs[21] = 0x20, hmask[21] bit 2: q 2  → −16·2 = −32
//	e130 = (h1 j0 l2):  qs[34] = 0x02, hmask[2] bit 4:  q 2  → 15.5·2 = 31
//	e231 = (h1 j3 l7):  qs[39] = 0x40, hmask[7] bit 7:  q 1  → −6
//
// hmask[2] and hmask[7] also serve e2 and e7 (bit 0, clear): they stay −2.
func TestDequantQ3KHand(t *testing.T) {
	b := make([]byte, q3KBytes)
	hm, qs, sc := b[0:32], b[32:96], b[96:108]
	copy(sc, []byte{0xF1, 0x08, 0, 0, 0, 0, 0x40, 0, 0xBA, 0xA2, 0x6A, 0xAA})
	b[108], b[109] = 0x00, 0x38
	qs[0], hm[0] = 0x03, 0x01
	qs[17] = 0x01
	qs[21], hm[21] = 0x20, 0x04
	qs[34], hm[2] = 0x02, 0x10
	qs[39], hm[7] = 0x40, 0x80

	want := make([]float32, QKK)
	for k, v := range map[int]float32{0: -2, 1: -16, 5: 64, 8: -62, 14: 24} {
		for i := 16 * k; i < 16*k+16; i++ {
			want[i] = v
		}
	}
	want[0], want[17], want[85], want[130], want[231] = 1.5, -12, -32, 31, -6

	y := make([]float32, QKK)
	if err := Dequantize(Q3_K, y, b); err != nil {
		t.Fatal(err)
	}
	quantCompare(t, "Q3_K", y, want)
}

// TestDequantIQ4XSHand: d = 0x3800 = 0.5. Eight 6-bit scales ls with offset
// 32; ls = 32 everywhere except j0 33 → 1, j1 40 → 8, j3 0 → −32, j4 63 → 31,
// j7 20 → −12. Low nibbles in scales_l[j/2] (j even: low nibble):
// 0x81 (j0 1, j1 8), 0x00 (j2, j3), 0x0F (j4 15, j5 0), 0x40 (j6 0, j7 4).
// Top bit pairs in scales_h at bits 2j: 2, 2, 2, 0, 3, 2, 2, 1, i.e.
// 0b01_10_10_11_00_10_10_10 = 0x6B2A, stored 2A 6B.
//
// d·(ls − 32): j0 0.5, j1 4, j3 −16, j4 15.5, j7 −6, others 0. Code 0 is the
// level −127, so sub-blocks default to −127·d·(ls − 32): j0 −63.5, j1 −508,
// j3 2032, j4 −1968.5, j7 762. Byte l of qs[16j:] holds weight 32j+l (low
// nibble) and 32j+16+l (high); levels kvalues_iq4nl:
//
//	qs[0]   = 0xF8: y[0]   = 0.5·level 8 (1) = 0.5;      y[16]  = 0.5·113 = 56.5
//	qs[31]  = 0x7A: y[47]  = 4·level 10 (25) = 100;      y[63]  = 4·−10 = −40
//	qs[51]  = 0x0C: y[99]  = −16·level 12 (53) = −848;   y[115] = 2032
//	qs[64]  = 0x9E: y[128] = 15.5·level 14 (89) = 1379.5; y[144] = 15.5·13 = 201.5
//	qs[127] = 0x30: y[239] = −6·−127 = 762;              y[255] = −6·−65 = 390
func TestDequantIQ4XSHand(t *testing.T) {
	b := make([]byte, iq4xsBytes)
	b[0], b[1], b[2], b[3] = 0x00, 0x38, 0x2A, 0x6B
	copy(b[4:8], []byte{0x81, 0x00, 0x0F, 0x40})
	qs := b[8:]
	qs[0], qs[31], qs[51], qs[64], qs[127] = 0xF8, 0x7A, 0x0C, 0x9E, 0x30

	want := make([]float32, QKK)
	for j, v := range map[int]float32{0: -63.5, 1: -508, 3: 2032, 4: -1968.5, 7: 762} {
		for i := 32 * j; i < 32*j+32; i++ {
			want[i] = v
		}
	}
	want[0], want[16], want[47], want[63] = 0.5, 56.5, 100, -40
	want[99], want[115], want[128], want[144] = -848, 2032, 1379.5, 201.5
	want[239], want[255] = 762, 390

	y := make([]float32, QKK)
	if err := Dequantize(IQ4_XS, y, b); err != nil {
		t.Fatal(err)
	}
	quantCompare(t, "IQ4_XS", y, want)
}

// ---------------------------------------------------------------------------
// Independent per-element reference decoders, written from the element's
// point of view (which byte and bit holds element e, which scale it uses)
// rather than looping over blocks as the decoders under test do, and from
// ggml's description with float64 half decoding. Products are rounded in the
// same order, so the comparison is exact.

func quantRefQ2K(src []byte, e int) float32 {
	b := src[(e/QKK)*q2KBytes:]
	i := e % QKK
	d, dmin := float32(halfOracle(quantLE(b[80:]))), float32(halfOracle(quantLE(b[82:])))
	sm := b[i/16]                                       // sub-block i/16: scale low nibble, min high
	q := int(b[16+32*(i/128)+i%32]>>(2*(i%128/32))) & 3 // bit pair j of byte l in half h
	return float32(float32(d*float32(sm&15))*float32(q)) - float32(dmin*float32(sm>>4))
}

func quantRefQ3K(src []byte, e int) float32 {
	b := src[(e/QKK)*q3KBytes:]
	i := e % QKK
	d := float32(halfOracle(quantLE(b[108:])))
	k := i / 16
	p := b[96:108]
	s := int(p[k%8]>>(4*(k/8)))&15 | (int(p[8+k%4]>>(2*(k/4)))&3)<<4
	low := int(b[32+32*(i/128)+i%32]>>(2*(i%128/32))) & 3
	high := int(b[i%32]>>(i/32)) & 1 // bit e/32 of hmask[e%32]
	return float32(d*float32(s-32)) * float32(low+4*high-4)
}

func quantRefIQ4XS(src []byte, e int) float32 {
	b := src[(e/QKK)*iq4xsBytes:]
	i := e % QKK
	d := float32(halfOracle(quantLE(b[0:])))
	j, l := i/32, i%32
	ls := int(b[4+j/2]>>(4*(j%2)))&15 | (int(quantLE(b[2:])>>(2*j))&3)<<4
	levels := [16]int8{-127, -104, -83, -65, -49, -35, -22, -10, 1, 13, 25, 38, 53, 69, 89, 113}
	q := b[8+16*j+l%16] >> (4 * (l / 16)) & 15
	return float32(d*float32(ls-32)) * float32(levels[q])
}

func TestDequantK23MatchesReference(t *testing.T) {
	for _, c := range []struct {
		ty  Type
		ref func([]byte, int) float32
	}{{Q2_K, quantRefQ2K}, {Q3_K, quantRefQ3K}, {IQ4_XS, quantRefIQ4XS}} {
		const nb = 32
		src := quantRandomBlocks(51, c.ty, nb, k23Halves(c.ty)...)
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

// TestQ3KScalesAllCodes unpacks every 6-bit code in every one of the sixteen
// slots (the other slots holding other codes), so each bit of the packing
// is exercised against the reference formula.
func TestQ3KScalesAllCodes(t *testing.T) {
	for k := range 16 {
		for v := range 64 {
			var codes [16]int
			for i := range codes {
				codes[i] = (v + 7*i) & 63
			}
			codes[k] = v
			var p [12]byte
			for i, s := range codes {
				p[i%8] |= byte(s&15) << (4 * (i / 8))
				p[8+i%4] |= byte(s>>4) << (2 * (i / 4))
			}
			got := q3KScales(&p)
			for i, s := range codes {
				if int(got[i]) != s-32 {
					t.Fatalf("slot %d code %d: slot %d unpacked %d, want %d (bytes % x)", k, v, i, got[i], s-32, p)
				}
			}
		}
	}
}

func TestQuantK23Unsupported(t *testing.T) {
	x := make([]float32, QKK)
	for _, ty := range k23Types {
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
// Dot kernels: the assembly against the portable definition.

// TestK23AsmMatchesPortable calls both row kernels directly on random
// super-blocks, for row lengths of 1 to 9 super-blocks and a few longer
// ones, and requires agreement to float32 summation order: both form the
// same exact int32 sums per activation block (their magnitudes stay far
// below 2²⁴, so converting them is exact too), so only the order and
// grouping of the float products differ. The bound is relative to the size
// of the float terms, min terms included (k23TermMagnitude).
func TestK23AsmMatchesPortable(t *testing.T) {
	pool := NewPool(1)
	defer pool.Close()
	kg, ka := newKernels(pool, false), newKernels(pool, true)
	if ka.Path() == kg.Path() {
		t.Skip("no assembly kernels on this CPU: only the portable path exists")
	}
	rng := rand.New(rand.NewPCG(53, 54))
	const rows = 3
	for _, ty := range k23Types {
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
				mag := k23TermMagnitude(t, ty, w[r*rb:(r+1)*rb], a)
				if d := math.Abs(float64(got[r]) - float64(want[r])); d > 1e-6*mag {
					t.Errorf("%v %d super-blocks row %d: asm %g, go %g (|diff| %g > 1e-6·%g)", ty, nsb, r, got[r], want[r], d, mag)
				}
			}
		}
	}
}

// k23TermMagnitude is Σ_e dx·|xq_e|·(|d·s·q_e| + |dmin·m|): the size of the
// float terms a kernel adds for one row. For Q2_K the two parts come from
// decoding the row with dmin and then d set to zero; the other types have
// no min, so it is Σ|w·x| over the weights as decoded.
func k23TermMagnitude(t *testing.T, ty Type, row []byte, a act) float64 {
	t.Helper()
	parts := [][]byte{row}
	if ty == Q2_K {
		noMin, onlyMin := slices.Clone(row), slices.Clone(row)
		for b := 0; b < len(row); b += q2KBytes {
			binary.LittleEndian.PutUint16(noMin[b+82:], 0)
			binary.LittleEndian.PutUint16(onlyMin[b+80:], 0)
		}
		parts = [][]byte{noMin, onlyMin}
	}
	var mag float64
	w := make([]float32, len(a.qs))
	for _, p := range parts {
		if err := Dequantize(ty, w, p); err != nil {
			t.Fatal(err)
		}
		for i, v := range w {
			mag += math.Abs(float64(v)) * math.Abs(float64(a.qs[i])) * float64(a.d[i/QK])
		}
	}
	return mag
}

// TestK23DotExtremes sets every code of every super-block to its level of
// largest magnitude, every scale to its extreme and every activation to ±1
// (codes ±127), where the assembly's int16 sums are largest: Q3_K's −4
// (low bits 0, the 4·xq subtracted) and 3, whose per-16 sums of ±16·4·127
// and 16·3·127 are the largest its VPHADDW tree holds, Q2_K's code 3 and
// min 15, IQ4_XS's level −127 against ±127 (pair sums of 32258, just under
// saturation). Both paths must give the exact product, the same w·x in
// every position, to float rounding.
func TestK23DotExtremes(t *testing.T) {
	pool := NewPool(1)
	defer pool.Close()
	paths := []*Kernels{newKernels(pool, false), newKernels(pool, true)}
	const nsb = 3
	for _, c := range []struct {
		name string
		ty   Type
		fill func(blk []byte)
	}{
		{"Q2_K all 3, sc 15, m 15", Q2_K, func(blk []byte) {
			for i := range blk[:80] {
				blk[i] = 0xFF
			}
			binary.LittleEndian.PutUint16(blk[80:], F32ToF16(0.5))
			binary.LittleEndian.PutUint16(blk[82:], F32ToF16(0.25))
		}},
		{"Q3_K all −4, scale −32", Q3_K, func(blk []byte) {
			clear(blk[:108])                                        // low bits 0, high bits clear: −4; every s = 0: scale −32
			binary.LittleEndian.PutUint16(blk[108:], F32ToF16(0.5)) // w = 0.5·−32·−4 = 64
		}},
		{"Q3_K all 3, scale 31", Q3_K, func(blk []byte) {
			for i := range blk[:96] {
				blk[i] = 0xFF // low bits 3, high bits set: 3
			}
			copy(blk[96:108], slices.Repeat([]byte{0xFF}, 12)) // s = 63: scale 31
			binary.LittleEndian.PutUint16(blk[108:], F32ToF16(0.5))
		}},
		{"IQ4_XS all −127, scale −32", IQ4_XS, func(blk []byte) {
			binary.LittleEndian.PutUint16(blk, F32ToF16(0.5))
			clear(blk[2:]) // ls = 0: scale −32; codes 0: level −127
		}},
		{"IQ4_XS all 113, scale 31", IQ4_XS, func(blk []byte) {
			binary.LittleEndian.PutUint16(blk, F32ToF16(0.5))
			for i := range blk[2:] {
				blk[2+i] = 0xFF
			}
		}},
	} {
		for _, sign := range []float32{1, -1} {
			bs := c.ty.BlockBytes()
			w := make([]byte, nsb*bs)
			for b := range nsb {
				c.fill(w[b*bs : b*bs+bs])
			}
			x := slices.Repeat([]float32{sign}, nsb*QKK)
			want, _ := refDot(t, c.ty, w, actValues(x))
			for _, k := range paths {
				got := make([]float32, 1)
				k.MatVec(got, mustMatrix(t, c.ty, 1, len(x), w), x)
				if d := math.Abs(float64(got[0]) - want); d > 1e-6*math.Abs(want) {
					t.Errorf("%s %s x=%v: got %g, want %g", c.name, k.Path(), sign, got[0], want)
				}
			}
		}
	}
}

// TestK23MatVecsMixed: these types fuse with the others in one MatVecs call
// and give each product what a lone MatVec gives.
func TestK23MatVecsMixed(t *testing.T) {
	checkMatVecsMixed(t, rand.New(rand.NewPCG(55, 56)), 768, Q2_K, Q8_0, Q3_K, IQ4_XS)
}

// BenchmarkDequantizeK23 is BenchmarkDequantize for these types: the encoded
// (file) bytes turned into float32 per second.
func BenchmarkDequantizeK23(b *testing.B) {
	const n = 4096 * 256
	for _, ty := range k23Types {
		nb, _ := ty.RowBytes(n)
		src := quantRandomBlocks(57, ty, int(nb)/ty.BlockBytes(), k23Halves(ty)...)
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
