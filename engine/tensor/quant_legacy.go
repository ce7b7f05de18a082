package tensor

import "math"

// The other 32-weight block types next to Q4_0 and Q8_0 (quant_q.go): the
// ones llama.cpp falls back to for matrices whose rows are not a multiple of
// 256 (SmolLM2's 576, Qwen2.5's 896), so a Q4_K_M file of such a model mixes
// them with its K-quants.
//
//	Q4_1   (20 bytes): f16 d, f16 m, qs[16];          w = d·q + m, q in 0..15
//	Q5_0   (22 bytes): f16 d, qh[4], qs[16];          w = d·(q−16), q in 0..31
//	Q5_1   (24 bytes): f16 d, f16 m, qh[4], qs[16];   w = d·q + m, q in 0..31
//	IQ4_NL (18 bytes): f16 d, qs[16];                 w = d·kvaluesIQ4NL[q], q in 0..15
//
// The nibbles are packed as in Q4_0: byte j of qs holds weight j in its low
// nibble and weight j+16 in its high one. Q5_0 and Q5_1 add a fifth bit per
// weight: qh read as a little-endian uint32 has weight j's fifth bit at bit j
// (so weights 16..31 use its upper half). IQ4_NL's 4-bit codes index a fixed
// non-linear table that spends more levels near zero, where most weights are.
//
// (ggml-common.h block_q4_1, block_q5_0, block_q5_1, block_iq4_nl;
// ggml-quants.c dequantize_row_q4_1/_q5_0/_q5_1/_iq4_nl.)
//
// As in quant_q.go, products are rounded to float32 before the offset is
// added (explicit conversions), so no platform fuses them into an FMA and the
// decoded values are the same everywhere.
//
// Q4_1, Q5_0 and Q5_1 have encoders that follow ggml's reference quantisers
// (quantize_row_q4_1_ref/_q5_0_ref/_q5_1_ref, what llama-quantize runs without
// an importance matrix) and reproduce the fixtures' bytes exactly. IQ4_NL has
// none: ggml's encoder is a weighted search over scales, not a rule.

const (
	q4_1Bytes   = 20
	q5_0Bytes   = 22
	q5_1Bytes   = 24
	iq4nlBytes  = 18
	iq4nlValues = "\x81\x98\xad\xbf\xcf\xdd\xea\xf6\x01\x0d\x19\x26\x35\x45\x59\x71"
	// iq4nlLevelsU is kvalues_iq4nl + 128 as unsigned bytes, the table
	// the packed IQ4_NL kernels look the codes up in (packlegacy.go).
	iq4nlLevelsU = "\x01\x18\x2d\x3f\x4f\x5d\x6a\x76\x81\x8d\x99\xa6\xb5\xc5\xd9\xf1"
)

// iq4nlValue is kvalues_iq4nl[q] = {−127, −104, −83, −65, −49, −35, −22, −10,
// 1, 13, 25, 38, 53, 69, 89, 113}[q]. The table is a string constant so it is
// immutable; the AVX2 kernel holds the same bytes (dot_legacy_amd64.s).
func iq4nlValue(q byte) int8 { return int8(iq4nlValues[q&15]) }

// legacyQH reads the 32 fifth bits of a Q5_0/Q5_1 block.
func legacyQH(b []byte) uint32 {
	return uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16 | uint32(b[3])<<24
}

// dequantQ4_1 decodes len(dst)/32 Q4_1 blocks from src.
func dequantQ4_1(dst []float32, src []byte) {
	for i := range len(dst) / QK {
		b := (*[q4_1Bytes]byte)(src[i*q4_1Bytes:])
		y := (*[QK]float32)(dst[i*QK:])
		d := F16ToF32(quantLoad16(b[0:2]))
		m := F16ToF32(quantLoad16(b[2:4]))
		for j, q := range b[4:] {
			y[j] = float32(d*float32(q&0xF)) + m
			y[j+QK/2] = float32(d*float32(q>>4)) + m
		}
	}
}

// dequantQ5_0 decodes len(dst)/32 Q5_0 blocks from src.
func dequantQ5_0(dst []float32, src []byte) {
	for i := range len(dst) / QK {
		b := (*[q5_0Bytes]byte)(src[i*q5_0Bytes:])
		y := (*[QK]float32)(dst[i*QK:])
		d := F16ToF32(quantLoad16(b[0:2]))
		qh := legacyQH(b[2:6])
		for j, q := range b[6:] {
			lo := int32(q&0xF) | int32(qh>>j&1)<<4
			hi := int32(q>>4) | int32(qh>>(j+QK/2)&1)<<4
			y[j] = d * float32(lo-16)
			y[j+QK/2] = d * float32(hi-16)
		}
	}
}

// dequantQ5_1 decodes len(dst)/32 Q5_1 blocks from src.
func dequantQ5_1(dst []float32, src []byte) {
	for i := range len(dst) / QK {
		b := (*[q5_1Bytes]byte)(src[i*q5_1Bytes:])
		y := (*[QK]float32)(dst[i*QK:])
		d := F16ToF32(quantLoad16(b[0:2]))
		m := F16ToF32(quantLoad16(b[2:4]))
		qh := legacyQH(b[4:8])
		for j, q := range b[8:] {
			lo := q&0xF | byte(qh>>j&1)<<4
			hi := q>>4 | byte(qh>>(j+QK/2)&1)<<4
			y[j] = float32(d*float32(lo)) + m
			y[j+QK/2] = float32(d*float32(hi)) + m
		}
	}
}

