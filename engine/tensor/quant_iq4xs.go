package tensor

// IQ4_XS: super-blocks of QKK = 256 weights in 8 sub-blocks of 32, each with
// a 6-bit scale, whose 4-bit codes index the non-linear levels of IQ4_NL
// (ggml-common.h block_iq4_xs; ggml-quants.c dequantize_row_iq4_xs).
//
//	IQ4_XS (136 bytes): f16 d, u16 scales_h, scales_l[4], qs[128].
//
// Sub-block j (weights 32j..32j+31) has the scale ls = (low 4 bits: nibble
// j%2 of scales_l[j/2], the low nibble first) | (top 2 bits: bits 2j..2j+1
// of scales_h, little-endian) << 4, and w = d·(ls − 32)·iq4nlValue(q). Its
// codes are qs[16j:16j+16], packed as in IQ4_NL and Q4_0: byte l holds
// weight 32j+l in its low nibble and weight 32j+16+l in its high one.
//
// The levels are IQ4_NL's kvalues_iq4nl (iq4nlValue, quant_legacy.go; the
// AVX2 kernel keeps its own copy of the bytes in dot_k23_amd64.s). The
// sub-blocks are 32 weights, the blocks of act, so the dot product needs no
// per-16 sums. As for Q2_K and Q3_K there is no encoder.

const iq4xsBytes = 136

// iq4xsScale returns sub-block j's signed scale ls − 32 (−32..31).
func iq4xsScale(b *[iq4xsBytes]byte, j int) int32 {
	lo := b[4+j/2] >> (4 * (j % 2)) & 0xF
	hi := quantLoad16(b[2:4]) >> (2 * j) & 3
	return int32(lo) | int32(hi)<<4 - 32
}

// dequantIQ4XS decodes len(dst)/256 IQ4_XS super-blocks from src.
func dequantIQ4XS(dst []float32, src []byte) {
	for i := range len(dst) / QKK {
		b := (*[iq4xsBytes]byte)(src[i*iq4xsBytes:])
		d := F16ToF32(quantLoad16(b[0:2]))
		for j := range QKK / QK {
			dl := d * float32(iq4xsScale(b, j))
			y := (*[QK]float32)(dst[i*QKK+QK*j:])
			for l, q := range b[8+16*j : 8+16*j+16] {
				y[l] = dl * float32(iq4nlValue(q))
				y[l+16] = dl * float32(iq4nlValue(q>>4))
			}
		}
	}
}
