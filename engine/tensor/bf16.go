package tensor

import "math"

// BF16 weights meet bfloat16 activations.
//
// llama.cpp rounds the activations of a BF16 matrix to bfloat16 before the
// product (ggml's vec_dot_type for BF16 is BF16), and on CPUs with
// AVX512-BF16 runs the product on VDPBF16PS, which multiplies pairs of
// bfloat16 and adds them to float32 lanes. Rounding the activations the same
// way brings our BF16 results closer to the reference than float32
// activations would, and it lets this CPU run the same instruction: twice
// the multiply-adds of an FMA per instruction, with no conversion of the
// weights. Every path rounds them; how the product is then summed depends
// on the CPU:
//
//   - with AVX512-BF16 (bf16_amd64.s), the pair order below, which
//     dotBF16PairsGo defines bit for bit;
//   - otherwise the float kernels of F16's shape (dot_amd64.s,
//     gemm_legacy_amd64.s, f16_avx512_amd64.s) over the rounded activations
//     widened back to float32, or dotBF16Go without AVX2.
//
// Products of two bfloat16 are exact in float32 (8-bit significands), so
// the two orders differ only in how the sums round.

// toBF16 rounds src to bfloat16 into dst, ties to even, as the AVX-512
// VCVTNE2PS2BF16 does: a NaN stays a NaN (quieted), and a subnormal becomes
// a zero of its sign (VDPBF16PS would take it as zero anyway).
func toBF16(dst []uint16, src []float32) {
	dst = dst[:len(src)]
	for i, v := range src {
		b := math.Float32bits(v)
		switch {
		case b&0x7fffffff > 0x7f800000:
			dst[i] = uint16(b>>16) | 0x40
		case b&0x7f800000 == 0:
			dst[i] = uint16(b>>16) & 0x8000
		default:
			dst[i] = uint16((b + 0x7fff + (b>>16)&1) >> 16)
		}
	}
}

// roundBF16 is toBF16 widened back to float32, for the kernels that read
// float32 activations.
func roundBF16(dst, src []float32) {
	dst = dst[:len(src)]
	for i, v := range src {
		b := math.Float32bits(v)
		switch {
		case b&0x7fffffff > 0x7f800000:
			b |= 0x400000
		case b&0x7f800000 == 0:
			b &= 0x80000000
		default:
			b += 0x7fff + (b>>16)&1
		}
		dst[i] = math.Float32frombits(b &^ 0xffff)
	}
}

// bf16Lanes is the width of the pair kernels' accumulator: 16 float32
// lanes, each taking two products per 32 elements.
const bf16Lanes = 16

// dotBF16PairsGo is the pair kernels' arithmetic, the definition the
// assembly reproduces bit for bit; it reads the activations as bfloat16
// (a.h). For each 32 elements, lane i adds the product of elements 2i+1,
// then that of 2i (VDPBF16PS's order, measured on Zen 5 to match Intel's
// description over 200,000 random cases), with subnormal inputs taken as
// zero and subnormal sums flushed to zero as the instruction does. A row
// whose length is not a multiple of 32 is zero-padded. The lanes are then
// summed as the assembly folds a register: lane j with j+8, then j with
// j+4, then (0+1)+(2+3).
func dotBF16PairsGo(w []byte, _ []float32, a act) float32 {
	wh := asU16(w)[:len(a.h)]
	var l [bf16Lanes]float32
	for c := 0; c < len(wh); c += 2 * bf16Lanes {
		for i := range bf16Lanes {
			for _, e := range [2]int{c + 2*i + 1, c + 2*i} {
				if e < len(wh) {
					l[i] = ftz(l[i] + daz(BF16ToF32(wh[e]))*daz(BF16ToF32(a.h[e])))
				} else {
					l[i] = ftz(l[i] + 0)
				}
			}
		}
	}
	var t [8]float32
	for j := range t {
		t[j] = l[j] + l[j+8]
	}
	u := [4]float32{t[0] + t[4], t[1] + t[5], t[2] + t[6], t[3] + t[7]}
	return (u[0] + u[1]) + (u[2] + u[3])
}

// daz and ftz take a subnormal to a zero of its sign.
func daz(v float32) float32 {
	if b := math.Float32bits(v); b&0x7f800000 == 0 {
		return math.Float32frombits(b & 0x80000000)
	}
	return v
}

func ftz(v float32) float32 { return daz(v) }