// dequantIQ4NL decodes len(dst)/32 IQ4_NL blocks from src.
func dequantIQ4NL(dst []float32, src []byte) {
	for i := range len(dst) / QK {
		b := (*[iq4nlBytes]byte)(src[i*iq4nlBytes:])
		y := (*[QK]float32)(dst[i*QK:])
		d := F16ToF32(quantLoad16(b[0:2]))
		for j, q := range b[2:] {
			y[j] = d * float32(iq4nlValue(q))
			y[j+QK/2] = d * float32(iq4nlValue(q>>4))
		}
	}
}

// quantQ4_1 encodes src as Q4_1 exactly as ggml's quantize_row_q4_1_ref does:
// the block's minimum is m and d = (max − min)/15, and
// q = min(15, trunc((x − min)/d + 0.5)), computed with the unrounded float32
// d and min while their float16 roundings d' and m' are stored.
//
// Error per element: |x − (d'q + m')| ≤ d/2 + 15·|d − d'| + |min − m'|
// ≤ d·(1/2 + 15·2⁻¹¹) + |min|·2⁻¹¹ (float16's relative rounding error is
// 2⁻¹¹ for normal values).
func quantQ4_1(dst []byte, src []float32) error { return quantMinMax(dst, src, 15, q4_1Bytes) }

// quantQ5_1 encodes src as Q5_1 exactly as ggml's quantize_row_q5_1_ref does:
// Q4_1's rule with 31 steps, d = (max − min)/31, q = trunc((x − min)/d + 0.5).
// Error per element: ≤ d·(1/2 + 31·2⁻¹¹) + |min|·2⁻¹¹, as for Q4_1.
func quantQ5_1(dst []byte, src []float32) error { return quantMinMax(dst, src, 31, q5_1Bytes) }

// quantMinMax is the shared min/max encoder of Q4_1 (nmax 15) and Q5_1
// (nmax 31, with the fifth bits in qh after m).
func quantMinMax(dst []byte, src []float32, nmax int32, bs int) error {
	for i := range len(src) / QK {
		x := (*[QK]float32)(src[i*QK:])
		if err := quantCheckFinite(x[:], i); err != nil {
			return err
		}
		// Written as ggml's comparisons, not min/max builtins, so a block
		// holding both zeros keeps the sign of the first one as ggml does.
		lo, hi := float32(math.MaxFloat32), float32(-math.MaxFloat32)
		for _, v := range x {
			if v < lo {
				lo = v
			}
			if v > hi {
				hi = v
			}
		}
		d := (hi - lo) / float32(nmax)
		var id float32
		if d != 0 {
			id = 1 / d
		}
		dh, err := quantScaleF16(d, i)
		if err != nil {
			return err
		}
		mh, err := quantScaleF16(lo, i)
		if err != nil {
			return err
		}
		b := dst[i*bs : i*bs+bs]
		quantStore16(b[0:2], dh)
		quantStore16(b[2:4], mh)
		qs := b[bs-QK/2:]
		var qh uint32
		for j := range QK / 2 {
			// Round the scaled value to float32 before adding 0.5, as C does.
			q0 := legacyLevel(float32((x[j]-lo)*id)+0.5, nmax)
			q1 := legacyLevel(float32((x[j+QK/2]-lo)*id)+0.5, nmax)
			qs[j] = q0&0xF | q1<<4
			qh |= uint32(q0>>4)<<j | uint32(q1>>4)<<(j+QK/2)
		}
		if nmax == 31 {
			b[4], b[5], b[6], b[7] = byte(qh), byte(qh>>8), byte(qh>>16), byte(qh>>24)
		}
	}
	return nil
}

// quantQ5_0 encodes src as Q5_0 exactly as ggml's quantize_row_q5_0_ref does:
// Q4_0's rule with 32 levels. The element of largest magnitude (the first on
// a tie), with its sign, sets d = max/−16, so it lands on q = 0 (−16·d), and
// q = min(31, trunc(x/d + 16.5)).
//
// Error per element, with d' = float16(d): |x − d'(q−16)| ≤ |d|/2 + 16|d − d'|
// for x/d ≤ 15.5, and up to |d| + 16|d − d'| for the values on the far side
// of the extreme (x/d in (15.5, 16]) that clamp to 31: |d|·(1/2 + 2⁻⁷)
// resp. |d|·(1 + 2⁻⁷).
func quantQ5_0(dst []byte, src []float32) error {
	for i := range len(src) / QK {
		x := (*[QK]float32)(src[i*QK:])
		if err := quantCheckFinite(x[:], i); err != nil {
			return err
		}
		dh, id, err := quantSymScale(x[:], 16, i)
		if err != nil {
			return err
		}
		b := (*[q5_0Bytes]byte)(dst[i*q5_0Bytes:])
		quantStore16(b[0:2], dh)
		var qh uint32
		for j := range QK / 2 {
			q0 := legacyLevel(float32(x[j]*id)+16.5, 31)
			q1 := legacyLevel(float32(x[j+QK/2]*id)+16.5, 31)
			b[6+j] = q0&0xF | q1<<4
			qh |= uint32(q0>>4)<<j | uint32(q1>>4)<<(j+QK/2)
		}
		b[2], b[3], b[4], b[5] = byte(qh), byte(qh>>8), byte(qh>>16), byte(qh>>24)
	}
	return nil
}

// legacyLevel is ggml's MIN(nmax, (int8_t)v): truncation toward zero, capped
// at nmax. Every caller's v is ≥ 0 up to rounding, where the float clamp
// first changes nothing; it keeps a NaN or huge v (a block whose 1/d
// overflowed, d being a tiny subnormal) from Go's implementation-defined
// float-to-integer conversion, so such a block still encodes to valid codes.
func legacyLevel(v float32, nmax int32) byte {
	if !(v > 0) {
		return 0
	}
	if v >= float32(nmax) {
		return byte(nmax)
	}
	return byte(int32(v))
}
