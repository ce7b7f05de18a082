package tensor

// The 2-bit importance-matrix types: super-blocks of QKK = 256 weights whose
// weights come eight at a time from a codebook ("grid") of 8-byte entries
// (magnitudes 8, 25 or 43), with one sign bit per weight and a 4-bit scale
// per 32 (IQ2_XXS) or per 16 (IQ2_XS, IQ2_S) weights (ggml-common.h
// block_iq2_xxs, block_iq2_xs, block_iq2_s; ggml-quants.c
// dequantize_row_iq2_xxs/_xs/_s). The grids and sign tables are
// iqtables_gen.go's.
//
//	IQ2_XXS (66 bytes): f16 d, qs[64] (eight 8-byte groups, one per 32 weights).
//	IQ2_XS  (74 bytes): f16 d, u16 qs[32], scales[8].
//	IQ2_S   (82 bytes): f16 d, qs[32], signs[32], qh[8], scales[8].
//
// A scale ls (4 bits) multiplies by d·(0.5 + ls)·0.25 = d·(2·ls + 1)/8; the
// decoders round d·(0.5 + ls) to float32 and then take the exact quarter,
// as ggml does, and a weight is that times its grid byte, negated when its
// sign bit is set.
//
// IQ2_XXS, group g (weights 32g..32g+31): the first four bytes index
// iq2xxs_grid for the weights' four runs of eight; the little-endian uint32
// of the last four holds in bits 7l..7l+6 the sign index of run l (the
// eighth sign, the parity of the seven, comes from ksigns_iq2xs) and in its
// top four bits the group's scale.
//
// IQ2_XS, run r (weights 8r..8r+7): qs[r] holds the iq2xs_grid index in its
// low 9 bits and the ksigns_iq2xs index in its top 7; scales[g] holds the
// scale of weights 32g..32g+15 in its low nibble and of 32g+16..32g+31 in
// its high one.
//
// IQ2_S, run r: the 10-bit iq2s_grid index is qs[r] | bits 2(r%4)..2(r%4)+1
// of qh[r/4] << 8, and signs[r] holds the eight signs outright (bit j: weight
// 8r+j); scales as in IQ2_XS.
//
// A NaN or ±Inf d decodes to NaN or ±Inf weights, as for every other type.
// There are no encoders: llama.cpp's need an importance matrix and a
// codebook search, and nothing in the engine writes these types.

const (
	iq2xxsBytes = 66
	iq2xsBytes  = 74
	iq2sBytes   = 82
)

// iq2Scale is d·(0.5 + ls)·0.25, rounded as ggml rounds it.
func iq2Scale(d float32, ls byte) float32 { return d * (0.5 + float32(ls)) * 0.25 }

// iq2Run decodes eight weights: dl times the grid entry's bytes, negated
// where signs has the weight's bit.
func iq2Run(y *[8]float32, dl float32, grid uint64, signs byte) {
	for j := range 8 {
		v := dl * float32(byte(grid>>(8*j)))
		if signs>>j&1 != 0 {
			v = -v
		}
		y[j] = v
	}
}

// dequantIQ2XXS decodes len(dst)/256 IQ2_XXS super-blocks from src.
func dequantIQ2XXS(dst []float32, src []byte) {
	for i := range len(dst) / QKK {
		b := (*[iq2xxsBytes]byte)(src[i*iq2xxsBytes:])
		d := F16ToF32(quantLoad16(b[0:2]))
		for g := range 8 {
			q := b[2+8*g : 10+8*g]
			aux := uint32(q[4]) | uint32(q[5])<<8 | uint32(q[6])<<16 | uint32(q[7])<<24
			dl := iq2Scale(d, byte(aux>>28))
			for l := range 4 {
				y := (*[8]float32)(dst[i*QKK+32*g+8*l:])
				iq2Run(y, dl, iq2xxs_grid[q[l]], ksigns_iq2xs[aux>>(7*l)&127])
			}
		}
	}
}

// dequantIQ2XS decodes len(dst)/256 IQ2_XS super-blocks from src.
func dequantIQ2XS(dst []float32, src []byte) {
	for i := range len(dst) / QKK {
		b := (*[iq2xsBytes]byte)(src[i*iq2xsBytes:])
		d := F16ToF32(quantLoad16(b[0:2]))
		for r := range 32 {
			q := quantLoad16(b[2+2*r:])
			dl := iq2Scale(d, b[66+r/4]>>(4*(r%4/2))&0xF)
			y := (*[8]float32)(dst[i*QKK+8*r:])
			iq2Run(y, dl, iq2xs_grid[q&511], ksigns_iq2xs[q>>9])
		}
	}
}

// dequantIQ2S decodes len(dst)/256 IQ2_S super-blocks from src.
func dequantIQ2S(dst []float32, src []byte) {
	for i := range len(dst) / QKK {
		b := (*[iq2sBytes]byte)(src[i*iq2sBytes:])
		d := F16ToF32(quantLoad16(b[0:2]))
		for r := range 32 {
			idx := int(b[2+r]) | int(b[66+r/4])<<(8-2*(r%4))&0x300
			dl := iq2Scale(d, b[74+r/4]>>(4*(r%4/2))&0xF)
			y := (*[8]float32)(dst[i*QKK+8*r:])
			iq2Run(y, dl, iq2s_grid[idx], b[34+r])
		}
	}
}
