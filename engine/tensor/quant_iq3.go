package tensor

import "encoding/binary"

// IQ3_XXS and IQ3_S: super-blocks of QKK = 256 weights whose magnitudes come
// in groups of four from a codebook of 4-byte entries (iq3xxs_grid,
// iq3s_grid in iqtables_gen.go), each weight with its own sign bit, and a
// 4-bit scale per 32 weights (ggml-common.h block_iq3_xxs, block_iq3_s;
// ggml-quants.c dequantize_row_iq3_xxs, dequantize_row_iq3_s).
//
//	IQ3_XXS (98 bytes):  f16 d, qs[64], scales_and_signs[32]
//	IQ3_S   (110 bytes): f16 d, qs[64], qh[8], signs[32], scales[4]
//
// Sub-block j (weights 32j..32j+31) is eight groups of four. Group m's
// magnitudes are the four bytes of a grid entry, byte k for weight
// 32j+4m+k: entry qs[8j+m] of iq3xxs_grid (magnitudes 4…62), or entry
// qs[8j+m] | (bit m of qh[j])<<8 of the 512-entry iq3s_grid (1…15).
//
// IQ3_XXS packs sub-block j's signs and scale into the little-endian
// uint32 aux_j at scales_and_signs[4j]: bits 7l..7l+6 index ksigns_iq2xs,
// whose byte has bit k set when weight 32j+8l+k is negative (the eighth
// sign is the parity of the seven stored ones), and the top four bits are
// the scale s: w = d·(0.5 + s)·0.5·(±grid). IQ3_S stores the signs
// plainly, bit k of signs[4j+l] for weight 32j+8l+k, and the scale s as
// nibble j%2 of scales[j/2] (low first): w = d·(1 + 2s)·(±grid).
//
// For the dot products both scales are odd integers over a power of two:
// IQ3_XXS's d·(2s+1)/4, IQ3_S's d·(2s+1), so a sub-block's sum stays an
// integer, (2s+1)·Σ(±grid)·xq, and the float work is one multiply by
// d/4 (exact) or d. As for Q2_K and Q3_K there is no encoder.

const (
	iq3xxsBytes = 98
	iq3sBytes   = 110
)

// iq3xxsAux returns IQ3_XXS sub-block j's signs-and-scale word.
func iq3xxsAux(b *[iq3xxsBytes]byte, j int) uint32 {
	return binary.LittleEndian.Uint32(b[66+4*j:])
}

// iq3xxsSigns returns IQ3_XXS sub-block j's 32 sign bits (bit i set:
// weight 32j+i is negative), the four ksigns_iq2xs bytes aux selects.
func iq3xxsSigns(aux uint32) uint32 {
	var s uint32
	for l := range 4 {
		s |= uint32(ksigns_iq2xs[aux>>(7*l)&127]) << (8 * l)
	}
	return s
}

// iq3sIndex returns the iq3s_grid entry of IQ3_S sub-block j's group m.
func iq3sIndex(b *[iq3sBytes]byte, j, m int) int {
	return int(b[2+8*j+m]) | int(b[66+j]>>m&1)<<8
}

// iq3sSigns returns IQ3_S sub-block j's 32 sign bits.
func iq3sSigns(b *[iq3sBytes]byte, j int) uint32 {
	return binary.LittleEndian.Uint32(b[74+4*j:])
}

// iq3sScale returns IQ3_S sub-block j's 4-bit scale s.
func iq3sScale(b *[iq3sBytes]byte, j int) uint32 {
	return uint32(b[106+j/2]>>(4*(j%2))) & 0xF
}

// iq3Put writes the 32 weights of one sub-block: dl·(±grid) with the
// grid entries g (eight of them, four magnitudes each) and sign bits s.
func iq3Put(y *[QK]float32, dl float32, g *[8]uint32, s uint32) {
	for i := range QK {
		v := dl * float32(g[i/4]>>(8*(i%4))&0xFF)
		if s>>i&1 != 0 {
			v = -v
		}
		y[i] = v
	}
}

// dequantIQ3XXS decodes len(dst)/256 IQ3_XXS super-blocks from src.
func dequantIQ3XXS(dst []float32, src []byte) {
	for i := range len(dst) / QKK {
		b := (*[iq3xxsBytes]byte)(src[i*iq3xxsBytes:])
		d := F16ToF32(quantLoad16(b[0:2]))
		for j := range QKK / QK {
			aux := iq3xxsAux(b, j)
			// ggml's d·(0.5 + s)·0.5, in its order.
			dl := d * (0.5 + float32(aux>>28)) * 0.5
			var g [8]uint32
			for m := range g {
				g[m] = iq3xxs_grid[b[2+8*j+m]]
			}
			iq3Put((*[QK]float32)(dst[i*QKK+QK*j:]), dl, &g, iq3xxsSigns(aux))
		}
	}
}

// dequantIQ3S decodes len(dst)/256 IQ3_S super-blocks from src.
func dequantIQ3S(dst []float32, src []byte) {
	for i := range len(dst) / QKK {
		b := (*[iq3sBytes]byte)(src[i*iq3sBytes:])
		d := F16ToF32(quantLoad16(b[0:2]))
		for j := range QKK / QK {
			dl := d * float32(1+2*iq3sScale(b, j))
			var g [8]uint32
			for m := range g {
				g[m] = iq3s_grid[iq3sIndex(b, j, m)]
			}
			iq3Put((*[QK]float32)(dst[i*QKK+QK*j:]), dl, &g, iq3sSigns(b, j))
		}
	}
}
